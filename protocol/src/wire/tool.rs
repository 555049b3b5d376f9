//! A listed tool, its annotations, a `tools/call` result, and a peer's `Implementation`.

use serde::Serialize;
use serde_json::Value;

use super::{ContentBlock, Icon, JsonObject};
#[cfg(feature = "client")]
use super::{lenient, lenient_or_default, present, valid_items};

/// One tool as `tools/list` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// Its display title.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its input schema, as sent.
    pub input_schema: Value,
    /// Its output schema, as sent (`Some(null)` when the member is `null`).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Its annotations (`None` when absent or not an object).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
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

impl Tool {
    /// A tool with a name and an input schema, nothing else.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: Vec::new(),
            meta: None,
        }
    }
}

/// A tool's `annotations`: hints, each absent unless given as a boolean.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// `title`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `readOnlyHint`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// `destructiveHint`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// `idempotentHint`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// No hints.
    pub fn new() -> Self {
        ToolAnnotations::default()
    }
}

/// A `tools/call` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// The 2026-07-28 `resultType` (`complete`, or an interim kind); absent before it.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// The content blocks (a missing `content` is none; one that is not an array fails).
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// `structuredContent` (`null` reads as absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `isError` (false unless given as `true`).
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub is_error: bool,
    /// `_meta`.
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A complete result with these blocks.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        CallToolResult { content, ..CallToolResult::default() }
    }
}

/// A peer's `Implementation` (`serverInfo`, `clientInfo`) as it is read: self-reported and
/// display-only, every member optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct ImplementationInfo {
    /// `name`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `title`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `version`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl ImplementationInfo {
    /// A name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ImplementationInfo { name: Some(name.into()), title: None, version: Some(version.into()) }
    }
}

// Reading these is the client's (their `Deserialize` is derived with the feature).
#[cfg(all(test, feature = "client"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_read_leniently_but_need_a_name_and_a_schema() {
        let t: Tool = serde_json::from_value(json!({
            "name": "t", "inputSchema": {"type": "object"}, "title": 5, "description": "d",
            "outputSchema": null, "annotations": {"readOnlyHint": true, "openWorldHint": "no"}
        }))
        .unwrap();
        assert_eq!(t.title, None);
        assert_eq!(t.description.as_deref(), Some("d"));
        assert_eq!(t.output_schema, Some(Value::Null));
        let a = t.annotations.unwrap();
        assert_eq!((a.read_only_hint, a.open_world_hint), (Some(true), None));
        assert!(serde_json::from_value::<Tool>(json!({"name": "t"})).is_err());
        assert!(serde_json::from_value::<Tool>(json!({"name": 1, "inputSchema": {}})).is_err());
        let t: Tool =
            serde_json::from_value(json!({"name": "t", "inputSchema": {}, "annotations": 3})).unwrap();
        assert_eq!(t.annotations, None);
    }

    #[test]
    fn call_results_default_and_round_trip() {
        let r: CallToolResult =
            serde_json::from_value(json!({"isError": "yes", "structuredContent": null})).unwrap();
        assert_eq!(r, CallToolResult::default());
        assert!(serde_json::from_value::<CallToolResult>(json!({"content": {}})).is_err());
        let r = CallToolResult::new(vec![ContentBlock::text("hi")]);
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(text, r#"{"content":[{"type":"text","text":"hi"}],"isError":false}"#);
        assert_eq!(serde_json::from_str::<CallToolResult>(&text).unwrap(), r);
    }
}
