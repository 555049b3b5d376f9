//! The spec an agent CLI is handed (feature `http`): [`serve_registry`] serves a built
//! [`Server`](crate::Server) and returns an [`McpServerSpec`] that is complete (URL, token,
//! config file, qualified names) before anything serves.
//!
//! - `lifecycle`: [`McpServerSpec`] and [`serve_registry`]: bind, start, stop.
//! - `config`: the Claude Code and Codex projections, and the 0600 file.
//! - `options`: [`SpecOptions`]: the transport, the address, and the endpoint's
//!   [`HttpConfig`](crate::http::HttpConfig), whose `Auth` it honours.
//!
//! The spec lives behind `http` as a whole, its stdio projection included: it is the
//! agent-CLI side of the loopback HTTP server (its default transport), and its config file's
//! private directory is named with the same CSPRNG as the token.

mod config;
mod lifecycle;
mod options;

pub use crate::transport::http::BearerToken;
pub use lifecycle::{CodexConfig, McpServerSpec, SpecError, serve_registry};
pub use options::{SpecOptions, StdioCommand, TransportKind};
