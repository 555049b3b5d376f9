//! Transports: framing only, no tool logic. Each one turns its byte stream into messages for
//! a [`Session`](crate::server::Session) and writes what the session's sink is handed.
//!
//! - [`stdio`]: one JSON message per line on stdin/stdout.
//! - `http` (feature `http`): streamable HTTP at `/mcp`, on axum.

#[cfg(feature = "http")]
pub mod http;
pub mod stdio;
