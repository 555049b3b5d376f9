//! toolwire's wire layer: JSON-RPC 2.0 framing and the MCP message types, for every
//! supported protocol version, and the JSON they are written as.
//!
//! serde only, no I/O: this layer turns text into typed, borrowed messages and typed values
//! back into text. What to *do* with a message is the server's business (toolwire's
//! `server` module).
//!
//! **Use it through `toolwire`.** `toolwire::protocol` names this crate's public types
//! (`ProtocolVersion`, `RequestId`, `RpcError`, `Outbound`, the `wire` shapes, …), and that
//! is their stable path. The modules marked hidden here (the scans, the hand writers, the
//! locks and name tables below them) are toolwire's internals, public only so that toolwire
//! can use them from another crate: they follow toolwire's needs, not semver.
//!
//! **Why a crate of its own.** A user's first build compiles toolwire after all of its
//! dependencies, and toolwire's own compile then runs alone, one core busy. Out of toolwire,
//! this layer compiles while the cores are still shared with the last dependencies, and
//! toolwire's own compile is 0.85 s shorter (bench/findings.md, session 30); `serde_core`
//! splits serde for the same kind of reason. Released in lockstep with toolwire (`=` version
//! requirements).
//!
//! # Modules
//!
//! The helpers every layer above uses, bottom first:
//!
//! - `sync`: locks taken over after a panic; `swar`: byte scans a word at a time;
//!   `by_name`: values kept by name in one sorted `Vec`; `base64`: the two base64 forms
//!   toolwire reads and writes; `json`: the JSON string escaper, ECMAScript numbers and
//!   canonical JSON (RFC 8785).
//! - `version`: the protocol versions and their eras.
//! - `id`: request ids, which keep their type.
//! - `envelope`: decoding one inbound message (or batch), borrowed from its text;
//!   `call_scan`: the common `tools/call` read by hand, its values found by `raw_value`.
//! - `error`: JSON-RPC error objects and codes.
//! - `outbound`: writing responses, notifications and requests.
//! - `meta`: `_meta`, `Implementation`, list params, and the modern result wrapper.
//! - `methods`: the MCP method names, one constant each (public: `toolwire::protocol::methods`).
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
//!   These use module `json`'s escaper, which is byte-for-byte serde_json's.
//! - **Everything else, derived:** a `#[derive(Serialize)]` struct with borrowed fields
//!   (`&str`, `Option<&str>`), pre-serialised parts as `&RawValue`, and
//!   `skip_serializing_if = "Option::is_none"` for optional members. Field order is wire
//!   order. A modern result is the body inside
//!   `ModernResult`, which puts `_meta` and `resultType` first. The
//!   lifecycle answers, `capabilities`, the -32022 `data`, `serverInfo`, the advertised tool
//!   and the `tools/call` result are written this way.
//! - **Canonical JSON** (RFC 8785, `json::canonical_json`) for schemas and
//!   structured results, whose bytes must not depend on serde_json's map order.
//!
//! A new body is derived; write one by hand only with a benchmark that shows it matters.

#[doc(hidden)]
pub mod base64;
#[doc(hidden)]
pub mod by_name;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod swar;
#[doc(hidden)]
pub mod sync;

#[doc(hidden)]
pub mod call_scan;
#[doc(hidden)]
pub mod client_capabilities;
#[doc(hidden)]
pub mod envelope;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod id;
#[doc(hidden)]
pub mod lifecycle;
#[doc(hidden)]
pub mod logging;
#[doc(hidden)]
pub mod meta;
pub mod methods;
#[doc(hidden)]
pub mod notifications;
#[doc(hidden)]
pub mod outbound;
#[doc(hidden)]
pub mod param_headers;
#[doc(hidden)]
pub mod prompts;
#[doc(hidden)]
pub mod raw_value;
#[doc(hidden)]
pub mod resources;
#[doc(hidden)]
pub mod rfc3339;
#[doc(hidden)]
pub mod tools;
#[doc(hidden)]
pub mod version;
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
