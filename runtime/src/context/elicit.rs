//! Asking the user a question in the middle of a call: [`Context::elicit`] (a form, from a
//! Rust type) and [`Context::elicit_url`] (a page to visit), as `elicitation/create`.
//!
//! A form is a flat object: every field a string, number, integer, boolean, an enum of
//! strings, or an array of such enums (a multi-select). The requested schema is made from
//! `T`'s `JsonSchema` with every reference inlined and `Option` fields left out of
//! `required`; a field that is itself an object (a nested struct, a map) is refused before
//! anything is sent, with [`AskError::NotAForm`] naming it. The schema is made once per
//! type and kept for the life of the process (so `T` is `'static`): a second ask for the
//! same type costs a map look-up, not a schemars run.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::protocol::methods;
use crate::schema_gen::{SchemaGen, resolve_in};
use crate::sync::{read_lock, write_lock};

use super::Context;
use super::error::AskError;

/// The answer to `elicitation/create`.
#[derive(Deserialize)]
struct Answer {
    action: String,
    #[serde(default)]
    content: Option<Value>,
}

impl Context {
    /// Ask the user to fill in a form for `T`, showing `message`; returns what they entered.
    ///
    /// `T` must be a flat object (see the module docs): a nested `T` is
    /// [`AskError::NotAForm`] and nothing is sent. The user's decline and dismissal are
    /// [`AskError::Declined`] and [`AskError::Cancelled`]; an answer that does not
    /// deserialise as `T` is [`AskError::BadAnswer`]. A client without the `elicitation`
    /// capability is [`AskError::NotDeclared`], and nothing is sent.
    ///
    /// ```no_run
    /// use toolwire::Context;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Contact {
    ///     /// Your name.
    ///     name: String,
    ///     /// Your age, if you want to say.
    ///     age: Option<u32>,
    /// }
    ///
    /// async fn body(ctx: &Context) -> Result<String, toolwire::context::AskError> {
    ///     let c: Contact = ctx.elicit("Who should we contact?").await?;
    ///     Ok(format!("will contact {}", c.name))
    /// }
    /// ```
    pub async fn elicit<T: JsonSchema + DeserializeOwned + 'static>(
        &self,
        message: &str,
    ) -> Result<T, AskError> {
        self.elicit_keyed(None, message).await
    }

    /// [`elicit`](Self::elicit) under `key`: in a 2026-07-28 call, the key of this ask in
    /// the `input_required` result's `inputRequests` (instead of `ask-1`, `ask-2`, … in
    /// asking order; see [the module docs](super#talking-back-in-both-eras)). A legacy
    /// session ignores it. Keys must be unique within the call.
    pub async fn elicit_as<T: JsonSchema + DeserializeOwned + 'static>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<T, AskError> {
        self.elicit_keyed(Some(key), message).await
    }

    async fn elicit_keyed<T: JsonSchema + DeserializeOwned + 'static>(
        &self,
        key: Option<&str>,
        message: &str,
    ) -> Result<T, AskError> {
        let schema = cached_form_schema::<T>()?;
        let talk = self.talkback(methods::ELICITATION_CREATE)?;
        if !talk.capabilities().elicitation_form {
            return Err(AskError::NotDeclared {
                capability: "elicitation",
                what: methods::ELICITATION_CREATE,
            });
        }
        // `mode` is left out: form is the default, and clients before 2025-11-25 know no modes.
        let answer = self.ask(talk, key, methods::ELICITATION_CREATE, form_params(message, &schema)).await?;
        match answer_of(&answer, message)? {
            Some(content) => serde_json::from_value::<T>(content).map_err(|e| AskError::BadAnswer {
                what: methods::ELICITATION_CREATE,
                reason: e.to_string(),
            }),
            None => Err(AskError::BadAnswer {
                what: methods::ELICITATION_CREATE,
                reason: "it accepted without `content`".to_owned(),
            }),
        }
    }

    /// [`elicit`](Self::elicit) with a `requestedSchema` written by hand (for what no Rust
    /// type derives: titled enums, defaults), answered as the JSON object the user entered.
    /// The schema is checked as a derived one is (a flat object), and sent as given.
    pub async fn elicit_with_schema(
        &self,
        message: &str,
        requested_schema: Value,
    ) -> Result<Map<String, Value>, AskError> {
        self.elicit_with_schema_keyed(None, message, requested_schema).await
    }

    /// [`elicit_with_schema`](Self::elicit_with_schema) under `key` (see
    /// [`elicit_as`](Self::elicit_as)).
    pub async fn elicit_with_schema_as(
        &self,
        key: &str,
        message: &str,
        requested_schema: Value,
    ) -> Result<Map<String, Value>, AskError> {
        self.elicit_with_schema_keyed(Some(key), message, requested_schema).await
    }

    async fn elicit_with_schema_keyed(
        &self,
        key: Option<&str>,
        message: &str,
        requested_schema: Value,
    ) -> Result<Map<String, Value>, AskError> {
        check_form(&requested_schema)?;
        let talk = self.talkback(methods::ELICITATION_CREATE)?;
        if !talk.capabilities().elicitation_form {
            return Err(AskError::NotDeclared {
                capability: "elicitation",
                what: methods::ELICITATION_CREATE,
            });
        }
        let params = serde_json::json!({ "message": message, "requestedSchema": requested_schema });
        let answer = self.ask(talk, key, methods::ELICITATION_CREATE, params.to_string()).await?;
        match answer_of(&answer, message)? {
            Some(Value::Object(content)) => Ok(content),
            Some(other) => Err(AskError::BadAnswer {
                what: methods::ELICITATION_CREATE,
                reason: format!("`content` is not an object: {other}"),
            }),
            None => Ok(Map::new()),
        }
    }

    /// Ask the user to visit `url` (to sign in, to pay, to enter what must not pass
    /// through the client), showing `message`. `Ok(())` once they accepted; the
    /// interaction itself happens out of band. Needs the client's `elicitation.url`
    /// capability (2025-11-25).
    pub async fn elicit_url(&self, message: &str, url: &str) -> Result<(), AskError> {
        self.elicit_url_keyed(None, message, url).await
    }

    /// [`elicit_url`](Self::elicit_url) under `key` (see [`elicit_as`](Self::elicit_as)).
    pub async fn elicit_url_as(&self, key: &str, message: &str, url: &str) -> Result<(), AskError> {
        self.elicit_url_keyed(Some(key), message, url).await
    }

    async fn elicit_url_keyed(&self, key: Option<&str>, message: &str, url: &str) -> Result<(), AskError> {
        let talk = self.talkback(methods::ELICITATION_CREATE)?;
        if !talk.capabilities().elicitation_url {
            return Err(AskError::NotDeclared {
                capability: "elicitation.url",
                what: methods::ELICITATION_CREATE,
            });
        }
        let id = elicitation_id();
        let params =
            serde_json::json!({ "mode": "url", "message": message, "url": url, "elicitationId": id });
        let answer = self.ask(talk, key, methods::ELICITATION_CREATE, params.to_string()).await?;
        answer_of(&answer, message).map(|_| ())
    }
}

/// The content of an accepted answer (`None` when it had none); decline and cancel as errors.
fn answer_of(raw: &serde_json::value::RawValue, message: &str) -> Result<Option<Value>, AskError> {
    let answer: Answer = serde_json::from_str(raw.get()).map_err(|e| AskError::BadAnswer {
        what: methods::ELICITATION_CREATE,
        reason: super::trim_serde(e),
    })?;
    match answer.action.as_str() {
        "accept" => Ok(answer.content),
        "decline" => Err(AskError::Declined { message: message.to_owned() }),
        "cancel" => Err(AskError::Cancelled { message: message.to_owned() }),
        other => Err(AskError::BadAnswer {
            what: methods::ELICITATION_CREATE,
            reason: format!("unknown action {other:?} (expected \"accept\", \"decline\" or \"cancel\")"),
        }),
    }
}

/// A fresh id for a URL elicitation: unique within the process, unguessable enough to
/// tell one from another.
fn elicitation_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("toolwire-{:x}-{}", nanos, NEXT.fetch_add(1, Ordering::Relaxed))
}

/// `elicitation/create`'s params for a form: `message` and the serialised `requestedSchema`.
fn form_params(message: &str, schema: &str) -> String {
    let message = serde_json::to_string(message).unwrap_or_else(|_| "\"\"".to_owned());
    let mut params = String::with_capacity(message.len() + schema.len() + 32);
    params.push_str("{\"message\":");
    params.push_str(&message);
    params.push_str(",\"requestedSchema\":");
    params.push_str(schema);
    params.push('}');
    params
}

/// Each form type's schema, serialised (or why it is not a form), made on the first ask.
type FormCache = RwLock<HashMap<TypeId, Result<Arc<str>, AskError>>>;

/// [`form_schema`] for `T`, serialised, made once per type.
fn cached_form_schema<T: JsonSchema + 'static>() -> Result<Arc<str>, AskError> {
    static CACHE: OnceLock<FormCache> = OnceLock::new();
    let cache = CACHE.get_or_init(FormCache::default);
    let id = TypeId::of::<T>();
    if let Some(found) = read_lock(cache).get(&id) {
        return found.clone();
    }
    let made = form_schema::<T>().map(|schema| Arc::<str>::from(schema.to_string()));
    write_lock(cache).entry(id).or_insert(made).clone()
}

/// The `requestedSchema` for `T`: a flat object with every reference inlined, or why `T`
/// cannot be a form.
pub(crate) fn form_schema<T: JsonSchema>() -> Result<Value, AskError> {
    let type_name = std::any::type_name::<T>();
    let not_a_form = |reason: String| AskError::NotAForm { type_name, reason };
    let mut generator = SchemaGen::new();
    let root = generator.root::<T>();
    let mut defs = generator.take_defs();
    if let Some(Value::Object(inline)) = root.get("$defs") {
        defs.extend(inline.clone());
    }
    let root = resolve_in(&defs, &root);
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(not_a_form("it is not a struct with named fields".to_owned()));
    }
    let mut properties = Map::new();
    if let Some(Value::Object(props)) = root.get("properties") {
        for (name, schema) in props {
            let field =
                flat_field(&defs, schema).map_err(|why| not_a_form(format!("field `{name}` {why}")))?;
            properties.insert(name.clone(), field);
        }
    }
    let required = root.get("required").cloned().unwrap_or_else(|| Value::Array(Vec::new()));
    Ok(serde_json::json!({ "type": "object", "properties": properties, "required": required }))
}

/// A hand-written `requestedSchema`, checked to be a flat object.
fn check_form(schema: &Value) -> Result<(), AskError> {
    let not_a_form = |reason: String| AskError::NotAForm { type_name: "requestedSchema", reason };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(not_a_form("its `type` is not \"object\"".to_owned()));
    }
    let none = Map::new();
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (name, field) in props {
            flat_field(&none, field).map_err(|why| not_a_form(format!("field `{name}` {why}")))?;
        }
    }
    Ok(())
}

/// One field, inlined and checked: a primitive, an enum of strings, or an array of them.
fn flat_field(defs: &Map<String, Value>, schema: &Value) -> Result<Value, String> {
    let mut field = resolve_in(defs, schema).clone();
    // `Option<X>`: schemars writes `type: [X, "null"]`, or `anyOf: [X, {type: null}]`.
    if let Some(any) = field.get("anyOf").and_then(Value::as_array).cloned() {
        let rest: Vec<&Value> = any.iter().filter(|s| s.get("type") != Some(&Value::from("null"))).collect();
        if let [one] = rest[..] {
            let mut inner = resolve_in(defs, one).clone();
            if let (Value::Object(inner), Value::Object(outer)) = (&mut inner, &field) {
                for key in ["description", "title", "default"] {
                    if let Some(v) = outer.get(key) {
                        inner.entry(key).or_insert(v.clone());
                    }
                }
            }
            field = inner;
        }
    }
    let Value::Object(map) = &mut field else { return Err("has no schema".to_owned()) };
    if let Some(Value::Array(types)) = map.get("type") {
        let types: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [one] = &types[..] {
            map.insert("type".to_owned(), one.clone());
        }
    }
    map.remove("$schema");
    match map.get("type").and_then(Value::as_str) {
        Some("number" | "integer") => {
            // schemars' `format: "uint32"` is no elicitation format; the bounds say it.
            map.remove("format");
            Ok(field)
        }
        Some("string" | "boolean") => Ok(field),
        Some("array") => {
            let items = map.get("items").map(|i| resolve_in(defs, i).clone());
            match items {
                Some(items) if items.get("enum").is_some() || items.get("anyOf").is_some() => {
                    map.insert("items".to_owned(), items);
                    Ok(field)
                }
                _ => Err("is an array of something other than an enum of strings".to_owned()),
            }
        }
        Some("object") => Err("is an object (a nested struct or a map)".to_owned()),
        Some(other) => Err(format!("has type `{other}`")),
        None if map.contains_key("oneOf") || map.contains_key("enum") => Ok(field),
        None => Err("has no single type (an untagged enum or a union)".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(dead_code)]
    #[derive(JsonSchema, Deserialize)]
    enum Colour {
        Red,
        Green,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema, Deserialize)]
    struct Flat {
        /// The name.
        name: String,
        age: Option<u32>,
        colour: Colour,
        ok: bool,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema, Deserialize)]
    struct Nested {
        name: String,
        home: Flat,
    }

    #[test]
    fn a_flat_struct_is_a_form_with_references_inlined_and_options_optional() {
        let schema = form_schema::<Flat>().unwrap();
        assert_eq!(
            schema,
            serde_json::json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The name."},
                    "age": {"type": "integer", "minimum": 0, "maximum": 4294967295u64},
                    "colour": {"type": "string", "enum": ["Red", "Green"]},
                    "ok": {"type": "boolean"}
                },
                "required": ["name", "colour", "ok"]
            })
        );
    }

    #[test]
    fn a_nested_struct_is_refused_naming_the_field() {
        let err = form_schema::<Nested>().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot elicit `{}`: field `home` is an object (a nested struct or a map); an elicitation form is a flat object of strings, numbers, integers, booleans and enums",
                std::any::type_name::<Nested>()
            )
        );
        assert!(matches!(form_schema::<String>(), Err(AskError::NotAForm { .. })));
    }

    #[test]
    fn a_form_schema_is_made_once_per_type_and_sent_as_made() {
        let first = cached_form_schema::<Flat>().unwrap();
        let again = cached_form_schema::<Flat>().unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the second ask rebuilt the schema");
        let made: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(made, form_schema::<Flat>().unwrap());
        assert_eq!(
            cached_form_schema::<Nested>().unwrap_err(),
            form_schema::<Nested>().unwrap_err(),
            "a refusal is kept too, with its text"
        );
        let params: Value = serde_json::from_str(&form_params("say \"hi\"\n", &first)).unwrap();
        assert_eq!(params, serde_json::json!({ "message": "say \"hi\"\n", "requestedSchema": made }));
    }

    #[test]
    fn answers_read_as_accept_decline_cancel_or_bad() {
        let raw = |s: &str| serde_json::value::RawValue::from_string(s.to_owned()).unwrap();
        assert_eq!(
            answer_of(&raw(r#"{"action":"accept","content":{"a":1}}"#), "q").unwrap(),
            Some(serde_json::json!({"a":1}))
        );
        assert_eq!(
            answer_of(&raw(r#"{"action":"decline"}"#), "q").unwrap_err().to_string(),
            "the user declined to answer: q"
        );
        assert_eq!(
            answer_of(&raw(r#"{"action":"cancel"}"#), "q").unwrap_err().to_string(),
            "the user dismissed the question without answering: q"
        );
        assert_eq!(
            answer_of(&raw(r#"{"action":"maybe"}"#), "q").unwrap_err().to_string(),
            "the client's answer to elicitation/create does not match what was asked: unknown action \"maybe\" (expected \"accept\", \"decline\" or \"cancel\")"
        );
    }
}
