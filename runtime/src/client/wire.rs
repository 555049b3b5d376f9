//! The client's view of what a server sent: [`ServerInfo`], [`ListedTool`] with its
//! [`ToolHints`], [`CallResult`], [`ListedResource`], [`ListedResourceTemplate`] and
//! [`ResourceContent`], read from the protocol layer's
//! [`wire`](crate::protocol::wire) types; and `Cached`, a list with its age.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::protocol::wire::{self, Icon};
use crate::tool::Content;

/// What the server said about itself when the connection was made. Display-only: the
/// server's words, never trusted for a decision.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerInfo {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// `serverInfo.name`, self-reported.
    pub name: Option<String>,
    /// `serverInfo.version`, self-reported.
    pub version: Option<String>,
    /// The server's instructions for a model (untrusted text).
    pub instructions: Option<String>,
    /// The server's capabilities object.
    pub capabilities: Value,
}

/// The hints a server attaches to a tool (`annotations`), as given: absent stays `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolHints {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

/// One tool as the server lists it: untrusted, unvalidated. Every entry of the server's
/// list is one, even one without a name (`""`) or an `inputSchema` (`Value::Null`), so
/// that adoption can say why it was refused.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ListedTool {
    /// The server's name for the tool (`""` when it gave none).
    pub name: String,
    /// Its title, if any.
    pub title: Option<String>,
    /// Its description (server text).
    pub description: String,
    /// Its `inputSchema`, as sent, every member kept (`$schema`, `$defs`, `$anchor`,
    /// `additionalProperties`, `allOf`, `if`, keywords no dialect knows); `Value::Null` when
    /// it sent none.
    pub input_schema: Value,
    /// Its `outputSchema`, if any, as sent, every member kept.
    pub output_schema: Option<Value>,
    /// Its annotations.
    pub hints: ToolHints,
    /// Its icons, as sent (an entry without a `src` is skipped). Untrusted: the server
    /// chose the URLs.
    pub icons: Vec<Icon>,
    /// Its `_meta`, as sent, every member (the server's own keys and any reserved ones);
    /// `None` when it sent none, or something that is not an object.
    pub meta: Option<Map<String, Value>>,
}

/// A `tools/call` result as the server sent it: untrusted. [`RemoteTool`](super::RemoteTool)
/// normalises and seals it; use this directly only for your own code.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct CallResult {
    /// The content blocks. A block of a type this crate does not know is kept as text
    /// `[<type> content omitted]`.
    pub content: Vec<Content>,
    /// `structuredContent`, if any.
    pub structured: Option<Value>,
    /// `isError`.
    pub is_error: bool,
}

/// One resource as the server lists it (untrusted text).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedResource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its title, if any.
    pub title: Option<String>,
    /// Its description, if any.
    pub description: Option<String>,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
}

impl CallResult {
    /// A result of `content`, with `structuredContent` `structured`, an error when
    /// `is_error` (for tests and your own servers' fakes).
    pub fn new(content: Vec<Content>, structured: Option<Value>, is_error: bool) -> Self {
        CallResult { content, structured, is_error }
    }

    /// The text blocks, joined with newlines (`""` when there are none). The server's words,
    /// unsealed: before a model reads them, seal them
    /// ([`untrusted::envelope`](super::untrusted::envelope)).
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}

impl ToolHints {
    /// No hints: every member absent, as a server that sends no `annotations`.
    pub fn new() -> Self {
        ToolHints::default()
    }

    /// `readOnlyHint`.
    pub fn read_only(mut self, yes: bool) -> Self {
        self.read_only = Some(yes);
        self
    }

    /// `destructiveHint`.
    pub fn destructive(mut self, yes: bool) -> Self {
        self.destructive = Some(yes);
        self
    }

    /// `idempotentHint`.
    pub fn idempotent(mut self, yes: bool) -> Self {
        self.idempotent = Some(yes);
        self
    }

    /// `openWorldHint`.
    pub fn open_world(mut self, yes: bool) -> Self {
        self.open_world = Some(yes);
        self
    }
}

/// One resource template as the server lists it (untrusted text).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedResourceTemplate {
    /// Its RFC 6570 URI template, e.g. `db://tables/{table}`.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// Its title, if any.
    pub title: Option<String>,
    /// Its description, if any.
    pub description: Option<String>,
    /// The MIME type of what it expands to, if known.
    pub mime_type: Option<String>,
}

/// One item of a `resources/read` result, as the server sent it (untrusted): text or a
/// base64 blob, each with its URI and MIME type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceContent {
    /// Text contents.
    Text {
        /// The URI these contents are of.
        uri: String,
        /// Their MIME type, if the server gave one.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents, base64-encoded as sent.
    Blob {
        /// The URI these contents are of.
        uri: String,
        /// Their MIME type, if the server gave one.
        mime_type: Option<String>,
        /// The bytes, base64-encoded.
        base64: String,
    },
}

impl ResourceContent {
    /// The URI these contents are of.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContent::Text { uri, .. } | ResourceContent::Blob { uri, .. } => uri,
        }
    }

    /// Their MIME type, if the server gave one.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceContent::Text { mime_type, .. } | ResourceContent::Blob { mime_type, .. } => {
                mime_type.as_deref()
            }
        }
    }

    /// The text, for a text item.
    pub fn text(&self) -> Option<&str> {
        match self {
            ResourceContent::Text { text, .. } => Some(text),
            ResourceContent::Blob { .. } => None,
        }
    }

    /// The base64 of the bytes, for a blob item.
    pub fn blob_base64(&self) -> Option<&str> {
        match self {
            ResourceContent::Blob { base64, .. } => Some(base64),
            ResourceContent::Text { .. } => None,
        }
    }

    /// An item of the wire's `contents`; one with neither `text` nor `blob` reads as empty
    /// text.
    pub(crate) fn from_wire(c: wire::ResourceContents) -> Self {
        match (c.text, c.blob) {
            (None, Some(base64)) => ResourceContent::Blob { uri: c.uri, mime_type: c.mime_type, base64 },
            (text, _) => {
                ResourceContent::Text { uri: c.uri, mime_type: c.mime_type, text: text.unwrap_or_default() }
            }
        }
    }
}

impl ListedResourceTemplate {
    /// The client's view of a listed template.
    pub(crate) fn from_wire(t: wire::ResourceTemplate) -> Self {
        ListedResourceTemplate {
            uri_template: t.uri_template,
            name: t.name,
            title: t.title,
            description: t.description,
            mime_type: t.mime_type,
        }
    }
}

/// A cached list: when it was fetched, under which `list_changed` generation, and how long
/// it stays fresh (the server's `ttlMs`, else the client's own TTL).
pub(crate) struct Cached<T> {
    at: Instant,
    generation: u64,
    ttl: Duration,
    pub(crate) value: T,
}

impl<T: Clone> Cached<T> {
    pub(crate) fn new(value: T, generation: u64, ttl: Duration) -> Self {
        Cached { at: Instant::now(), generation, ttl, value }
    }

    pub(crate) fn fresh(&self, generation: u64) -> Option<T> {
        (self.generation == generation && self.at.elapsed() < self.ttl).then(|| self.value.clone())
    }
}

impl ListedTool {
    /// A tool named `name` with the input schema `input_schema` and nothing else (for
    /// tests and your own adoption logic).
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        ListedTool {
            name: name.into(),
            title: None,
            description: String::new(),
            input_schema,
            output_schema: None,
            hints: ToolHints::default(),
            icons: Vec::new(),
            meta: None,
        }
    }

    /// One entry of a `tools/list` page, read leniently: a missing or non-string `name`
    /// reads as `""`, a missing `inputSchema` as `Value::Null`, an entry that is not an
    /// object as both.
    pub(crate) fn from_listing(entry: Value) -> Self {
        let mut entry = match entry {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        if !entry.get("name").is_some_and(Value::is_string) {
            entry.insert("name".into(), Value::String(String::new()));
        }
        entry.entry("inputSchema").or_insert(Value::Null);
        match serde_json::from_value::<wire::Tool>(Value::Object(entry)) {
            Ok(tool) => ListedTool::from_wire(tool),
            Err(_) => ListedTool::new("", Value::Null),
        }
    }

    /// The client's view of a listed tool.
    pub(crate) fn from_wire(t: wire::Tool) -> Self {
        let a = t.annotations.unwrap_or_default();
        ListedTool {
            name: t.name,
            title: t.title,
            description: t.description.unwrap_or_default(),
            input_schema: t.input_schema,
            output_schema: t.output_schema,
            hints: ToolHints {
                read_only: a.read_only_hint,
                destructive: a.destructive_hint,
                idempotent: a.idempotent_hint,
                open_world: a.open_world_hint,
            },
            icons: t.icons,
            meta: t.meta,
        }
    }
}

impl ListedResource {
    /// The client's view of a listed resource.
    pub(crate) fn from_wire(r: wire::Resource) -> Self {
        ListedResource {
            uri: r.uri,
            name: r.name,
            title: r.title,
            description: r.description,
            mime_type: r.mime_type,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{CallResult, ListedTool};

    #[test]
    fn a_listed_tool_keeps_every_member_of_both_schemas() {
        let input = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"a": {"$anchor": "a", "type": "string", "x-unit": "cm"}},
            "properties": {"a": {"$ref": "#/$defs/a"}, "b": {"$ref": "#a"}},
            "allOf": [{"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}],
            "if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {},
            "additionalProperties": {"type": "integer"},
            "x-vendor": [1, {"deep": null}]
        });
        let output = json!({"type": "object", "$defs": {"x": true}, "unevaluatedProperties": false});
        let listed = ListedTool::from_listing(
            json!({"name": "t", "inputSchema": input, "outputSchema": output, "x-extra": 1}),
        );
        assert_eq!(listed.input_schema, input);
        assert_eq!(listed.output_schema, Some(output));
    }

    #[test]
    fn a_listed_tool_keeps_its_icons_and_meta() {
        let listed = ListedTool::from_listing(json!({
            "name": "t", "inputSchema": {"type": "object"},
            "icons": [{"src": "https://x/i.png", "sizes": ["48x48"], "theme": "dark"}, {"sizes": []}],
            "_meta": {"com.example/owner": "team", "io.modelcontextprotocol/ui": {"a": 1}}
        }));
        assert_eq!(listed.icons.len(), 1);
        assert_eq!(listed.icons[0].src, "https://x/i.png");
        assert_eq!(listed.icons[0].sizes, ["48x48"]);
        let meta = listed.meta.unwrap();
        assert_eq!(meta["com.example/owner"], "team");
        assert_eq!(meta["io.modelcontextprotocol/ui"], json!({"a": 1}));
        let listed =
            ListedTool::from_listing(json!({"name": "t", "inputSchema": {}, "_meta": 3, "icons": 1}));
        assert_eq!((listed.icons.len(), listed.meta), (0, None));
    }

    #[test]
    fn a_call_results_text_is_its_text_blocks_joined() {
        use crate::tool::Content;
        let image = Content::Image { data: "AA==".into(), mime_type: "image/png".into() };
        let r = CallResult::new(
            vec![Content::text("a"), image, Content::text(""), Content::text("b")],
            None,
            false,
        );
        assert_eq!(r.text(), "a\n\nb");
        assert_eq!(CallResult::default().text(), "");
    }
}
