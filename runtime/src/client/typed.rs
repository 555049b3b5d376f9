//! Typed handles: [`Client::typed::<Args, Out>("add")`](Client::typed) binds a remote tool to
//! Rust types, checking at bind time that the remote schema accepts what `Args` produces.
//!
//! The bind-time check compares `Args`'s JSON Schema with the server's (after the adoption
//! checks): every property the server requires is one `Args` always sends; every property
//! `Args` sends is one the server accepts, when it forbids extras; and a property's JSON
//! types (ignoring `null`, which an `Option` skipped when serialising never sends) are among
//! the server's. Each call's arguments are still validated locally before they leave.
//!
//! `Out` is read from `structuredContent` (also unwrapping the Python SDK's
//! `{"result": v}`), else from the text as JSON, else from the text as a JSON string.

use std::marker::PhantomData;
use std::sync::OnceLock;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::connection::{CallOptions, Client};
use super::error::ClientError;
use super::normalise::{DEFAULT_ADOPTED_RESULT_BYTES, failed};
use super::schema::{Checked, SchemaRefusal, check, compile, validate};
use crate::tool::{Content, ToolError};

/// Why a typed handle could not be bound or a typed call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TypedError {
    /// Listing the tools failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The server has no tool of that name (its own name for it: see the naming rule in the
    /// [`client`](super#naming) module docs).
    #[error("server '{server}' has no tool '{tool}'. Its tools: {}", crate::args::PyList(.listed))]
    NoSuchTool {
        /// The server's configured name.
        server: String,
        /// The tool asked for.
        tool: String,
        /// The tools the server lists, by name, sorted.
        listed: Vec<String>,
    },
    /// The server's schema was refused.
    #[error(transparent)]
    Schema(#[from] SchemaRefusal),
    /// The server's schema does not accept what `Args` produces.
    #[error("tool '{tool}' of server '{server}' does not accept `{args}`: {reason}")]
    Incompatible {
        /// The server's configured name.
        server: String,
        /// The tool.
        tool: String,
        /// The `Args` type.
        args: &'static str,
        /// What does not fit.
        reason: String,
    },
    /// The call failed (see [`ToolError`] for the classification).
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The result is not an `Out`.
    #[error("tool '{tool}' of server '{server}' returned something that is not a `{out}`")]
    Output {
        /// The server's configured name.
        server: String,
        /// The tool.
        tool: String,
        /// The `Out` type.
        out: &'static str,
    },
}

/// A remote tool bound to `Args` and `Out`.
pub struct TypedTool<Args, Out> {
    client: Client,
    tool: String,
    checked: Checked,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
    timeout: Option<Duration>,
    delivery: super::options::DeliveryGuarantee,
    _types: PhantomData<fn(Args) -> Out>,
}

impl<A, O> std::fmt::Debug for TypedTool<A, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedTool")
            .field("server", &self.client.name())
            .field("tool", &self.tool)
            .field("args", &std::any::type_name::<A>())
            .field("out", &std::any::type_name::<O>())
            .finish()
    }
}

fn types(schema: &Value) -> Option<Vec<String>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.clone()]),
        Value::Array(ts) => Some(ts.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        _ => None,
    }
}

fn names(schema: &Value, key: &str) -> Vec<String> {
    match schema.get(key) {
        Some(Value::Array(v)) => v.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The two sides of a schema comparison, as a mismatch names them: who sends the value, who
/// reads it, and where the reader's type is (`on the server`).
#[derive(Clone, Copy)]
pub(crate) struct Sides<'a> {
    pub(crate) sender: &'a str,
    pub(crate) reader: &'a str,
    pub(crate) at_reader: &'a str,
}

/// A typed handle's arguments: `Args` sends, the server reads.
const ARGS_TO_SERVER: Sides<'static> =
    Sides { sender: "`Args`", reader: "the server", at_reader: "on the server" };

/// Why `sent` (the schema of what the sender produces) does not fit `read` (the schema the
/// reader accepts), if it does not: every property the reader requires is one the sender
/// always sends; every property sent is one the reader accepts, when it forbids extras; and a
/// property's JSON types (ignoring `null`) are among the reader's.
pub(crate) fn incompatibility(sent: &Value, read: &Value, sides: Sides<'_>) -> Option<String> {
    let Sides { sender, reader, at_reader } = sides;
    let local_props = names(sent, "properties");
    let local_required = names(sent, "required");
    for r in names(read, "required") {
        if !local_required.contains(&r) {
            return Some(format!("{reader} requires '{r}', which {sender} does not always send"));
        }
    }
    let remote_props = read.get("properties").and_then(Value::as_object);
    let closed = read.get("additionalProperties") == Some(&Value::Bool(false));
    for p in &local_props {
        let theirs = remote_props.and_then(|m| m.get(p));
        let Some(theirs) = theirs else {
            if closed {
                return Some(format!("{sender} sends '{p}', which {reader} does not accept"));
            }
            continue;
        };
        let ours = &sent["properties"][p];
        if let (Some(ours), Some(theirs)) = (types(ours), types(theirs)) {
            let fits =
                |t: &String| theirs.contains(t) || (t == "integer" && theirs.iter().any(|x| x == "number"));
            if let Some(bad) = ours.iter().filter(|t| *t != "null").find(|t| !fits(t)) {
                return Some(format!("'{p}' is {bad} in {sender} but {} {at_reader}", theirs.join(" or ")));
            }
        }
    }
    None
}

impl Client {
    /// Bind the server's tool `tool` (its name on the server, as for
    /// [`Discovery::get`](super::Discovery::get)) to `Args` and `Out`, checking the schemas
    /// agree.
    pub async fn typed<Args, Out>(&self, tool: &str) -> Result<TypedTool<Args, Out>, TypedError>
    where
        Args: Serialize + JsonSchema,
        Out: DeserializeOwned,
    {
        let local = crate::schema_gen::SchemaGen::new().root::<Args>();
        self.bind_typed(tool, &local, None, std::any::type_name::<Args>(), ARGS_TO_SERVER).await
    }

    /// [`typed`](Client::typed) with the local schemas given: `local` is what the arguments
    /// look like, `local_out` (when the server advertises an `outputSchema` too) what the
    /// caller reads from a structured result; `sides` words an arguments mismatch.
    pub(crate) async fn bind_typed<Args, Out>(
        &self,
        tool: &str,
        local: &Value,
        local_out: Option<(&Value, Sides<'_>)>,
        args: &'static str,
        sides: Sides<'_>,
    ) -> Result<TypedTool<Args, Out>, TypedError> {
        let listed = self.list_tools(false).await?;
        let Some(t) = listed.iter().find(|t| t.name == tool) else {
            let mut listed: Vec<String> = listed.iter().map(|t| t.name.clone()).collect();
            listed.sort_unstable();
            return Err(TypedError::NoSuchTool {
                server: self.name().to_owned(),
                tool: tool.to_owned(),
                listed,
            });
        };
        let checked = check(self.name(), tool, &t.input_schema)?;
        let incompatible = |reason| TypedError::Incompatible {
            server: self.name().to_owned(),
            tool: tool.to_owned(),
            args,
            reason,
        };
        if let Some(reason) = incompatibility(local, &checked.advertised, sides) {
            return Err(incompatible(reason));
        }
        // The result: what the server says it sends must fit what the caller reads.
        if let (Some((ours, out_sides)), Some(theirs)) = (local_out, &t.output_schema)
            && let Some(reason) = incompatibility(theirs, ours, out_sides)
        {
            return Err(incompatible(reason));
        }
        Ok(TypedTool {
            client: self.clone(),
            tool: tool.to_owned(),
            checked,
            validator: OnceLock::new(),
            timeout: None,
            // Read like an adopted tool's, with the annotations trusted (the table in
            // `remote_tool.rs`): an interrupted call of a tool that must not be re-run is
            // an unknown outcome.
            delivery: super::adopt::declarations(&t.hints, &super::adopt::AdoptOptions::default()).1,
            _types: PhantomData,
        })
    }
}

impl<Args: Serialize, Out: DeserializeOwned> TypedTool<Args, Out> {
    /// Bound each call (unset: the client's
    /// [`request_timeout`](super::ClientOptions::request_timeout); the precedence is in the
    /// [`client`](super) module docs).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Call the tool.
    pub async fn call(&self, args: &Args) -> Result<Out, TypedError> {
        let server = self.client.name().to_owned();
        let value = serde_json::to_value(args).map_err(|e| ToolError::failed(&self.tool, e))?;
        let validator = self.validator.get_or_init(|| compile(&self.checked)).as_ref().map_err(|reason| {
            ToolError::failed(&self.tool, format_args!("its input schema does not compile: {reason}"))
        })?;
        validate(validator, &self.checked.advertised, &self.tool, &value).map_err(ToolError::Arguments)?;
        let opts = CallOptions::new().timeout_opt(self.timeout).delivery(self.delivery);
        let result = self.client.call_tool(&self.tool, value, opts).await?;
        if result.is_error {
            let error = failed(&server, &self.tool, &self.tool, &result, DEFAULT_ADOPTED_RESULT_BYTES);
            return Err(TypedError::Tool(ToolError::Remote(error)));
        }
        let text: String = result
            .content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let mut candidates = Vec::new();
        if let Some(s) = &result.structured {
            candidates.push(s.clone());
            if let Some(v) = s.as_object().filter(|m| m.len() == 1).and_then(|m| m.get("result")) {
                candidates.push(v.clone());
            }
        }
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            candidates.push(v);
        }
        candidates.push(Value::String(text));
        candidates.into_iter().find_map(|v| serde_json::from_value(v).ok()).ok_or(TypedError::Output {
            server,
            tool: self.tool.clone(),
            out: std::any::type_name::<Out>(),
        })
    }
}
