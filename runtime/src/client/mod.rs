//! The MCP client: connect to any MCP server over stdio or Streamable HTTP (`http://` and
//! `https://`) and adopt its tools as ordinary [`Tool`](crate::Tool)s (feature `client`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use toolwire::client::{AdoptOptions, Client, ClientOptions, StdioServer};
//! use toolwire::{Context, Tool};
//!
//! let server = StdioServer::new("uvx").args(["mcp-server-time"]);
//! let client = Client::connect(server, ClientOptions::new("time")).await?;
//! let discovery = client.adopt(AdoptOptions::default()).await?;
//! let tool = discovery.get("time__get_current_time").expect("adopted");
//! let out = tool.call_json(serde_json::json!({"timezone": "UTC"}), &Context::new()).await?;
//! println!("{}", out.joined_text()); // sealed in <untrusted-data server="time" ...>
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! - [`StdioServer`] spawns a server; [`HttpServer`] reaches one over Streamable HTTP, plain
//!   or over TLS (`https://`: TLS 1.2/1.3 with rustls on *ring*, Mozilla's roots built in,
//!   extra roots such as a private CA with [`HttpServer::root_certificate_pem`]).
//! - [`Client`]: the connection (`connect`, `close`, `list_tools`, `call_tool`, `ping`,
//!   resources, prompts).
//! - [`Client::adopt`] → [`Discovery`] of [`RemoteTool`]s: validated locally against the
//!   server's own schema, results normalised and sealed, failures classified.
//! - [`Client::adopt_prompts`], [`Client::resource_source`], [`Client::typed`].
//! - [`load_servers`] / [`connect_all`]: servers from `MCP_SERVERS` or `.mcp.json`.
//! - Everything a server says (descriptions, annotations, results, errors) is untrusted;
//!   [`untrusted`] seals a result you fetched yourself.

mod adopt;
mod completion;
mod config;
mod conn;
mod connection;
mod error;
mod http;
mod normalise;
mod options;
mod prompts;
mod remote_tool;
mod resources;
mod schema;
mod stdio;
mod typed;
mod wire;

// What `__private::fuzz` drives: the SSE parser and the adoption checks.
#[cfg(feature = "fuzzing")]
pub(crate) use {
    http::fuzz_sse,
    schema::{check as check_schema, compile as compile_schema, validate as validate_adopted},
};

pub mod untrusted {
    //! The untrusted-data envelope, for results you fetch yourself.
    //!
    //! [`RemoteTool`](super::RemoteTool) seals every result it returns. A result read with
    //! [`Client::call_tool`](super::Client::call_tool) is the server's, unsealed: before
    //! putting it in front of a model, seal it the same way with [`envelope`] (or
    //! [`normalise`] and [`seal`]), so it reads as data and not as instructions.

    pub use super::normalise::{ENVELOPE_TAG, envelope, normalise, seal};
}

pub use adopt::{
    AdoptOptions, Approval, DEFAULT_MAX_DESCRIPTION_BYTES, Discovery, MAX_NAME_LEN, RejectReason, Rejected,
};
pub use config::{
    CONFIG_FILES, ConfigError, ConfigLoad, Connected, MCP_SERVERS_ENV, ServerConfig, connect_all,
    load_servers, parse_servers,
};
pub use conn::ProgressFn;
pub use connection::{CallOptions, Client};
pub use error::{ClientError, RootCertificateError, SharedError};
pub use normalise::DEFAULT_MAX_RESULT_BYTES;
pub use options::Delivery;
pub use options::{
    ClientOptions, EraMode, HandlerError, HandlerFuture, HttpServer, RequestHandler, Root, SAFE_ENV_VARS,
    ServerTransport, ShutdownGrace, StdioServer,
};
pub use prompts::{PromptAdoption, PromptArgument, PromptInfo, PromptMessage, RenderedPrompt, StaticPrompt};
pub use remote_tool::RemoteTool;
pub use resources::{ResourceItem, ResourceSource, ResourceWriteRefused};
pub use schema::{MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, RefusedConstruct, SchemaRefusal};
pub use stdio::MAX_LINE;
pub use typed::{TypedError, TypedTool};
pub use wire::{CallResult, ListedTool, ResourceInfo, ServerInfo, ToolHints};
