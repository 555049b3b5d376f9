//! toolwire's own listener, for `McpServerSpec` and the `--http` main: `accept` (the accept
//! loop: hyper's HTTP/1 connections under a header-read timeout, an idle timeout and a
//! connection cap), `woken` (a connection's rarely-ready branches, polled only when they
//! wake), `head_scan` (whether a request head names both `Content-Length` and
//! `Transfer-Encoding`, read from the socket's bytes) and `direct` (its `POST /mcp`
//! answered without the router). An app that mounts `mcp_router` itself uses none of this.

pub(super) mod accept;
pub(super) mod direct;
pub(crate) mod head_scan;
pub(super) mod woken;
