//! Shared pieces of the toolwire benchmark: the record line every measuring binary prints,
//! order statistics over samples, and a tiny top-level JSON scanner the std-only binaries
//! (the driver and the floor server) use instead of a JSON library.
//!
//! Nothing here depends on an MCP SDK, so the driver and the floor stay neutral.

pub mod json;
pub mod record;
pub mod stats;
