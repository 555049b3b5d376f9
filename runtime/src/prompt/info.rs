//! [`PromptInfo`]: what a prompt says about itself, and checking a request's arguments
//! against it.
//!
//! A rejection reads as a tool's does, with the same problem text:
//!
//! ```text
//! prompt 'code_review' get rejected: missing required argument(s) ['code']. Accepted arguments: ['code', 'language']
//! prompt 'code_review' get rejected: argument 'code' must be a string, got a number
//! prompt 'code_review' get rejected: argument 'language' must be one of ['python', 'rust'], got 'cobol'
//! ```

use std::collections::BTreeMap;

use serde_json::Value;

use crate::args::{ArgumentProblem, PyList, PyStr};
use crate::protocol::wire::Icon;

/// One argument a prompt takes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptArgumentInfo {
    /// Its name.
    pub name: String,
    /// Its display title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
    /// The values it may take, for an enum argument; `None` takes any string.
    pub values: Option<Vec<String>>,
}

impl PromptArgumentInfo {
    /// An argument called `name` that takes any string.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        PromptArgumentInfo { name: name.into(), title: None, description: None, required, values: None }
    }

    /// The same argument, described.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        let d = description.into();
        self.description = (!d.is_empty()).then_some(d);
        self
    }

    /// The same argument, taking only `values`.
    pub fn with_values<I: IntoIterator<Item = S>, S: Into<String>>(mut self, values: I) -> Self {
        self.values = Some(values.into_iter().map(Into::into).collect());
        self
    }
}

/// What a prompt says about itself in `prompts/list`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptInfo {
    /// Its name, unique in a registry.
    pub name: String,
    /// Its display title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its icons.
    pub icons: Vec<Icon>,
    /// Its arguments, in declaration order.
    pub arguments: Vec<PromptArgumentInfo>,
    /// Why the prompt cannot be served, found when it was built (an argument whose type is
    /// not a string or an enum of strings); a registry refuses it.
    pub(crate) problem: Option<String>,
}

impl PromptInfo {
    /// A prompt called `name`, with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        PromptInfo {
            name: name.into(),
            title: None,
            description: None,
            icons: Vec::new(),
            arguments: Vec::new(),
            problem: None,
        }
    }

    /// The same prompt, described (an empty description is none).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        let d = description.into();
        self.description = (!d.is_empty()).then_some(d);
        self
    }

    /// The same prompt, with a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The same prompt, with an icon more.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// The same prompt, taking one argument more.
    pub fn with_argument(mut self, argument: PromptArgumentInfo) -> Self {
        self.arguments.push(argument);
        self
    }

    /// Mark the prompt unservable, for `why`.
    pub(crate) fn with_problem(mut self, why: String) -> Self {
        self.problem.get_or_insert(why);
        self
    }

    /// The argument called `name`.
    pub fn argument(&self, name: &str) -> Option<&PromptArgumentInfo> {
        self.arguments.iter().find(|a| a.name == name)
    }

    /// Every argument name, sorted (the accepted set a rejection names).
    pub fn accepted(&self) -> Vec<String> {
        let mut names: Vec<String> = self.arguments.iter().map(|a| a.name.clone()).collect();
        names.sort();
        names
    }

    /// Check a `prompts/get`'s `arguments` (absent reads as `{}`): an object, whose members
    /// are all arguments this prompt takes, each a string (and one of the values of an enum
    /// argument), with every required one present.
    pub fn check(&self, arguments: Option<&Value>) -> Result<PromptArguments, PromptArgumentError> {
        let reject = |problem| PromptArgumentError { prompt: self.name.clone(), problem };
        let empty = serde_json::Map::new();
        let map = match arguments {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(other) => return Err(reject(ArgumentProblem::NotAnObject { got: kind(other).into() })),
        };
        let unexpected: Vec<String> = map.keys().filter(|k| self.argument(k).is_none()).cloned().collect();
        let missing: Vec<String> = self
            .arguments
            .iter()
            .filter(|a| a.required && map.get(&a.name).is_none_or(Value::is_null))
            .map(|a| a.name.clone())
            .collect();
        if !unexpected.is_empty() || !missing.is_empty() {
            return Err(reject(ArgumentProblem::UnknownOrMissing {
                unexpected,
                missing,
                accepted: self.accepted(),
            }));
        }
        let mut values = BTreeMap::new();
        for arg in &self.arguments {
            let text = match map.get(&arg.name) {
                None | Some(Value::Null) => continue,
                Some(Value::String(s)) => s,
                Some(other) => {
                    return Err(reject(ArgumentProblem::WrongType {
                        name: arg.name.clone(),
                        expected: "a string".into(),
                        got: kind(other).into(),
                    }));
                }
            };
            if let Some(allowed) = &arg.values
                && !allowed.contains(text)
            {
                return Err(reject(ArgumentProblem::Invalid {
                    name: arg.name.clone(),
                    path: String::new(),
                    message: format!("must be one of {}, got {}", PyList(allowed), PyStr(text)),
                }));
            }
            values.insert(arg.name.clone(), text.clone());
        }
        Ok(PromptArguments { values })
    }
}

/// What a JSON value is, as a message names it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A `prompts/get`'s arguments were rejected before the prompt ran.
///
/// `Display` is the whole message: `prompt 'name' get rejected: <problem>`, the problem
/// worded as a tool's arguments are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("prompt {} get rejected: {problem}", PyStr(prompt))]
#[non_exhaustive]
pub struct PromptArgumentError {
    /// The prompt.
    pub prompt: String,
    /// What was wrong.
    pub problem: ArgumentProblem,
}

/// The arguments of one `prompts/get`, checked: every value is a string the prompt accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptArguments {
    values: BTreeMap<String, String>,
}

impl PromptArguments {
    /// The value of `name`, when it was given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every argument given, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for PromptArguments {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        PromptArguments { values: iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn review() -> PromptInfo {
        PromptInfo::new("code_review")
            .with_argument(PromptArgumentInfo::new("code", true))
            .with_argument(PromptArgumentInfo::new("language", false).with_values(["python", "rust"]))
    }

    fn rejected(args: Value) -> String {
        review().check(Some(&args)).unwrap_err().to_string()
    }

    #[test]
    fn rejections_read_as_a_tools_do() {
        assert_eq!(
            rejected(json!({})),
            "prompt 'code_review' get rejected: missing required argument(s) ['code']. Accepted arguments: ['code', 'language']"
        );
        assert_eq!(
            rejected(json!({"code": "x", "lang": "rust"})),
            "prompt 'code_review' get rejected: unexpected argument(s) ['lang']. Accepted arguments: ['code', 'language']"
        );
        assert_eq!(
            rejected(json!({"code": 7})),
            "prompt 'code_review' get rejected: argument 'code' must be a string, got a number"
        );
        assert_eq!(
            rejected(json!({"code": "x", "language": "cobol"})),
            "prompt 'code_review' get rejected: argument 'language' must be one of ['python', 'rust'], got 'cobol'"
        );
        assert_eq!(
            rejected(json!([1])),
            "prompt 'code_review' get rejected: arguments must be a JSON object, got an array"
        );
    }

    #[test]
    fn accepted_arguments_are_kept_and_null_is_absent() {
        let args = review().check(Some(&json!({"code": "x", "language": null}))).unwrap();
        assert_eq!(args.get("code"), Some("x"));
        assert_eq!(args.get("language"), None);
        assert!(PromptInfo::new("p").check(None).unwrap().iter().next().is_none());
    }
}
