//! # toolwire
//!
//! A Rust SDK for tools that AI agents call over the Model Context Protocol (MCP).
//!
//! - Write a plain Rust fn and put [`#[tool]`](macro@tool) on it. It gets a byte-stable JSON
//!   Schema, argument validation whose errors a model can act on, and declarations (side
//!   effects, approval, capabilities) that travel with it.
//! - Put tools in a [`ToolRegistry`] with [`tools!`].
//! - Every tool, written with `#[tool]`, by hand, or adopted from a remote server, is the
//!   same object-safe [`Tool`] trait.
//!
//! ```
//! use toolwire::{tool, tools, Context, Tool};
//!
//! /// Run the named check and report whether it passed.
//! #[tool(read_only)]
//! fn run_check(
//!     /// Name of the check to run.
//!     name: String,
//!     /// Fail on warnings too.
//!     strict: Option<bool>,
//! ) -> String {
//!     format!("{name}:{}:ok", if strict.unwrap_or(false) { "strict" } else { "lax" })
//! }
//!
//! // The fn is untouched and callable.
//! assert_eq!(run_check("lint".into(), None), "lint:lax:ok");
//!
//! let registry = tools![run_check].unwrap();
//! let tool = registry.get("run_check").unwrap();
//! assert_eq!(tool.info().description(), "Run the named check and report whether it passed.");
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let err = tool.call_json(serde_json::json!({"name": "lint", "verbose": true}), &Context::new()).await.unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"
//! );
//! # });
//! ```
//!
//! # Cargo features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `http` | on | loopback streamable HTTP: `serve_registry()` and `McpServerSpec` (the agent-CLI configs, their stdio projection included), `ServeOptions`, `BearerToken`, `mcp_router` and `HttpConfig`; serving an `ApprovalServer` (`serve`, `serve_with`, `permission_prompt_tool`, `claude_cli_args`) and `RunPolicy::check_specs`; the `--http`, `--port` and `--show-token` flags of the `serve_registry!` main |
//! | `client` | off | `toolwire::client`: connect to MCP servers over stdio or HTTP(S) and adopt their tools. Independent of `http`: it brings its own HTTP client |
//!
//! Without `http`, everything a tools-only stdio server uses is still here: `#[tool]`,
//! `tools!`, the registry, the engine, [`serve_registry_stdio`], and `serve_registry!` (the
//! same expansion; its `--http` is then a usage error saying the feature is off). Such a
//! build links none of axum, hyper, tower, http, mio or socket2, which makes the binary
//! smaller, its idle resident set lower and a clean build faster:
//!
//! ```toml
//! [dependencies]
//! toolwire = { version = "0.1", default-features = false }
//! ```
//!
//! An [`ApprovalServer`] is an ordinary [`Tool`] in either build (its asker, timeout and
//! decision record need no HTTP); serving it needs `http`, because the asker lives in this
//! process and only a server this process runs can reach it.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod approvals;
mod args;
mod context;
mod inject;
mod json;
mod registry;
mod returns;
mod schema;
mod schema_gen;
mod tool;

#[doc(hidden)]
pub mod __private;

pub use approvals::{
    Answer, ApprovalDecision, ApprovalRequest, ApprovalServer, ApprovalServerBuilder, AskError, AskFuture,
    Asker, Autonomy, CAP_EGRESS, CAP_PRIVATE_DATA, CAP_UNTRUSTED_CONTENT, DEFAULT_APPROVAL_SERVER_NAME,
    DEFAULT_APPROVAL_TIMEOUT, DEFAULT_APPROVAL_TOOL_NAME, DecisionSink, DecisionSource, FnAsker,
    LETHAL_TRIFECTA_REASON, PolicyVerdict, RunPolicy, ToolCaps, TrifectaLegs, asker_fn,
};
pub use args::{ArgSpec, ArgumentProblem, ParamSpec, ToolArgumentError, ToolParam};
pub use context::{Context, ContextBuilder, PeerInfo, Progress, ProgressSink};
pub use inject::FromContext;
pub use json::canonical_json;
// What `#[tool]` expands to, re-exported here hidden only so compile errors name it by its
// short name (`ToolInput<'_, ViaArguments>`): rustc prints a hidden module's items by their
// full `__private` path. Not public API; the expansion reaches them through `__private`.
#[doc(hidden)]
pub use inject::{ToolInput, ViaArguments, ViaContext};
pub use registry::{NameMap, RegistryError, ToolRegistry, is_valid_tool_name, sanitise_tool_name};
pub use returns::{Json, ToolReturn};
pub use schema::Schema;
pub use tool::{
    Annotations, Content, Declarations, EmbeddedResource, META_KEY, RemoteError, Tool, ToolError, ToolFuture,
    ToolInfo, ToolOutput,
};
#[doc = include_str!("../docs/tool.md")]
pub use toolwire_macros::tool;
pub use toolwire_macros::tools;

/// Re-exported so tools can name the cancellation token type without a direct dependency.
pub use tokio_util::sync::CancellationToken;

// The MCP client: connect to servers and adopt their tools (feature `client`).
#[cfg(feature = "client")]
pub mod client;

// Serving over MCP: the protocol types, the dispatch engine, the stdio transport and
// `serve_registry!` (its `--http` flag with feature `http`).
mod protocol;
mod serve;
mod server;
mod transport;
/// The MCP data shapes as `serde` types: tools, call results, content, resources, prompts.
pub use protocol::wire;
pub use protocol::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, Era, Implementation, Outbound, OutboundKind,
    PROTOCOL_VERSION_KEY, ProtocolVersion, RequestId, RpcError, SERVER_INFO_KEY, code, negotiate_legacy,
};
pub use server::{
    DEFAULT_LIST_TTL, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE,
    DEFAULT_SHUTDOWN_GRACE, PingError, Server, ServerBuilder, ServerOptions, ServerOptionsBuilder, Session,
    Sink,
};
#[doc = include_str!("../docs/serve_registry.md")]
pub use toolwire_macros::serve_registry;
pub use transport::stdio::{
    MAX_UNWRITTEN_OUTPUT, MAX_WAITING_CALLS, ServeError, serve_lines, serve_registry_stdio, serve_stdio,
};

// Loopback streamable HTTP and `serve_registry()`: the spec an agent CLI is handed
// (feature `http`).
#[cfg(feature = "http")]
pub use serve::{
    BearerToken, CodexConfig, McpServerSpec, ServeOptions, SpecError, StdioCommand, TransportKind,
    serve_registry,
};
#[cfg(feature = "http")]
pub use transport::http::{
    Auth, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SSE_BACKLOG, DEFAULT_SESSION_IDLE_TTL, HEADER_MISMATCH, HttpConfig,
    HttpConfigBuilder, mcp_router,
};
