//! JSON-RPC 2.0 framing and the MCP message types, for every supported protocol version.
//!
//! serde only, no I/O: this layer turns text into typed, borrowed messages and typed values
//! back into text. What to *do* with a message is the server's business (`crate::server`).
//!
//! - `version`: the protocol versions and their eras.
//! - `id`: request ids, which keep their type.
//! - `envelope`: decoding one inbound message (or batch), borrowed from its text;
//!   `call_scan`: the common `tools/call` read by hand, its values found by `raw_value`.
//! - `error`: JSON-RPC error objects and codes.
//! - `outbound`: writing responses, notifications and requests.
//! - `meta`: `_meta`, `Implementation`, list params, and the modern result wrapper.
//! - `lifecycle`, `tools`, `notifications`: the MCP method params and results.
//! - `logging`: log levels, `logging/setLevel` and `notifications/message`;
//!   `client_capabilities`: what a client said it can be asked for.
//! - `wire`: the MCP data shapes (tools, call results, content, resources, prompts) as
//!   `serde` derives, shared by client and server; its header says which style goes where.
//!
//! Decisions the spec leaves open, written down here:
//!
//! - An error response omits `id` when the request's id could not be read (malformed JSON,
//!   a `null` or float id). `null` is never sent, and is accepted when a peer sends it.
//! - A tool's schemas are its canonical bytes, copied verbatim.
//!
//! This layer imports nothing above it (no `tool`, no `context`): the engine writes what is
//! made of their types (the advertised tool, the call result) with this layer's pieces.
//!
//! # How JSON is written
//!
//! One rule, by path:
//!
//! - **Hot paths, by hand:** the JSON-RPC envelope ([`Outbound`] and its error object: a
//!   few string pushes around a body that is already text), the `tools/list` pages
//!   (pre-serialised once, copied per request) and the `notifications/progress` params
//!   (numbers as ECMAScript writes them).
//!   These use `crate::json`'s escaper, which is byte-for-byte serde_json's.
//! - **Everything else, derived:** a `#[derive(Serialize)]` struct with borrowed fields
//!   (`&str`, `Option<&str>`), pre-serialised parts as `&RawValue`, and
//!   `skip_serializing_if = "Option::is_none"` for optional members. Field order is wire
//!   order. A modern result is the body inside
//!   `ModernResult`, which puts `_meta` and `resultType` first. The
//!   lifecycle answers, `capabilities`, the -32022 `data`, `serverInfo`, the advertised tool
//!   and the `tools/call` result are written this way.
//! - **Canonical JSON** (RFC 8785, `crate::json::canonical_json`) for schemas and
//!   structured results, whose bytes must not depend on serde_json's map order.
//!
//! A new body is derived; write one by hand only with a benchmark that shows it matters.

pub(crate) mod call_scan;
pub(crate) mod client_capabilities;
pub(crate) mod envelope;
pub(crate) mod error;
pub(crate) mod id;
pub(crate) mod lifecycle;
pub(crate) mod logging;
pub(crate) mod meta;
pub(crate) mod notifications;
pub(crate) mod outbound;
pub(crate) mod prompts;
pub(crate) mod raw_value;
pub(crate) mod resources;
pub(crate) mod tools;
pub(crate) mod version;
pub mod wire;

pub use client_capabilities::{ClientCapabilities, ClientCapability};
pub use error::{RpcError, code};
pub use id::RequestId;
pub use lifecycle::negotiate_legacy;
pub use logging::LoggingLevel;
pub use meta::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, Implementation, PROTOCOL_VERSION_KEY, SERVER_INFO_KEY,
};
pub use outbound::{Outbound, OutboundKind};
pub use version::{Era, ProtocolVersion};
