//! What a request is read by before it is routed: `names` (the MCP header names, made once),
//! `heads` (the headers the transport reads, found in one pass), `peek` (a body's shape:
//! request or not, its id, method and tool), `params` (`Mcp-Param-*` headers checked against
//! the arguments), and `inbound` (the media types, the body read whole within the limit, the
//! era's headers; and a body a request is answered without, read and discarded).

pub(super) mod heads;
pub(super) mod inbound;
pub(super) mod names;
pub(super) mod params;
pub(crate) mod peek;
