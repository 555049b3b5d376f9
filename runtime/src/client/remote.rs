//! What a [`#[toolwire::remote]`](crate::remote) trait's `<Trait>Client` is made of: one
//! [`RemoteMethod`] per method, bound by the typed handles' own check, and [`BindError`], why
//! a method could not be bound.
//!
//! ```no_run
//! use toolwire::ToolError;
//! use toolwire::client::{Client, ClientOptions, StdioServer};
//!
//! #[toolwire::remote]
//! trait Math {
//!     /// Add two integers.
//!     async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError>;
//! }
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::connect(StdioServer::new("math-server"), ClientOptions::new("math")).await?;
//! let math = MathClient::bind(&client).await?; // every method's schema is checked here, once
//! assert_eq!(math.add(2, 3).await?, 5);
//! # Ok(()) }
//! ```
//!
//! Binding a method is [`Client::typed`] with the local schema taken from the tool the same
//! method serves as (the hidden `#[tool]` the attribute generates), so the check is the typed
//! handles' check, and what a served impl advertises is, by construction, what binding
//! expects. When the server advertises an `outputSchema` and the method returns structured
//! output, the server's result must fit the method's return type too.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::connection::Client;
use super::error::ClientError;
use super::schema::SchemaRefusal;
use super::typed::{Sides, TypedError, TypedTool};
use crate::tool::{ToolError, ToolInfo};

/// Why a `#[toolwire::remote]` trait could not be bound to a server: the first method that
/// does not fit, named as `Trait::method`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindError {
    /// The server has no tool of the method's name (the server's own name for it).
    #[error("cannot bind `{method}`: server '{server}' has no tool '{tool}'. Its tools: {}", crate::args::PyList(.listed))]
    NoSuchTool {
        /// The method, as `Trait::method`.
        method: &'static str,
        /// The server's configured name.
        server: String,
        /// The tool the method is bound to.
        tool: String,
        /// The tools the server lists, by name, sorted.
        listed: Vec<String>,
    },
    /// The server's schema does not accept the method's parameters, or its result does not
    /// fit the method's return type.
    #[error("cannot bind `{method}` to tool '{tool}' of server '{server}': {reason}")]
    Mismatch {
        /// The method, as `Trait::method`.
        method: &'static str,
        /// The server's configured name.
        server: String,
        /// The tool.
        tool: String,
        /// What does not fit, naming the parameter (or result field) and why.
        reason: String,
    },
    /// The server's schema was refused (see [`SchemaRefusal`]).
    #[error("cannot bind `{method}`: {source}")]
    Schema {
        /// The method, as `Trait::method`.
        method: &'static str,
        /// The refusal.
        source: SchemaRefusal,
    },
    /// Listing the server's tools failed.
    #[error("cannot bind `{method}`: {source}")]
    Client {
        /// The method, as `Trait::method`.
        method: &'static str,
        /// What failed.
        source: ClientError,
    },
}

impl BindError {
    /// The method that could not be bound, as `Trait::method`.
    pub fn method(&self) -> &'static str {
        match self {
            BindError::NoSuchTool { method, .. }
            | BindError::Mismatch { method, .. }
            | BindError::Schema { method, .. }
            | BindError::Client { method, .. } => method,
        }
    }
}

/// One bound method of a `#[toolwire::remote]` trait: a typed handle on the server's tool,
/// its arguments built by the generated method. Named only by the generated code.
pub struct RemoteMethod<Out> {
    typed: TypedTool<Value, Out>,
    tool: &'static str,
    out: &'static str,
}

impl<Out> std::fmt::Debug for RemoteMethod<Out> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteMethod").field("tool", &self.tool).field("out", &self.out).finish()
    }
}

impl<Out: DeserializeOwned> RemoteMethod<Out> {
    /// Bind `method` (`Trait::method`) to the server's tool `tool`, checking the server's
    /// schemas against `local`, the info of the tool the same method serves as.
    pub async fn bind(
        client: &Client,
        method: &'static str,
        tool: &'static str,
        local: &ToolInfo,
    ) -> Result<Self, BindError> {
        let params = format!("`{method}`");
        let sides = Sides { sender: &params, reader: "the server", at_reader: "on the server" };
        let returns = format!("`{method}`'s return type");
        let at_returns = format!("in {returns}");
        let out_sides = Sides { sender: "the server's result", reader: &returns, at_reader: &at_returns };
        let local_out = local.output_schema().map(|s| (s.value(), out_sides));
        let typed = client
            .bind_typed::<Value, Out>(tool, local.input_schema().value(), local_out, method, sides)
            .await
            .map_err(|e| match e {
                TypedError::NoSuchTool { server, tool, listed } => {
                    BindError::NoSuchTool { method, server, tool, listed }
                }
                TypedError::Incompatible { server, tool, reason, .. } => {
                    BindError::Mismatch { method, server, tool, reason }
                }
                TypedError::Schema(source) => BindError::Schema { method, source },
                TypedError::Client(source) => BindError::Client { method, source },
                // Binding makes none of the others; should it, they are still this method's.
                other => BindError::Mismatch {
                    method,
                    server: client.name().to_owned(),
                    tool: tool.to_owned(),
                    reason: other.to_string(),
                },
            })?;
        Ok(RemoteMethod { typed, tool, out: std::any::type_name::<Out>() })
    }

    /// Bound each call (see [`TypedTool::with_timeout`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.typed = self.typed.with_timeout(timeout);
        self
    }

    /// Call the tool with the arguments the method built; a remote failure is the method's
    /// error as the server's call reported it.
    pub async fn call(&self, args: Result<Map<String, Value>, ToolError>) -> Result<Out, ToolError> {
        let args = Value::Object(args?);
        self.typed.call(&args).await.map_err(|e| match e {
            TypedError::Tool(e) => e,
            TypedError::Output { server, out, .. } => ToolError::failed(
                self.tool,
                format_args!("server '{server}' returned something that is not a `{out}`"),
            ),
            other => ToolError::failed(self.tool, other),
        })
    }
}

/// One argument of a generated method, serialised under its wire name. `optional` (an
/// `Option` parameter): `None` is not sent, as a `#[tool]` reads an absent argument as `None`.
pub fn remote_arg<T: serde::Serialize>(
    args: &mut Result<Map<String, Value>, ToolError>,
    tool: &'static str,
    name: &'static str,
    optional: bool,
    value: &T,
) {
    let Ok(map) = args else { return };
    match serde_json::to_value(value) {
        Ok(Value::Null) if optional => {}
        Ok(v) => {
            map.insert(name.to_owned(), v);
        }
        Err(e) => *args = Err(ToolError::failed(tool, format_args!("argument '{name}' cannot be sent: {e}"))),
    }
}
