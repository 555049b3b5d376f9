//! The HTTP floor: a hand-written axum echo with no MCP SDK, JSON at `/json` and SSE at
//! `/sse`, in one binary, with `TCP_NODELAY` like toolwire's server.
//!
//! Both answer a `tools/call` the way an MCP server would (the `text` argument's JSON string
//! token copied back, found with the bench's top-level scanner, no JSON library); `/sse`
//! first sends the progress notification `echo_progress` sends, for the request's
//! `progressToken`, then the result, as two `message` events. No auth, no sessions, no
//! header checks: what axum and hyper cost for the same bytes. See `http_args.rs`.

use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

use toolwire_bench::json;

#[path = "../http_args.rs"]
mod http_args;

fn result(body: &[u8]) -> Vec<u8> {
    let id = json::top_level(body, "id").unwrap_or(b"null");
    let text = json::path(body, &["params", "arguments", "text"]).unwrap_or(b"\"\"");
    let mut out = Vec::with_capacity(128 + text.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id);
    out.extend_from_slice(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
    out.extend_from_slice(text);
    out.extend_from_slice(b"}],\"isError\":false}}");
    out
}

async fn json_echo(body: Bytes) -> Response {
    let mut r = result(&body).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

async fn sse_echo(body: Bytes) -> Response {
    let token = json::path(&body, &["params", "_meta", "progressToken"]).unwrap_or(b"0");
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(
        b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":",
    );
    out.extend_from_slice(token);
    out.extend_from_slice(b",\"progress\":1,\"total\":1}}\n\nevent: message\ndata: ");
    out.extend_from_slice(&result(&body));
    out.extend_from_slice(b"\n\n");
    let mut r = out.into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let _ = http_args::ServerArgs::from_env();
    let router = axum::Router::new().route("/json", post(json_echo)).route("/sse", post(sse_echo));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    // The bench appends the path (`/json` or `/sse`) to this base.
    let url = format!("http://{}", listener.local_addr()?);
    http_args::announce(&url, None);
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).with_graceful_shutdown(http_args::stdin_closed()).await?;
    Ok(())
}
