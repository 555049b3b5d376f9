//! The client's view of what a server sent: [`ServerInfo`], [`ListedTool`] with its
//! [`ToolHints`], [`CallResult`] and [`ResourceInfo`], read from the protocol layer's
//! [`wire`](crate::protocol::wire) types; and `Cached`, a list with its age.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::protocol::wire;
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
    /// Its `inputSchema`, as sent (`Value::Null` when it sent none).
    pub input_schema: Value,
    /// Its `outputSchema`, if any.
    pub output_schema: Option<Value>,
    /// Its annotations.
    pub hints: ToolHints,
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
pub struct ResourceInfo {
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

/// A cached list and when (and under which `list_changed` generation) it was fetched.
pub(crate) struct Cached<T> {
    at: Instant,
    generation: u64,
    pub(crate) value: T,
}

impl<T: Clone> Cached<T> {
    pub(crate) fn new(value: T, generation: u64) -> Self {
        Cached { at: Instant::now(), generation, value }
    }

    pub(crate) fn fresh(&self, ttl: Duration, generation: u64) -> Option<T> {
        (self.generation == generation && self.at.elapsed() < ttl).then(|| self.value.clone())
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
        }
    }
}

impl ResourceInfo {
    /// The client's view of a listed resource.
    pub(crate) fn from_wire(r: wire::Resource) -> Self {
        ResourceInfo {
            uri: r.uri,
            name: r.name,
            title: r.title,
            description: r.description,
            mime_type: r.mime_type,
        }
    }
}
