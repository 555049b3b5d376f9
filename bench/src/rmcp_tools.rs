//! The rmcp servers' shared pieces, written the way rmcp's README and macro docs show: a
//! `Parameters<T>` argument struct deriving `JsonSchema`, `#[tool_router]` on an impl block,
//! and `#[tool_handler(router = self.tool_router)]` so the router built once in `new()` is
//! kept in a field and not rebuilt per request (rmcp's default, `Self::tool_router()`, would
//! rebuild it on every call).
//!
//! Included by `src/bin/rmcp-echo.rs`, `src/bin/rmcp-50.rs` and `src/bin/rmcp-http.rs` with
//! `#[path]`.

/// The one argument every bench tool takes.
#[derive(Debug, serde::Deserialize, rmcp::schemars::JsonSchema)]
pub(crate) struct EchoArgs {
    /// The text to send back.
    pub(crate) text: String,
}

/// Serve `service` over this process's stdin and stdout until the client closes stdin.
#[allow(dead_code, reason = "the HTTP server includes this file for `EchoArgs` alone")]
pub(crate) async fn serve<S: rmcp::ServerHandler>(service: S) -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::ServiceExt as _;
    let running = service.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
