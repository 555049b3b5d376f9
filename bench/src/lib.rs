//! Shared pieces of the toolwire benchmark: the record line every measuring binary prints,
//! order statistics over samples, a child process's resident set, a one-shot HTTP/1.1
//! client, and a tiny top-level JSON scanner the std-only binaries (the drivers and the
//! floor servers) use instead of a JSON library.
//!
//! Nothing here depends on an MCP SDK, so the driver and the floor stay neutral.

pub mod http;
pub mod json;
pub mod proc;
pub mod record;
pub mod stats;
