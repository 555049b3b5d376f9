//! `completion/complete`: its params ([`CompleteParams`]) and result ([`CompleteResult`]),
//! as the client writes and reads them and the server reads and writes them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[cfg(feature = "client")]
use super::{lenient, lenient_or_default, valid_items};

/// What is being completed: `ref/prompt` (a prompt, by name) or `ref/resource` (a resource
/// template, by its URI template).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionReference {
    /// A prompt's argument.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
    },
    /// A resource template's variable.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The template's URI template.
        uri: String,
    },
}

/// The argument being completed and what has been typed so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionArgument {
    /// The argument's (or variable's) name.
    pub name: String,
    /// The partial value.
    pub value: String,
}

/// The arguments already filled in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletionContext {
    /// Argument name to value.
    #[serde(default)]
    pub arguments: BTreeMap<String, String>,
}

/// `completion/complete` params (without `_meta`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteParams {
    /// What is completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument and its partial value.
    pub argument: CompletionArgument,
    /// The other arguments, when the client sent any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

impl CompleteParams {
    /// Complete `argument` of `reference` from `value`.
    pub fn new(
        reference: CompletionReference,
        argument: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        CompleteParams {
            reference,
            argument: CompletionArgument { name: argument.into(), value: value.into() },
            context: None,
        }
    }

    /// The same params, with `name` already filled in as `value`.
    pub fn with_context(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.context
            .get_or_insert_with(CompletionContext::default)
            .arguments
            .insert(name.into(), value.into());
        self
    }
}

/// The suggestions of a [`CompleteResult`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(Deserialize))]
#[non_exhaustive]
pub struct CompletionValues {
    /// At most 100 values (the strings among them, when read).
    #[serde(default, deserialize_with = "valid_items")]
    pub values: Vec<String>,
    /// How many there are in all, when the server knows.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than were sent.
    #[serde(rename = "hasMore", default, deserialize_with = "lenient_or_default")]
    pub has_more: bool,
}

/// A `completion/complete` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(Deserialize))]
#[non_exhaustive]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: CompletionValues,
}

impl CompleteResult {
    /// A result of these values, `total` and `has_more`.
    pub fn new(values: Vec<String>, total: Option<u64>, has_more: bool) -> Self {
        CompleteResult { completion: CompletionValues { values, total, has_more } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_and_results_round_trip_in_the_spec_shape() {
        let p = CompleteParams::new(CompletionReference::Prompt { name: "review".into() }, "language", "py")
            .with_context("code", "x = 1");
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(
            v,
            json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "py"}, "context": {"arguments": {"code": "x = 1"}}})
        );
        assert_eq!(serde_json::from_value::<CompleteParams>(v).unwrap(), p);
        // Reading a result is the client's.
        #[cfg(feature = "client")]
        {
            let r: CompleteResult =
                serde_json::from_value(json!({"completion": {"values": ["a", 1, "b"], "total": "x"}}))
                    .unwrap();
            assert_eq!(r, CompleteResult::new(vec!["a".into(), "b".into()], None, false));
        }
        assert_eq!(
            serde_json::to_string(&CompleteResult::new(vec!["a".into()], Some(3), true)).unwrap(),
            r#"{"completion":{"values":["a"],"total":3,"hasMore":true}}"#
        );
    }
}
