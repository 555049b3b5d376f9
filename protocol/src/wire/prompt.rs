//! Prompts: a listed [`Prompt`] and its [`PromptArgument`]s, and what `prompts/get` returns.

use serde::Serialize;

use super::{ContentBlock, Icon, JsonObject};
#[cfg(feature = "client")]
use super::{lenient, lenient_or_default, present, resource::items_or_empty, valid_items};

/// One prompt as `prompts/list` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct Prompt {
    /// Its name.
    pub name: String,
    /// Its display title.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments (those without a name are skipped).
    #[serde(default, deserialize_with = "valid_items", skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Its icons (those without a `src` are skipped).
    #[serde(default, deserialize_with = "valid_items", skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// `_meta`.
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<JsonObject>,
}

impl Prompt {
    /// A prompt with a name and no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: Vec::new(),
            meta: None,
        }
    }
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// Its display title.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given (false unless given as `true`).
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub required: bool,
}

impl PromptArgument {
    /// An argument called `name`.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        PromptArgument { name: name.into(), title: None, description: None, required }
    }
}

/// One message of a rendered prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct PromptMessage {
    /// `user` or `assistant` (`None` when absent or not a string).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Its one content block (`None` when the member is absent).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub content: Option<ContentBlock>,
}

impl PromptMessage {
    /// A message of `role` with one block.
    pub fn new(role: impl Into<String>, content: ContentBlock) -> Self {
        PromptMessage { role: Some(role.into()), content: Some(content) }
    }

    /// A `user` message of one text block.
    pub fn user(text: impl Into<String>) -> Self {
        PromptMessage::new("user", ContentBlock::text(text))
    }

    /// An `assistant` message of one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        PromptMessage::new("assistant", ContentBlock::text(text))
    }
}

/// A `prompts/get` result. Its `messages` must be an array; each item that is not an
/// object reads as an empty message.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct GetPromptResult {
    /// The server's description.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    #[serde(deserialize_with = "items_or_empty")]
    pub messages: Vec<PromptMessage>,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult { description: None, messages }
    }

    /// The same result, with a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

// Reading these is the client's (their `Deserialize` is derived with the feature).
#[cfg(all(test, feature = "client"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_skip_nameless_arguments_and_messages_default() {
        let p: Prompt = serde_json::from_value(json!({
            "name": "p", "arguments": [{"name": "a", "required": true}, {"required": true}, {"name": "b", "required": "yes"}]
        }))
        .unwrap();
        assert_eq!(p.arguments, [PromptArgument::new("a", true), PromptArgument::new("b", false)]);
        let g: GetPromptResult = serde_json::from_value(json!({
            "messages": [{"role": "assistant", "content": {"type": "text", "text": "hi"}}, 7, {"content": null}]
        }))
        .unwrap();
        assert_eq!(g.messages[0], PromptMessage::new("assistant", ContentBlock::text("hi")));
        assert_eq!(g.messages[1], PromptMessage::default());
        assert_eq!(g.messages[2].content, Some(ContentBlock::Unknown { kind: String::new() }));
        assert!(serde_json::from_value::<GetPromptResult>(json!({})).is_err());
    }
}
