//! Serving a registry: the `main` that `serve_registry!` expands to, and (feature `http`)
//! [`serve_registry`](fn@crate::serve_registry), the spec an agent CLI is handed.
//!
//! - `cli`: the `main` that `serve_registry!` expands to. Always built: a tools-only stdio
//!   server needs it; its `--http` flag exists only with the `http` feature.
//! - `spec` (feature `http`): [`McpServerSpec`] and [`serve_registry`], its lifecycle.
//! - `config` (feature `http`): the Claude Code and Codex projections, and the 0600 file.
//! - `options` (feature `http`): [`ServeOptions`].
//!
//! The spec lives behind `http` as a whole, its stdio projection included: it is the
//! agent-CLI side of the loopback HTTP server (its default transport), and its config file's
//! private directory is named with the same CSPRNG as the token.

pub(crate) mod cli;
#[cfg(feature = "http")]
mod config;
#[cfg(feature = "http")]
mod options;
#[cfg(feature = "http")]
mod spec;

#[cfg(feature = "http")]
pub use options::{ServeOptions, StdioCommand, TransportKind};
#[cfg(feature = "http")]
pub use spec::{CodexConfig, McpServerSpec, SpecError, serve_registry};
// The generated bearer token lives with the HTTP transport that checks it.
#[cfg(feature = "http")]
pub use crate::transport::http::BearerToken;
