//! JSON-RPC 2.0 framing and the MCP message types: the crate `toolwire-protocol`, whose
//! public items toolwire names here.
//!
//! That crate is toolwire's wire layer (serde only, no I/O): it turns text into typed,
//! borrowed messages and typed values back into text. It is a crate of its own so that a
//! user's first build compiles it beside toolwire's last dependencies instead of inside
//! toolwire's own compile, the one unit that then runs alone (bench/findings.md, session
//! 30). Its other modules are toolwire's internals, public there only for toolwire to use:
//! they are not part of toolwire's API.

pub use toolwire_protocol::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, ClientCapabilities, ClientCapability, Era, Implementation,
    LoggingLevel, Outbound, OutboundKind, PROTOCOL_VERSION_KEY, ProtocolVersion, RequestId, RpcError,
    SERVER_INFO_KEY, code, methods, negotiate_legacy, wire,
};
pub(crate) use toolwire_protocol::{
    envelope, lifecycle, logging, meta, notifications, outbound, prompts, resources, rfc3339, tools,
};
// SEP-2243's `x-mcp-header` rules: the HTTP server checks `Mcp-Param-*` headers, the client
// mirrors them; a build with neither has no use for them.
#[cfg(any(feature = "http", feature = "client"))]
pub(crate) use toolwire_protocol::param_headers;
