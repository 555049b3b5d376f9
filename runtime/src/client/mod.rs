//! The MCP client: connect to any MCP server over stdio or HTTP (`http://` and `https://`:
//! Streamable HTTP, or the 2024-11-05 HTTP+SSE transport of older servers) and adopt its tools
//! as ordinary [`Tool`](crate::Tool)s (feature `client`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use toolwire::client::{AdoptOptions, Client, ClientOptions, StdioServer, UntrustedText};
//!
//! let server = StdioServer::new("uvx").arg("mcp-server-time");
//! let client = Client::connect(server, ClientOptions::new("time")).await?;
//! let discovery = client.adopt(AdoptOptions::default()).await?;
//! let tool = discovery.get("get_current_time")?; // the server's name; the model sees time__get_current_time
//! let out = tool.invoke(serde_json::json!({"timezone": "UTC"})).await?;
//! println!("{}", out.joined_text()); // sealed in <untrusted-data server="time" ...>
//! let text = UntrustedText::from_output(&out).expect("sealed"); // the server's words, typed as such
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! - [`StdioServer`] spawns a server; [`HttpServer`] reaches one over Streamable HTTP, plain
//!   or over TLS (`https://`: TLS 1.2/1.3 with rustls on *ring*, Mozilla's roots built in,
//!   extra roots such as a private CA with [`HttpServer::root_certificate_pem`]);
//!   [`Lines`] speaks stdio's framing over any async stream pair; [`InProcess`] connects to a
//!   [`Server`](crate::Server) in this process, with no socket and no child. Each is a
//!   [`Transport`], the public seam: [`Client::connect`] takes any (see [Transports](#transports)).
//! - [`Client`]: the connection (`connect`, `connect_spec`, `connect_config_file`, `close`,
//!   `list_tools`, `call_tool`, `ping`, resources with templates and subscriptions, prompts,
//!   and [`request`](Client::request) / [`notify`](Client::notify) for any method raw).
//! - [`Client::adopt`] → [`Discovery`] of [`RemoteTool`]s: validated locally against the
//!   server's own schema, results normalised and sealed, failures classified.
//! - [`Client::adopt_prompts`], [`Client::resource_source`], [`Client::typed`], and a whole
//!   server as a Rust trait with [`#[toolwire::remote]`](crate::remote) ([`BindError`]).
//! - Skills (SEP-2640): [`Client::list_skills`], [`Client::load_skill`],
//!   [`Client::read_skill_file`]: fetched one file at a time, when asked, and verified against
//!   the skill's entry (size, digest, frontmatter) before handed over ([`SkillFileRead`]).
//! - [`load_servers`] / [`connect_all`]: servers from `MCP_SERVERS` or `.mcp.json`.
//! - [`hub::Hub`]: many declared servers behind one API: lazy or start-up connections,
//!   health states and events, bounded reconnection and respawn, routing by tool name and
//!   resource URI, a fail-closed gate, stable error codes.
//! - Talking back, both eras: [`ClientOptions::on_elicit`], [`ClientOptions::on_sample`]
//!   and [`ClientOptions::roots`] answer a legacy server's requests and a 2026-07-28
//!   server's `input_required` rounds alike ([`ClientOptions::max_input_rounds`]);
//!   sampling with tools ([`ClientOptions::sampling_with_tools`]: [`CreateMessageRequest::tools`]
//!   and `tool_choice`, [`SamplingMessage::tool_uses`] and [`SamplingMessage::tool_results`],
//!   answered with [`CreateMessageResult::tool_use`]);
//!   [`ClientOptions::on_log`] with [`Client::set_level`]; [`Client::set_roots`];
//!   [`ClientOptions::on_list_changed`] and [`Client::subscribe`] (a legacy server's GET
//!   stream and `resources/subscribe`; a 2026-07-28 server's `subscriptions/listen`, kept
//!   open and listened again after a graceful closure or a drop, bounded); URL elicitation with
//!   [`ClientOptions::elicitation_url`] and [`ClientOptions::on_elicitation_complete`].
//! - Everything a server says (descriptions, annotations, results, errors) is untrusted;
//!   [`untrusted`] seals a result you fetched yourself.
//!
//! # Transports
//!
//! | you have | transport | why |
//! | --- | --- | --- |
//! | a command | [`StdioServer`] | MCP's stdio transport: the client owns the child (safe environment, stderr to `tracing`, graceful shutdown) |
//! | an `http://` or `https://` URL | [`HttpServer`] | Streamable HTTP (2025-03-26 on, and 2026-07-28); when the server refuses the `initialize` POST with 400, 404 or 405, the 2024-11-05 HTTP+SSE transport at the same URL, as the spec's backwards-compatibility rule says (below) |
//! | the SSE URL of an old server (often `…/sse`) | [`HttpServer::legacy_sse`] | the 2024-11-05 HTTP+SSE transport only, no Streamable HTTP POST first |
//! | a `.mcp.json` entry, `MCP_SERVERS`, an [`McpServerSpec`](crate::McpServerSpec) | [`ServerTransport`] | `command` means stdio, `url` HTTP as above; `"type": "sse"` (Claude Code's name) means [`HttpServer::legacy_sse`] |
//! | a socket, a pipe, a child you spawned | [`Lines`] | stdio's one message per line, over your streams |
//! | a [`Server`](crate::Server) value | [`InProcess`] | the whole protocol with no I/O: tests, and hosts that embed a server |
//! | anything else | your own [`Transport`] | it moves whole messages; the client keeps the protocol (see the trait) |
//!
//! ## Old HTTP+SSE servers
//!
//! The 2024-11-05 transport opens one `GET` SSE stream; the server's first event, `endpoint`,
//! names a URL to `POST` each message to, and every answer comes back on the stream. Many
//! hosted servers, the Python SDK's `sse` app and the TypeScript SDK v1's `SSEServerTransport`
//! still speak only it. An [`HttpServer`] reaches them in one of two ways, set by
//! [`HttpTransportKind`]:
//!
//! - **By the fallback** ([`HttpTransportKind::Auto`], the default): the client POSTs
//!   `initialize` as Streamable HTTP does. Only when that first POST is answered 400, 404 or
//!   405 does it send `GET` to the same URL; a stream whose `endpoint` event arrives makes it a
//!   2024-11-05 server for the rest of the connection. The spec says "a 4xx"; 401 and 403
//!   (credentials), 408 and 429 (try again) and the other 4xx (a server that read the POST
//!   as Streamable HTTP and disliked it) do not fall back, and no later message does. A
//!   `GET` answered without an SSE stream means it is no old server either: the error is the
//!   POST's own (`server 'x' answered HTTP 404`). [`HttpTransportKind::StreamableHttp`] turns
//!   the fallback off.
//! - **By configuration** ([`HttpServer::legacy_sse`]): the URL is the SSE endpoint, and the
//!   Streamable HTTP POST is skipped.
//!
//! Both send the same configured headers and bearer token on the `GET` and on every `POST`,
//! and wait up to [`HttpServer::timeout`] for the `endpoint` event (`server 'x' sent no
//! 'endpoint' event on its SSE stream at <url> within 30s`); an endpoint on another origin is
//! refused, since the POSTs carry the credentials. The stream is the connection: when it ends
//! (the server died or closed it), every call in flight fails as an exchange cut off after it
//! was sent, with the reason `server 'x' closed its SSE stream at <url>` (for a tool that must
//! not be re-run, [`RemoteError::OutcomeUnknown`](crate::tool::RemoteError::OutcomeUnknown):
//! it may have run), and every later call fails as unavailable with the same reason. The client does not reopen it: a new stream is a
//! new session, which needs a new [`Client::connect`].
//!
//! # Naming
//!
//! Your code names a server's tool by the server's name for it, everywhere:
//! [`Client::call_tool`], [`Client::typed`], [`Discovery::get`], and a
//! [`#[toolwire::remote]`](crate::remote) trait's methods (the method's name, or its
//! `#[remote(name = "..")]`). The adopted, prefixed
//! name is the model's (`tool.info().name()`); a host handed a model's tool call finds the
//! tool by it with [`Discovery::by_adopted_name`].
//!
//! # Caching
//!
//! The tool, resource and template lists are cached for the `ttlMs` a 2026-07-28 server
//! sends (the shortest of a list's pages; none means not cached) or, from a legacy server,
//! for [`ClientOptions::cache_ttl`], and dropped by the matching `list_changed` (heard on
//! the GET stream, or on the 2026-07-28 `subscriptions/listen`). A 2026-07-28 result's
//! `cacheScope` says who may reuse it: `"private"`, only the same authorization context;
//! `"public"`, anyone. Every cache here belongs to one [`Client`]: one connection with the
//! credentials it was made with, one authorization context, and is never shared with
//! another `Client`. So a `"private"` list is honoured as the spec asks, and a `"public"`
//! one is kept the same way (sharing it across clients is allowed, not required, and not
//! done). A host that shares lists between clients with different credentials must share
//! only what the server called `"public"`.
//!
//! # Timeouts
//!
//! A tool call waits at most the first of these that is set, most specific first:
//!
//! | knob | applies to |
//! | --- | --- |
//! | [`CallOptions::timeout`] | one [`Client::call_tool`] |
//! | [`AdoptOptions::timeout`] / [`TypedTool::with_timeout`] | every call through that adopted tool / typed handle |
//! | [`ClientOptions::request_timeout`] (default 30 s) | everything else the client sends: the handshake, the lists, and every call none of the above bounds |
//!
//! So a call always has a bound: an adopted tool on a hung server fails after 30 s when
//! nobody set anything, as [`RemoteError::TimedOut`](crate::tool::RemoteError::TimedOut),
//! `tool 'time__now' on server 'time' did not answer within 30s; it may have run`, and the
//! server is sent `notifications/cancelled`. An adopted tool's [`Context`](crate::Context)
//! deadline, when sooner than that bound, wins.
//!
//! [`HttpServer::timeout`] (30 s) is the transport's own bound, beside the call's: how long
//! one HTTP exchange may take to connect and answer (a streamed answer's events are then
//! bounded by the call's timeout). When it fires first the server counts as unreachable.

mod adopt;
mod answer;
mod authorizer;
mod completion;
mod config;
mod conn;
mod connection;
mod error;
mod handlers;
mod http;
pub mod hub;
mod in_process;
mod intercept;
mod lines;
mod listen;
mod normalise;
#[cfg(feature = "client-oauth")]
pub mod oauth;
mod options;
mod prompts;
pub(crate) mod remote;
mod remote_tool;
mod resources;
mod rounds;
mod schema;
mod skills;
mod stdio;
mod talk;
mod task_calls;
mod tasks;
mod transport;
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
    //! [`UntrustedText`] takes the text out of an envelope again, still marked untrusted.

    pub use super::normalise::{ENVELOPE_TAG, UntrustedText, envelope, normalise, seal};
}

pub use adopt::{
    AdoptOptions, DEFAULT_MAX_DESCRIPTION_BYTES, Discovery, MAX_NAME_LEN, RejectReason, Rejected,
    RequireApproval, UnknownTool,
};
pub use authorizer::{AuthFailure, AuthFuture, Authorizer, Exchange, RefusedExchange};
pub use config::{
    CONFIG_FILES, ConfigError, ConfigLoad, Connected, MCP_SERVERS_ENV, ServerConfig, connect_all,
    load_servers, parse_servers,
};
pub use conn::{ProgressFn, UpdateFn};
pub use intercept::{SendInterceptor, SendOutcome, SendVerdict, SendWatch, Sending};
// What a client-only program's callbacks and requests name, from the layers that own them, so
// that it imports from `client` alone.
pub use crate::context::Progress;
pub use crate::protocol::LoggingLevel;
// The one default bound on `input_required` rounds, the server's and the client's.
pub use crate::protocol::wire::{
    CompleteParams, CompleteResult, CompletionArgument, CompletionContext, CompletionReference,
    CompletionValues,
};
pub use crate::server::DEFAULT_MAX_INPUT_ROUNDS;
pub use connection::{CallOptions, Client};
pub use error::{ClientError, RootCertificateError, SharedError};
pub use handlers::{
    CreateMessageRequest, CreateMessageResult, Direction, ElicitationCompleteFn, ElicitationMode,
    ElicitationRequest, Elicited, HandlerError, HandlerFuture, ListChanged, ListChangedFn, LogFn, LogMessage,
    MessageFn, RequestHandler, SamplingMessage, SamplingTool, SamplingToolResult, SamplingToolUse,
    ToolChoice,
};
pub use in_process::InProcess;
pub use lines::Lines;
pub use normalise::{DEFAULT_ADOPTED_RESULT_BYTES, UntrustedText};
pub use options::DeliveryGuarantee;
pub use options::{
    ClientOptions, EraMode, HttpServer, HttpTransportKind, Root, SAFE_ENV_VARS, ServerTransport,
    ShutdownGrace, StdioServer,
};
pub use prompts::{
    ListedPrompt, ListedPromptArgument, PromptAdoption, RenderedMessage, RenderedPrompt, StaticPrompt,
};
pub use remote::BindError;
pub use remote_tool::RemoteTool;
pub use resources::{ResourceItem, ResourceSource, ResourceWriteRefused};
pub use schema::{MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, RefusedConstruct, SchemaRefusal};
pub use skills::SkillFileRead;
pub use stdio::MAX_LINE;
pub use transport::{CloseFuture, Incoming, Link, Message, Outgoing, StartFuture, Transport};
pub use typed::{TypedError, TypedTool};
pub use wire::{
    CallResult, ListedResource, ListedResourceTemplate, ListedTool, ResourceContent, ServerInfo, ToolHints,
};
