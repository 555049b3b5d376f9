//! OpenTelemetry on the interceptor seam (feature `otel`), both sides of the wire.
//!
//! - [`ServerTelemetry`], an [`Interceptor`](crate::server::Interceptor) for
//!   [`ServerBuilder::intercept`](crate::server::ServerBuilder::intercept): a `SERVER` span
//!   for every request the engine serves, continuing the trace whose W3C context the request
//!   carries in `params._meta` (`traceparent`, `tracestate`), entered around every poll of the
//!   user code it runs, so what that code sends (an adopted tool's call) is its child.
//! - [`ClientTelemetry`] (feature `client` too), a
//!   [`SendInterceptor`](crate::client::SendInterceptor) for
//!   [`ClientOptions::intercept`](crate::client::ClientOptions::intercept): a `CLIENT` span
//!   for every request the client sends, a child of the current OpenTelemetry context, whose
//!   own context it writes into the request's `_meta`.
//! - [`Otlp`]: toolwire's exporter, the OpenTelemetry SDK's tracer and meter providers
//!   sending OTLP over HTTP/protobuf, installed as the global ones, flushed when the
//!   [`OtlpGuard`] drops.
//!
//! # What is recorded
//!
//! Spans follow the OpenTelemetry semantic conventions for MCP (status: development): named
//! `{mcp.method.name} {target}`, the target being the tool or the prompt (`tools/call
//! search`), else the method alone (a resource's URI is an attribute, never in the name);
//! kind `SERVER` for a request served, `CLIENT` for one sent. Attributes:
//!
//! | attribute | when |
//! | --- | --- |
//! | `mcp.method.name` | always |
//! | `jsonrpc.request.id` | always (a string id as it is, a number in decimal) |
//! | `mcp.protocol.version` | when known (a legacy session's negotiated version, a 2026-07-28 request's) |
//! | `mcp.session.id` | a served request in a legacy HTTP session |
//! | `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name` | `tools/call` |
//! | `gen_ai.prompt.name` | `prompts/get` |
//! | `mcp.resource.uri` | `resources/read`, `resources/subscribe`, `resources/unsubscribe` |
//! | `network.transport` = `tcp` | a served request that came over HTTP |
//! | `error.type` | a JSON-RPC error (its code, e.g. `-32602`), a tool's error result (`tool_error`), a request never answered because the client (or, sent, its caller) gave up (`cancelled`), a sent one that failed otherwise without an answer (`_OTHER`) |
//! | `rpc.response.status_code` | a JSON-RPC error: its code |
//!
//! A span with an `error.type` has status `Error` (with the JSON-RPC message, or the
//! client's reason). Metrics, each with `mcp.method.name`, `gen_ai.tool.name` and
//! `error.type` as they apply:
//!
//! | instrument | kind | unit |
//! | --- | --- | --- |
//! | `mcp.server.operation.duration`, `mcp.client.operation.duration` (semantic conventions) | histogram | `s` |
//! | `toolwire.server.requests`, `toolwire.client.requests` | counter | `{request}` |
//! | `toolwire.server.active_requests`, `toolwire.client.active_requests` | up-down counter | `{request}` |
//!
//! # Trace context in `_meta`
//!
//! As the Python SDK does (SEP-414): a request's `params._meta` carries `traceparent` and,
//! when the span has one, `tracestate`, in W3C Trace Context form. A served request whose
//! `_meta` has no valid `traceparent` is parented on the current context instead (a root
//! span, for a request read from a transport).
//!
//! What the Python SDK 2.3.0 does, read in its source: its client injects with the global
//! propagator into `_meta` inside a `CLIENT` span named `MCP send {method} {target}`, and its
//! server's middleware extracts from `_meta` with the global propagator, falling back to the
//! ambient context when there is no valid `traceparent`, as here. Its default propagator is
//! W3C Trace Context plus Baggage, so a `baggage` member may come too: toolwire neither reads
//! nor writes it.
//!
//! # Where the context reaches, and where it does not
//!
//! The served span's context is current while the request's user code runs
//! ([`Watch::enter`](crate::server::Watch::enter)), on whichever thread runs it: in an
//! `async fn` tool's body, in a sync body (in place, or on the thread it is handed to), in a
//! `#[tool(local)]` body on its local thread, in an adopted tool's call, and so in every
//! request those send through a client with [`ClientTelemetry`]. Not in a call that became a
//! task (the tasks extension): its body runs on after the request's span ended.
//!
//! # Example
//!
//! ```no_run
//! use toolwire::otel::{Otlp, ServerTelemetry};
//! use toolwire::{Server, ServerOptions, ToolRegistry};
//!
//! # fn main() -> Result<(), toolwire::otel::OtelError> {
//! // OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, else http://127.0.0.1:4318; flushed on drop.
//! let _otlp = Otlp::new("my-server").install()?;
//! let server = Server::builder(ServerOptions::new("my-server", "1.0.0"))
//!     .tools(ToolRegistry::new())
//!     .intercept(ServerTelemetry::new())
//!     .build();
//! # let _ = server;
//! # Ok(())
//! # }
//! ```

mod carrier;
#[cfg(feature = "client")]
mod client;
mod otlp;
mod server;

#[cfg(feature = "client")]
pub use client::ClientTelemetry;
pub use otlp::{OtelError, Otlp, OtlpGuard};
pub use server::ServerTelemetry;
