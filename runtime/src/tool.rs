//! The [`Tool`] trait every tool implements, local or remote, and the values it trades in:
//! [`ToolInfo`] (what a tool says about itself), [`ToolOutput`] (what a call returns) and
//! [`ToolError`] (why a call did not return).

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::args::ToolArgumentError;
use crate::context::Context;
use crate::schema::Schema;

/// The future a [`Tool::call`] returns: boxed so the trait stays object-safe.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

/// A tool an agent can call.
///
/// Every tool implements this one object-safe trait: the companions `#[tool]` generates, tools
/// written by hand, and (with the client) tools adopted from a remote MCP server. A registry
/// holds them as `Arc<dyn Tool>`.
///
/// `call` receives the arguments as raw JSON text, exactly as they arrived, so a tool can
/// deserialize each argument straight from the bytes. Validation is the tool's own job and
/// happens before its body runs: a `#[tool]` companion checks the arguments against the same
/// facts its advertised schema was built from, and answers a bad call with
/// [`ToolError::Arguments`].
///
/// # Writing one by hand
///
/// ```
/// use std::sync::OnceLock;
/// use serde_json::value::RawValue;
/// use toolwire::{Context, Declarations, Schema, Tool, ToolError, ToolFuture, ToolInfo, ToolOutput};
///
/// struct Clock;
///
/// impl Tool for Clock {
///     fn info(&self) -> &ToolInfo {
///         static INFO: OnceLock<ToolInfo> = OnceLock::new();
///         INFO.get_or_init(|| {
///             ToolInfo::new("clock", "Say what time it is.", Schema::empty_object())
///                 .with_declarations(Declarations::read_only())
///         })
///     }
///
///     fn call<'a>(&'a self, _args: &'a RawValue, _ctx: &'a Context) -> ToolFuture<'a> {
///         Box::pin(async { Ok(ToolOutput::text("noon")) })
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "this does not implement `toolwire::Tool`",
    note = "put `#[toolwire::tool]` on a fn and name the fn here, or implement `Tool` by hand"
)]
pub trait Tool: Send + Sync + 'static {
    /// What the tool says about itself: name, description, schemas and declarations.
    ///
    /// Built once and kept; calling this is free.
    fn info(&self) -> &ToolInfo;

    /// Run the tool on `arguments`, a JSON object as raw text.
    fn call<'a>(&'a self, arguments: &'a RawValue, ctx: &'a Context) -> ToolFuture<'a>;

    /// Call with arguments given as a `serde_json::Value`: a convenience for your own code
    /// and tests. Servers pass the raw bytes they received to [`call`](Tool::call).
    fn call_json<'a>(&'a self, arguments: Value, ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move {
            let raw = RawValue::from_string(arguments.to_string()).expect("a serialised Value is valid JSON");
            self.call(&raw, ctx).await
        })
    }

    /// The implementing type's name, for messages that must tell two tools apart (a
    /// registry refusing a duplicate name names both).
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// What a tool says about itself.
///
/// Everything here is computed once per process (for a `#[tool]`, on first use) and then
/// only read: serving a listing or a call does no schema work.
#[derive(Debug, Clone)]
pub struct ToolInfo {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Cow<'static, str>,
    input_schema: Schema,
    output_schema: Option<Schema>,
    declarations: Declarations,
}

impl ToolInfo {
    /// A tool with a name, a description and an input schema; no title, no output schema,
    /// and the default (side-effecting) declarations.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Schema,
    ) -> Self {
        ToolInfo {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            declarations: Declarations::default(),
        }
    }

    /// Set the human-readable title.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Set the output schema, the shape of `structuredContent`.
    pub fn with_output_schema(mut self, schema: Schema) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Set the declarations.
    pub fn with_declarations(mut self, declarations: Declarations) -> Self {
        self.declarations = declarations;
        self
    }

    /// The tool's name, as advertised and as called.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, if one was given.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description the model reads.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The input schema: canonical bytes plus the parsed value.
    pub fn input_schema(&self) -> &Schema {
        &self.input_schema
    }

    /// The output schema, when the tool returns structured content.
    pub fn output_schema(&self) -> Option<&Schema> {
        self.output_schema.as_ref()
    }

    /// Side effects, approval and capabilities.
    pub fn declarations(&self) -> &Declarations {
        &self.declarations
    }

    /// The MCP annotation hints the declarations imply.
    pub fn annotations(&self) -> Annotations {
        self.declarations.annotations()
    }
}

/// What a tool declares about its effects: the facts an approval gate and a run policy read.
///
/// The default is the safe side: a tool that says nothing is side-effecting, as MCP's own
/// defaults are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Declarations {
    /// The tool changes something outside itself (the default).
    pub side_effecting: bool,
    /// A human must approve each call.
    pub requires_approval: bool,
    /// Capability tags, sorted and unique, e.g. `"egress"`, `"private_data"`.
    pub caps: Vec<String>,
    /// Calling again with the same arguments has no further effect.
    #[serde(skip)]
    pub idempotent: bool,
    /// The tool reaches an open world (the web, other people) rather than a closed one.
    #[serde(skip)]
    pub open_world: bool,
}

impl Default for Declarations {
    fn default() -> Self {
        Declarations {
            side_effecting: true,
            requires_approval: false,
            caps: Vec::new(),
            idempotent: false,
            open_world: false,
        }
    }
}

impl Declarations {
    /// A tool that only reads: not side-effecting, no approval, no caps.
    pub fn read_only() -> Self {
        Declarations { side_effecting: false, ..Declarations::default() }
    }

    /// Set the capability tags; they are kept sorted and unique.
    pub fn with_caps<I, S>(mut self, caps: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut caps: Vec<String> = caps.into_iter().map(Into::into).collect();
        caps.sort();
        caps.dedup();
        self.caps = caps;
        self
    }

    /// The MCP annotation hints these declarations imply.
    ///
    /// `readOnlyHint` is `!(side_effecting || requires_approval)`, not just `!side_effecting`:
    /// the hint is what a client consults to run a tool without asking, so a read-only tool
    /// that still requires approval must not advertise itself as free.
    pub fn annotations(&self) -> Annotations {
        let read_only = !(self.side_effecting || self.requires_approval);
        Annotations {
            read_only_hint: read_only,
            destructive_hint: self.side_effecting && !self.idempotent,
            idempotent_hint: self.idempotent || !self.side_effecting,
            open_world_hint: self.open_world,
        }
    }
}

/// MCP `ToolAnnotations`: hints a client may not trust. The exact declarations travel
/// beside them in `_meta` (see [`META_KEY`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// The tool does not modify its environment.
    pub read_only_hint: bool,
    /// The tool may perform destructive updates (meaningful only when not read-only).
    pub destructive_hint: bool,
    /// Repeating a call with the same arguments has no additional effect.
    pub idempotent_hint: bool,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: bool,
}

/// The key under `_meta` where a tool's exact declarations travel.
///
/// Namespaced because `_meta` is a shared bag: an unqualified `caps` would collide with
/// whatever the next middleware attaches.
pub const META_KEY: &str = "toolwire";

/// What a successful call returns: content blocks, and optionally structured content.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// Structured content matching the tool's output schema, if it has one.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput { content: vec![Content::text(text)], structured: None }
    }

    /// Structured content plus the same JSON (canonical form) as a text block, as the MCP
    /// spec recommends for clients that read only text.
    pub fn structured(value: Value) -> Self {
        let text = crate::schema::canonical_json(&value);
        ToolOutput { content: vec![Content::text(text)], structured: Some(value) }
    }

    /// Content blocks, no structured content.
    pub fn from_content(content: Vec<Content>) -> Self {
        ToolOutput { content, structured: None }
    }

    /// Add a content block.
    pub fn with(mut self, block: Content) -> Self {
        self.content.push(block);
        self
    }

    /// The text blocks joined with newlines (non-text blocks are skipped).
    pub fn joined_text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Content::Text { text } = block {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(text);
            }
        }
        out
    }
}

/// An MCP content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 of the image bytes.
        data: String,
        /// e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// Base64 of the audio bytes.
        data: String,
        /// e.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource embedded in the result.
    Resource {
        /// The embedded resource contents.
        resource: EmbeddedResource,
    },
    /// A link to a resource the client may read.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// An optional description.
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// An optional MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }
}

/// The contents of an embedded resource: text or a base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbeddedResource {
    /// The resource's URI.
    pub uri: String,
    /// An optional MIME type.
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 binary contents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// Why a call did not return a [`ToolOutput`].
///
/// Every variant is a *tool* error: a server reports it as an `isError: true` result whose
/// text is this error's `Display`, never as a transport error, so one misbehaving tool
/// never takes a session down.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments were rejected before the body ran; the message names the tool, the
    /// offending arguments and the accepted set.
    #[error(transparent)]
    Arguments(#[from] ToolArgumentError),
    /// The tool's body returned an error.
    #[error("tool '{tool}' failed: {message}")]
    Failed {
        /// The tool's name.
        tool: String,
        /// The error's `Display`.
        message: String,
    },
    /// The tool's body panicked.
    #[error("tool '{tool}' failed: panicked: {message}")]
    Panicked {
        /// The tool's name.
        tool: String,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// The host cancelled the run before the tool was dispatched; its body never ran.
    #[error("the run was cancelled; '{tool}' was not run")]
    CancelledBeforeDispatch {
        /// The tool's name.
        tool: String,
    },
    /// The host cancelled the run while the tool was running; its future was dropped.
    #[error("the run was cancelled while '{tool}' was running")]
    CancelledWhileRunning {
        /// The tool's name.
        tool: String,
    },
    /// The server's own deadline fired and the call was abandoned.
    #[error("tool '{tool}' did not return within {}s and was abandoned", fmt_secs(*.deadline))]
    DeadlineExceeded {
        /// The tool's name.
        tool: String,
        /// The deadline that fired.
        deadline: std::time::Duration,
    },
    /// A remote tool's call outlived the caller's timeout. Not retryable: the server may
    /// have acted on it.
    #[error("tool '{tool}' on server '{server}' did not answer within {}s; it may have run", fmt_secs(*.timeout))]
    TimedOut {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The timeout that fired.
        timeout: std::time::Duration,
    },
    /// The server behind a remote tool could not be reached, or died. Retryable.
    #[error("tool '{tool}' is unavailable: server '{server}' {reason}")]
    Unavailable {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// What went wrong, in our words (never the server's).
        reason: String,
    },
    /// The server reported that the call failed (`isError`). Not retryable. The server's
    /// report is in `envelope`, sealed as untrusted data, and never in the message.
    #[error("tool '{tool}' failed on server '{server}'; its report is in the untrusted-data envelope")]
    RemoteFailed {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The server's report, normalised and sealed in the untrusted-data envelope.
        envelope: String,
    },
    /// The server declined the call with a JSON-RPC error; `code` is the server's code.
    #[error("tool '{tool}' was declined by server '{server}' (code {code})")]
    Refused {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The JSON-RPC error code the server answered with.
        code: i64,
    },
}

impl ToolError {
    /// A failure of `tool` with a message (`tool 'x' failed: <message>`).
    pub fn failed(tool: impl Into<String>, message: impl fmt::Display) -> Self {
        ToolError::Failed { tool: tool.into(), message: message.to_string() }
    }
}

/// Seconds as the shortest decimal that reads back: `0.05`, `2`, `1.5` (an `f64`'s `Display`
/// is already the shortest round-tripping form, with no trailing zeros or point). Every
/// message that names a duration in seconds uses this.
pub(crate) fn fmt_secs(d: std::time::Duration) -> String {
    format!("{}", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn deadline_message_names_seconds_plainly() {
        let e = ToolError::DeadlineExceeded { tool: "x".into(), deadline: Duration::from_millis(50) };
        assert_eq!(e.to_string(), "tool 'x' did not return within 0.05s and was abandoned");
        let e = ToolError::DeadlineExceeded { tool: "x".into(), deadline: Duration::from_secs(2) };
        assert_eq!(e.to_string(), "tool 'x' did not return within 2s and was abandoned");
    }

    #[test]
    fn read_only_hint_is_false_when_approval_is_required() {
        let d = Declarations { requires_approval: true, ..Declarations::read_only() };
        assert!(!d.annotations().read_only_hint);
        assert!(Declarations::read_only().annotations().read_only_hint);
        assert!(!Declarations::default().annotations().read_only_hint);
    }

    #[test]
    fn caps_are_sorted_and_unique() {
        let d = Declarations::default().with_caps(["egress", "private_data", "egress"]);
        assert_eq!(d.caps, ["egress", "private_data"]);
    }
}
