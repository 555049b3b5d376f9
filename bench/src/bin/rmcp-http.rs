//! rmcp's streamable HTTP server for the HTTP bench, written as rmcp's docs and examples
//! show: `echo(text)` and `echo_progress(text)` (one progress notification, then the text)
//! on a `#[tool_router]` kept in a field, a `StreamableHttpService` with the
//! `LocalSessionManager`, nested at `/mcp` in an axum router and served by `axum::serve`.
//!
//! `--mode json`: `legacy_session_mode: false, json_response: true`; `--mode sse`:
//! `legacy_session_mode: false` (rmcp's default framing, SSE); `--mode session`: rmcp's
//! defaults (legacy sessions, SSE). `--nodelay` sets `TCP_NODELAY` on accepted sockets,
//! which rmcp's examples and `axum::serve` leave off. See `http_args.rs`.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};

#[path = "../rmcp_tools.rs"]
mod rmcp_tools;
use rmcp_tools::EchoArgs;

#[path = "../http_args.rs"]
mod http_args;
use http_args::{Mode, ServerArgs};

/// The server: its router is built once and kept.
#[derive(Clone)]
struct Echo {
    tool_router: ToolRouter<Echo>,
}

#[tool_router]
impl Echo {
    fn new() -> Self {
        Echo { tool_router: Self::tool_router() }
    }

    /// Echo the text back.
    #[tool(description = "Echo the text back.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Report progress once, then echo the text back.
    #[tool(description = "Report progress once, then echo the text back.")]
    async fn echo_progress(
        &self,
        Parameters(EchoArgs { text }): Parameters<EchoArgs>,
        context: RequestContext<RoleServer>,
    ) -> String {
        if let Some(token) = context.meta.get_progress_token() {
            let _ = context
                .peer
                .notify_progress(ProgressNotificationParam::new(token, 1.0).with_total(1.0))
                .await;
        }
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = ServerArgs::from_env();
    // Non-exhaustive: rmcp's defaults, then the fields each mode changes.
    let mut config = StreamableHttpServerConfig::default();
    match args.mode {
        Mode::Json => {
            config.legacy_session_mode = false;
            config.json_response = true;
        }
        Mode::Sse => config.legacy_session_mode = false,
        Mode::Session => {}
    }
    let mut sessions = LocalSessionManager::default();
    if let Some(ttl) = args.session_ttl {
        sessions.session_config.keep_alive = Some(ttl);
    }
    let shutdown = config.cancellation_token.clone();
    let echo = Echo::new();
    let service = StreamableHttpService::new(move || Ok(echo.clone()), Arc::new(sessions), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    http_args::announce(&url, None);
    let stop = async move {
        http_args::stdin_closed().await;
        shutdown.cancel();
    };
    if args.nodelay {
        use axum::serve::ListenerExt as _;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).with_graceful_shutdown(stop).await?;
    } else {
        axum::serve(listener, router).with_graceful_shutdown(stop).await?;
    }
    Ok(())
}
