//! The MCP header names the transport reads and writes, made once: a lookup by a string
//! (`headers.get("mcp-session-id")`) parses and lower-cases the name on every call, a few
//! hundred instructions a request for each. The headers a request is routed by are found in
//! one pass instead (module `heads`), by the names it matches.

use axum::http::HeaderName;

/// `Mcp-Session-Id`: a legacy session's id.
pub(crate) const MCP_SESSION_ID: HeaderName = HeaderName::from_static(SESSION_ID);
/// The MCP header names as a `HeaderMap` holds them (lower case): `heads` matches on these.
pub(super) const SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version`: the version a request is sent in.
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method` (2026-07-28): the body's method, for routing.
pub(super) const METHOD: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28): the tool, prompt or resource the body names.
pub(super) const NAME: &str = "mcp-name";
/// `Last-Event-ID`: where a resumed SSE stream picks up.
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
