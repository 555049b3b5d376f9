//! The MCP header names the transport reads and writes, made once: a lookup by a string
//! (`headers.get("mcp-session-id")`) parses and lower-cases the name on every call, a few
//! hundred instructions a request for each. The headers a request is routed by are found in
//! one pass instead (module `heads`), by the names it matches.

use axum::http::HeaderName;

/// `Mcp-Session-Id`: a legacy session's id.
pub(super) const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `Last-Event-ID`: where a resumed SSE stream picks up.
pub(super) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
