//! The Streamable HTTP transport (placeholder until it lands).

use std::sync::Arc;

use tokio::sync::mpsc;

use super::conn::{Conn, Out};
use super::error::ClientError;
use super::options::{ClientOptions, HttpServer};

/// A Streamable HTTP connection.
pub(crate) struct HttpLink;

impl HttpLink {
    /// Start serving `conn` over HTTP.
    pub(crate) fn start(
        _cfg: &HttpServer,
        conn: &Arc<Conn>,
        _outbox: mpsc::UnboundedReceiver<Out>,
        _options: &ClientOptions,
    ) -> Result<HttpLink, ClientError> {
        Err(ClientError::Config { server: conn.server.clone(), problem: "HTTP is not built yet".into() })
    }

    /// Record the negotiated version for the `MCP-Protocol-Version` header.
    pub(crate) fn set_protocol_version(&self, _version: &str) {}

    /// End the session.
    pub(crate) async fn close(&self) {}
}
