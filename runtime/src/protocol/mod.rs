//! JSON-RPC 2.0 framing and the MCP message types, for every supported protocol version.
//!
//! serde only, no I/O: this layer turns text into typed, borrowed messages and typed values
//! back into text. What to *do* with a message is the server's business (`crate::server`).
//!
//! - `version`: the protocol versions and their eras.
//! - `id`: request ids, which keep their type.
//! - `envelope`: decoding one inbound message (or batch), borrowed from its text.
//! - `error`: JSON-RPC error objects and codes.
//! - `outbound`: writing responses, notifications and requests.
//! - `meta`, `lifecycle`, `tools`, `notifications`: the MCP method params and results.
//! - `wire`: the MCP data shapes (tools, call results, content, resources, prompts) as
//!   `serde` derives, shared by client and server; its header says which style goes where.
//!
//! Decisions the spec leaves open, written down here:
//!
//! - An error response omits `id` when the request's id could not be read (malformed JSON,
//!   a `null` or float id). `null` is never sent, and is accepted when a peer sends it.
//! - Outbound bodies are built as JSON text around pre-serialised parts; a tool's schemas are
//!   its canonical bytes, copied verbatim.

pub(crate) mod envelope;
pub(crate) mod error;
pub(crate) mod id;
pub(crate) mod json;
pub(crate) mod lifecycle;
pub(crate) mod meta;
pub(crate) mod notifications;
pub(crate) mod outbound;
pub(crate) mod tools;
pub(crate) mod version;
pub mod wire;

pub use error::{RpcError, code};
pub use id::RequestId;
pub use lifecycle::negotiate_legacy;
pub use meta::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, Implementation, PROTOCOL_VERSION_KEY, SERVER_INFO_KEY,
};
pub use outbound::{Outbound, OutboundKind};
pub use version::{Era, ProtocolVersion};
