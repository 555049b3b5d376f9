//! The endpoint as an axum `Router` mounted into an existing app, and the legacy session
//! table's cap and idle TTL, on real sockets.

use std::net::SocketAddr;
use std::time::Duration;

use toolwire::http::{Auth, HttpConfig, mcp_router};
use toolwire::{Server, ServerOptions, tool, tools};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;

/// Serve `app` on an ephemeral loopback port.
async fn serve(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn server() -> Server {
    Server::new(tools![echo].unwrap(), ServerOptions::new("embedded", "1.0.0"))
}

async fn post(addr: SocketAddr, session: Option<&str>, body: &str) -> RawResponse {
    let mut h = mcp_headers(addr);
    if let Some(id) = session {
        h.push(("Mcp-Session-Id".into(), id.into()));
        h.push(("MCP-Protocol-Version".into(), "2025-06-18".into()));
    }
    let body = body.to_owned();
    tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &h, &body)).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_router_mounts_beside_an_existing_apps_routes() {
    let app = axum::Router::new()
        .route("/healthz", axum::routing::get(|| async { "ok" }))
        .merge(mcp_router(server(), HttpConfig::new(Auth::None)));
    let addr = serve(app).await;
    let h = vec![("Host".to_owned(), addr.to_string())];
    let health = tokio::task::spawn_blocking(move || request(addr, "GET", "/healthz", &h, "")).await.unwrap();
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
    let init = post(addr, None, INIT).await;
    assert_eq!(init.status, 200);
    let id = init.header("mcp-session-id").unwrap().to_owned();
    let r = post(addr, Some(&id), CALL).await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "hi");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_session_table_refuses_new_sessions_with_503() {
    let config = HttpConfig::new(Auth::None).max_sessions(2);
    let addr = serve(mcp_router(server(), config)).await;
    let a = post(addr, None, INIT).await;
    let b = post(addr, None, INIT).await;
    assert_eq!((a.status, b.status), (200, 200));
    let c = post(addr, None, INIT).await;
    assert_eq!(c.status, 503);
    assert_eq!(
        c.json()["error"]["message"],
        "service unavailable: 2 sessions are open, the most this server keeps"
    );
    // Ending one makes room; the live one is untouched.
    let a_id = a.header("mcp-session-id").unwrap().to_owned();
    let mut h = mcp_headers(addr);
    h.push(("Mcp-Session-Id".into(), a_id));
    let d = tokio::task::spawn_blocking(move || request(addr, "DELETE", "/mcp", &h, "")).await.unwrap();
    assert_eq!(d.status, 204);
    assert_eq!(post(addr, None, INIT).await.status, 200);
    let b_id = b.header("mcp-session-id").unwrap().to_owned();
    assert_eq!(post(addr, Some(&b_id), CALL).await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_session_expires_and_is_then_unknown() {
    let config = HttpConfig::new(Auth::None).session_idle_ttl(Duration::from_millis(300));
    let addr = serve(mcp_router(server(), config)).await;
    let init = post(addr, None, INIT).await;
    let id = init.header("mcp-session-id").unwrap().to_owned();
    // Used within the TTL, it lives on (each use resets the clock).
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(post(addr, Some(&id), CALL).await.status, 200);
    tokio::time::sleep(Duration::from_millis(800)).await;
    let r = post(addr, Some(&id), CALL).await;
    assert_eq!(r.status, 404);
    assert!(
        r.json()["error"]["message"].as_str().unwrap().starts_with("not found: no such session"),
        "{}",
        r.body
    );
}
