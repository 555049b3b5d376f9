//! What `#[prompt]` and `prompts![]` expand to: building a prompt's [`PromptInfo`] once,
//! reading its arguments, turning its return value into a result, and making the
//! attribute's completers [`Complete`] objects.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::args::{ArgumentProblem, PyStr};
use crate::complete::{Complete, CompletionRequest, IntoCompletion, from_async_fn, from_fn};
use crate::prompt::{
    GetPromptResult, Icon, Prompt, PromptArgumentError, PromptArgumentInfo, PromptArguments, PromptError,
    PromptInfo, PromptRegistry, PromptRegistryError, PromptReturn,
};
use crate::schema_gen::SchemaGen;

/// Builds a `#[prompt]`'s [`PromptInfo`]; the expansion calls one method per argument.
pub struct PromptBuilder {
    info: PromptInfo,
}

impl PromptBuilder {
    pub fn new(name: &'static str, description: &'static str) -> Self {
        PromptBuilder { info: PromptInfo::new(name).with_description(description.trim()) }
    }

    pub fn title(mut self, title: &'static str) -> Self {
        self.info = self.info.with_title(title);
        self
    }

    pub fn icon(mut self, src: &'static str) -> Self {
        self.info = self.info.with_icon(Icon::new(src));
        self
    }

    /// An argument of type `T` (the `Option`'s inner type for an optional one): any string
    /// when `T`'s schema is a string, the listed values when it is an enum of strings, and
    /// a problem the registry reports otherwise.
    pub fn argument<T: JsonSchema + ?Sized>(
        mut self,
        name: &'static str,
        doc: &'static str,
        required: bool,
    ) -> Self {
        let schema = SchemaGen::new().root::<T>();
        let mut arg = PromptArgumentInfo::new(name, required).with_description(doc.trim());
        match string_values(&schema) {
            Ok(None) => {}
            Ok(Some(values)) => arg = arg.with_values(values),
            Err(got) => {
                self.info = self.info.with_problem(format!(
                    "argument {} must be a String, an Option<String> or an enum of strings; its type `{}` is {got}",
                    PyStr(name),
                    T::schema_name()
                ));
            }
        }
        self.info = self.info.with_argument(arg);
        self
    }

    pub fn build(self) -> PromptInfo {
        self.info
    }
}

/// `Ok(None)` for a plain string schema, `Ok(Some(values))` for an enum of strings, else
/// what the schema describes instead.
fn string_values(schema: &Value) -> Result<Option<Vec<String>>, String> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| "an enum of values that are not all strings".to_owned());
    }
    if let Some(s) = schema.get("const").and_then(Value::as_str) {
        return Ok(Some(vec![s.to_owned()]));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let mut all = Vec::new();
            for option in options {
                match string_values(option)? {
                    Some(values) => all.extend(values),
                    None => return Err("an enum whose variants are not all unit variants".to_owned()),
                }
            }
            return Ok(Some(all));
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "string" => Ok(None),
        Some(Value::String(t)) => Err(format!("described as a JSON {t}")),
        _ => Err("not described as a string".to_owned()),
    }
}

/// A required argument (the server checked it is present and allowed).
pub fn prompt_arg<T: DeserializeOwned>(
    prompt: &'static str,
    args: &PromptArguments,
    name: &'static str,
) -> Result<T, PromptError> {
    match prompt_arg_opt(prompt, args, name)? {
        Some(v) => Ok(v),
        None => Err(PromptError::Arguments(PromptArgumentError {
            prompt: prompt.to_owned(),
            problem: ArgumentProblem::UnknownOrMissing {
                unexpected: Vec::new(),
                missing: vec![name.to_owned()],
                accepted: vec![name.to_owned()],
            },
        })),
    }
}

/// An optional argument.
pub fn prompt_arg_opt<T: DeserializeOwned>(
    prompt: &'static str,
    args: &PromptArguments,
    name: &'static str,
) -> Result<Option<T>, PromptError> {
    let Some(text) = args.get(name) else { return Ok(None) };
    serde_json::from_value(Value::String(text.to_owned())).map(Some).map_err(|e| {
        PromptError::Arguments(PromptArgumentError {
            prompt: prompt.to_owned(),
            problem: ArgumentProblem::Invalid {
                name: name.to_owned(),
                path: String::new(),
                message: e.to_string(),
            },
        })
    })
}

/// The result of a prompt's return value.
pub fn prompt_return<R: PromptReturn>(prompt: &'static str, r: R) -> Result<GetPromptResult, PromptError> {
    r.into_prompt_result(prompt)
}

/// `Sync`: a `fn(CompletionRequest) -> impl IntoCompletion`.
pub struct SyncCompleter;
/// `Async`: an `async fn(CompletionRequest) -> impl IntoCompletion`.
pub struct AsyncCompleter;
/// Already a [`Complete`].
pub struct DirectCompleter;

/// What `complete(arg = <this>)` may name.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete a prompt argument or a template variable",
    label = "expected a fn taking a `CompletionRequest`, sync or async, returning a `Completion` or a `Vec<String>`, or a `Complete` value",
    note = "e.g. `fn complete_language(request: toolwire::complete::CompletionRequest) -> Vec<String>`"
)]
pub trait IntoCompleter<M> {
    fn into_completer(self) -> Arc<dyn Complete>;
}

impl<F, R> IntoCompleter<SyncCompleter> for F
where
    F: Fn(CompletionRequest) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    fn into_completer(self) -> Arc<dyn Complete> {
        Arc::new(from_fn(self))
    }
}

impl<F, Fut> IntoCompleter<AsyncCompleter> for F
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoCompletion,
{
    fn into_completer(self) -> Arc<dyn Complete> {
        Arc::new(from_async_fn(self))
    }
}

impl<C: Complete> IntoCompleter<DirectCompleter> for C {
    fn into_completer(self) -> Arc<dyn Complete> {
        Arc::new(self)
    }
}

/// The attribute's `complete(arg = c)`, as an object.
pub fn completer<M, C: IntoCompleter<M>>(c: C) -> Arc<dyn Complete> {
    c.into_completer()
}

/// `prompts![a, b]`.
pub fn prompt_registry<const N: usize>(
    prompts: [Arc<dyn Prompt>; N],
) -> Result<PromptRegistry, PromptRegistryError> {
    PromptRegistry::from_prompts(prompts)
}

/// A prompt as the object a registry holds.
pub fn shared_prompt<P: Prompt>(p: P) -> Arc<dyn Prompt> {
    Arc::new(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_and_enum_schemas_give_their_values() {
        assert_eq!(string_values(&json!({"type": "string"})), Ok(None));
        assert_eq!(
            string_values(&json!({"type": "string", "enum": ["a", "b"]})),
            Ok(Some(vec!["a".into(), "b".into()]))
        );
        assert_eq!(
            string_values(
                &json!({"oneOf": [{"type": "string", "const": "a", "description": "A."}, {"type": "string", "enum": ["b"]}]})
            ),
            Ok(Some(vec!["a".into(), "b".into()]))
        );
        assert_eq!(string_values(&json!({"type": "integer"})), Err("described as a JSON integer".into()));
    }

    #[test]
    fn a_non_string_argument_makes_the_prompt_unservable() {
        let info = PromptBuilder::new("p", " Doc. ").argument::<u32>("n", "", true).build();
        assert_eq!(info.description.as_deref(), Some("Doc."));
        assert_eq!(
            info.problem.as_deref(),
            Some(
                "argument 'n' must be a String, an Option<String> or an enum of strings; its type `uint32` is described as a JSON integer"
            )
        );
    }
}
