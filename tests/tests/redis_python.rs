//! The Python SDK 2.3.0 client in legacy mode (`tests/peers/clients/py_http_client.py`: the
//! `initialize` handshake at 2025-11-25, then every POST with its `Mcp-Session-Id`; its GET
//! stream; good calls, the exact error texts, progress, concurrent slow calls, a 401 without
//! the token) through a proxy that sends each HTTP request to the next of two toolwire
//! replicas in turn. The replicas share one real Redis (`RedisSessionStore`,
//! `RedisEventStore`, `RedisFanout`), so every session the client makes is served by both:
//! the test shows from the proxy's counts that each replica took requests naming a session.

mod peer_support;

use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use peer_support::{peer, run_bounded};
use toolwire::http::{Auth, BearerToken, HttpConfig, mcp_router};
use toolwire::redis::{RedisEventStore, RedisFanout, RedisSessionStore};
use toolwire::server::Exposure;
use toolwire::{Server, ServerOptions};
use toolwire_tests::redis::RedisServer;

/// Each request to the next backend in turn; what it counted.
struct RoundRobin {
    backends: Vec<SocketAddr>,
    next: AtomicUsize,
    client: reqwest::Client,
    /// Requests naming a session (`Mcp-Session-Id`), per backend.
    with_session: Vec<AtomicUsize>,
}

async fn forward(State(proxy): State<Arc<RoundRobin>>, request: Request) -> Response {
    let i = proxy.next.fetch_add(1, Ordering::SeqCst) % proxy.backends.len();
    let (parts, body) = request.into_parts();
    if parts.headers.contains_key("mcp-session-id") {
        proxy.with_session[i].fetch_add(1, Ordering::SeqCst);
    }
    let Ok(body) = axum::body::to_bytes(body, 16 << 20).await else {
        return (StatusCode::BAD_REQUEST, "proxy: the body could not be read").into_response();
    };
    let path = parts.uri.path_and_query().map_or("/mcp", |p| p.as_str());
    let mut headers = parts.headers.clone();
    for hop in [header::HOST, header::CONNECTION, header::CONTENT_LENGTH, header::TRANSFER_ENCODING] {
        headers.remove(hop);
    }
    let sent = proxy
        .client
        .request(parts.method, format!("http://{}{path}", proxy.backends[i]))
        .headers(headers)
        .body(body)
        .send()
        .await;
    let answer = match sent {
        Ok(answer) => answer,
        Err(e) => return (StatusCode::BAD_GATEWAY, format!("proxy: {e}")).into_response(),
    };
    let mut response = Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        if ![header::CONNECTION, header::CONTENT_LENGTH, header::TRANSFER_ENCODING].contains(name) {
            response = response.header(name, value);
        }
    }
    // Streamed through: an SSE answer arrives event by event.
    response.body(Body::from_stream(answer.bytes_stream())).unwrap()
}

/// Serve `app` on an ephemeral loopback port.
async fn serve(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A replica of the example server's tools on the Redis at `url`, behind `token`.
async fn replica(url: &str, token: &BearerToken) -> SocketAddr {
    let registry = toolwire_examples::example_tools::registry().expect("the example tools have unique names");
    let server = Server::builder(ServerOptions::new("toolwire-example", "0.1.0"))
        .tools(registry)
        .fanout(Arc::new(RedisFanout::open(url, "py").unwrap()))
        .build();
    let config = HttpConfig::new(Auth::Bearer(token.clone()))
        .session_store(Arc::new(RedisSessionStore::open(url, "py").unwrap()))
        .event_store(Arc::new(RedisEventStore::open(url, "py").unwrap()));
    serve(mcp_router(server, Exposure::TrustedHost, config)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_legacy_client_through_two_replicas_taking_turns() {
    let redis = RedisServer::start();
    let token = BearerToken::generate();
    let backends = vec![replica(&redis.url(), &token).await, replica(&redis.url(), &token).await];
    let proxy = Arc::new(RoundRobin {
        with_session: backends.iter().map(|_| AtomicUsize::new(0)).collect(),
        backends,
        next: AtomicUsize::new(0),
        client: reqwest::Client::builder().no_proxy().build().unwrap(),
    });
    let front = serve(axum::Router::new().fallback(forward).with_state(proxy.clone())).await;

    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command
        .arg(toolwire_tests::tests_dir().join("peers/clients/py_http_client.py"))
        .args([
            "--mode",
            "legacy",
            "--url",
            &format!("http://{front}/mcp"),
            "--token-env",
            "TOOLWIRE_TEST_BEARER",
        ])
        .env("TOOLWIRE_TEST_BEARER", token.expose());
    let out = tokio::task::block_in_place(|| run_bounded(command, Duration::from_secs(120)));
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("py_http_client --mode legacy through two replicas:\n{stdout}");
    assert!(
        out.status.success(),
        "py_http_client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    for check in [
        "connect",
        "protocol_version",
        "wire_handshake",
        "echo",
        "fail",
        "progress",
        "slow_concurrent",
        "wire_json_and_sse",
    ] {
        assert!(stdout.lines().any(|l| l == format!("ok {check}")), "no `ok {check}` in:\n{stdout}");
    }
    let counts: Vec<usize> = proxy.with_session.iter().map(|c| c.load(Ordering::SeqCst)).collect();
    println!("requests naming a session, per replica: {counts:?}");
    assert!(counts.iter().all(|&n| n >= 3), "both replicas served the client's sessions: {counts:?}");
}
