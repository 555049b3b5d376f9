//! A server whose every MCP request goes through tower layers (feature `tower`,
//! `ServerBuilder::layer`), for tests/tests/tower_layer.rs; its `main` is
//! `serve_registry!(server = ..)`, so it serves stdio or `--http`.
//!
//! The layers, outermost first:
//!
//! - `Ledger`, the program's own `Layer` and `Service`: it writes `<method> <name>` of every
//!   request it sees to `LAYERED_MARKS/ledger`, answers `tools/call` of `canned` (no tool)
//!   itself, and holds each `ping` 100 ms before passing it on (a request still in the layers
//!   when stdin closes);
//! - tower's `TimeoutLayer`, 1 s (`LAYERED_TIMEOUT_MS` says otherwise);
//! - tower's `LoadShedLayer` over `ConcurrencyLimitLayer(1)`: a request arriving while another
//!   is being served is shed.
//!
//! The tools: `echo`; `hold`, which takes 300 ms; `slow`, which never returns, and records
//! in `LAYERED_MARKS/<label>.cancelled` that its context was cancelled and in
//! `<label>.dropped` that its body was dropped.

use std::io::Write;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use serde_json::value::RawValue;
use toolwire::registry::RegistryError;
use toolwire::server::{McpRequest, McpResponse, Next};
use toolwire::{Context, Server, ServerOptions, tool, tools};
use tower::Service;

/// `LAYERED_MARKS/<name>`, when the directory is set.
fn mark(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("LAYERED_MARKS").map(|dir| std::path::Path::new(&dir).join(name))
}

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// Take 300 ms, then say so.
#[tool(read_only)]
async fn hold() -> String {
    tokio::time::sleep(Duration::from_millis(300)).await;
    "held".to_owned()
}

/// Records that the body holding it was dropped.
struct DropMark(String);

impl Drop for DropMark {
    fn drop(&mut self) {
        if let Some(path) = mark(&format!("{}.dropped", self.0)) {
            let _ = std::fs::write(path, "dropped");
        }
    }
}

/// Never return; say, under `label`, when the context is cancelled and when the body is
/// dropped.
#[tool(read_only)]
async fn slow(ctx: &Context, label: String) -> String {
    let _mark = DropMark(label.clone());
    let ctx = ctx.clone();
    tokio::spawn(async move {
        ctx.cancelled().await;
        if let Some(path) = mark(&format!("{label}.cancelled")) {
            let _ = std::fs::write(path, "cancelled");
        }
    });
    std::future::pending::<()>().await;
    "never".to_owned()
}

/// The program's own layer: [`Ledgered`] around what it wraps.
#[derive(Clone)]
struct Ledger;

impl tower::Layer<Next> for Ledger {
    type Service = Ledgered;

    fn layer(&self, next: Next) -> Ledgered {
        Ledgered { next }
    }
}

/// Writes down each request it sees, and answers `canned` itself.
#[derive(Clone)]
struct Ledgered {
    next: Next,
}

impl Service<McpRequest> for Ledgered {
    type Response = McpResponse;
    type Error = std::convert::Infallible;
    type Future = toolwire::server::NextFuture;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), Self::Error>> {
        self.next.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if let Some(path) = mark("ledger")
            && let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path)
        {
            let _ = writeln!(file, "{} {}", request.method(), request.name().unwrap_or("-"));
        }
        if request.method() == "tools/call" && request.name() == Some("canned") {
            let text = format!(
                "answered by the ledger layer for {} (client {})",
                request.name().unwrap_or("?"),
                request.client_name().unwrap_or("unknown"),
            );
            let body = serde_json::json!({"content": [{"type": "text", "text": text}], "isError": false});
            let body = RawValue::from_string(body.to_string()).expect("JSON");
            return Box::pin(std::future::ready(Ok(McpResponse::result(body))));
        }
        if request.method() == "ping" {
            // The readied service goes with the request (tower's rule); a clone stays.
            let fresh = self.next.clone();
            let mut next = std::mem::replace(&mut self.next, fresh);
            return Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                next.call(request).await
            });
        }
        self.next.call(request)
    }
}

/// The timeout layer's limit: `LAYERED_TIMEOUT_MS`, else 1 s.
fn timeout() -> Duration {
    let ms = std::env::var("LAYERED_TIMEOUT_MS").ok().and_then(|ms| ms.parse().ok());
    Duration::from_millis(ms.unwrap_or(1000))
}

fn build() -> Result<Server, RegistryError> {
    Ok(Server::builder(ServerOptions::new("layered", "1.0.0"))
        .tools(tools![echo, hold, slow]?)
        .layer(tower::limit::ConcurrencyLimitLayer::new(1))
        .layer(tower::load_shed::LoadShedLayer::new())
        .layer(tower::timeout::TimeoutLayer::new(timeout()))
        .layer(Ledger)
        .build())
}

fn main() {
    toolwire::serve_registry!(server = build());
}
