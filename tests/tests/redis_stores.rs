//! Replicas sharing one real Redis (`redis-server` started per test by `tests/src/redis.rs`):
//! two toolwire HTTP endpoints (`mcp_router` on two loopback ports) given a
//! `RedisSessionStore`, a `RedisEventStore` and a `RedisFanout` made from the same URL and
//! prefix, driven over raw sockets:
//!
//! - a legacy session initialized on A serves calls on B with its version, client,
//!   capabilities and log level (a `logging/setLevel` on B reaches A's copy too); a `DELETE`
//!   on B ends it on A; the idle TTL holds in the store (a session kept alive on B is
//!   re-made on A after A let its copy go, and is gone everywhere once idle);
//! - a POST's answer cut on A resumes on B with `Last-Event-ID`, missing no event;
//! - a `resources/subscribe` on A receives the update raised on B, and a live change on B
//!   reaches A's GET stream as `notifications/tools/list_changed`;
//! - a session is bound to its principal (two bearer tokens): another principal's request
//!   naming it is answered exactly as for an unknown id, in memory and through the store;
//! - Redis stopped: the exact 503, in bounded time, modern requests unaffected; Redis
//!   back: service resumes;
//! - an `input_required` round started on A finishes on B (the same `request_state_key`);
//! - the stores' contracts: TTL expiry, trimming, retention, key-prefix isolation.
//!
//! The Python SDK 2.3.0 client runs through nginx and three replicas in `cluster.rs`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolwire::http::{
    Auth, Authenticate, BoxFuture, EventStore, HttpConfig, MemorySessionStore, Refusal, ReplayError,
    STORE_UNAVAILABLE, SessionState, SessionStore, StoredEvent, mcp_router,
};
use toolwire::principal::Principal;
use toolwire::protocol::LoggingLevel;
use toolwire::redis::{RedisEventStore, RedisFanout, RedisSessionStore};
use toolwire::{Context, Server, ServerOptions, resource, resources, tool, tools};
use toolwire_tests::http::{RawResponse, SseEvent, mcp_headers, request, sse_events_in};
use toolwire_tests::redis::RedisServer;

/// What the session settled, as the call sees it; logs a debug line first.
#[tool(read_only)]
async fn whoami(ctx: &Context) -> String {
    ctx.log(LoggingLevel::Debug, json!("a debug line"));
    let caps = ctx.client_capabilities().unwrap_or_default();
    let peer = ctx.peer();
    json!({
        "version": peer.protocol_version, "client": peer.name, "sampling": caps.sampling,
        "roots": caps.roots, "subject": ctx.principal().subject(),
    })
    .to_string()
}

/// Log `count` steps, waiting `gap_ms` before each, then answer.
#[tool(read_only)]
async fn steps(count: u32, gap_ms: u64, ctx: &Context) -> String {
    for step in 1..=count {
        tokio::time::sleep(Duration::from_millis(gap_ms)).await;
        ctx.log(LoggingLevel::Info, json!({ "step": step }));
    }
    format!("{count} steps")
}

/// Say hello (added to a live server while it serves).
#[tool(read_only)]
fn hello() -> &'static str {
    "hello"
}

/// A document subscribers watch.
#[resource(uri = "test://doc", name = "doc", mime_type = "text/plain")]
fn doc() -> &'static str {
    "doc"
}

/// A server of `whoami`, `steps` and `doc`, live, publishing on `fanout`.
fn server(fanout: Option<Arc<dyn toolwire::server::Fanout>>) -> Server {
    let mut builder = Server::builder(ServerOptions::new("replica", "1.0.0"))
        .tools(tools![whoami, steps].unwrap())
        .resources(resources![doc].unwrap())
        .live();
    if let Some(fanout) = fanout {
        builder = builder.fanout(fanout);
    }
    builder.build()
}

/// `config` given the Redis stores at `url` under `prefix`.
fn shared(config: HttpConfig, url: &str, prefix: &str) -> HttpConfig {
    config
        .session_store(Arc::new(RedisSessionStore::open(url, prefix).unwrap()))
        .event_store(Arc::new(RedisEventStore::open(url, prefix).unwrap()))
}

/// Serve `server` with `config` on an ephemeral loopback port.
async fn serve(server: Server, config: HttpConfig) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = mcp_router(server, config);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// Two replicas sharing the Redis at `url` (stores and fan-out), each with `config`.
async fn replicas(
    url: &str,
    prefix: &str,
    config: impl Fn() -> HttpConfig,
) -> ((SocketAddr, Server), (SocketAddr, Server)) {
    let mut out = Vec::new();
    for _ in 0..2 {
        let server = server(Some(Arc::new(RedisFanout::open(url, prefix).unwrap())));
        let addr = serve(server.clone(), shared(config(), url, prefix)).await;
        out.push((addr, server));
    }
    let b = out.pop().unwrap();
    (out.pop().unwrap(), b)
}

fn init(version: &str, capabilities: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "raw", "version": "7.0"}}})
    .to_string()
}

fn call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

async fn blocking(addr: SocketAddr, method: &str, headers: Vec<(String, String)>, body: &str) -> RawResponse {
    let (method, body) = (method.to_owned(), body.to_owned());
    tokio::task::spawn_blocking(move || request(addr, &method, "/mcp", &headers, &body)).await.unwrap()
}

/// A POST's headers, with a session id and a bearer token when given.
fn headers(addr: SocketAddr, session: Option<&str>, token: Option<&str>) -> Vec<(String, String)> {
    let mut h = mcp_headers(addr);
    if let Some(session) = session {
        h.push(("Mcp-Session-Id".into(), session.into()));
        h.push(("MCP-Protocol-Version".into(), "2025-06-18".into()));
    }
    if let Some(token) = token {
        h.push(("Authorization".into(), format!("Bearer {token}")));
    }
    h
}

/// A session through its handshake on `addr` (at 2025-06-18, declaring sampling and roots);
/// its id.
async fn open_session(addr: SocketAddr, token: Option<&str>) -> String {
    let r = blocking(
        addr,
        "POST",
        headers(addr, None, token),
        &init("2025-06-18", json!({"sampling": {}, "roots": {}})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.header("mcp-session-id").expect("a session id").to_owned()
}

/// The JSON-RPC messages of an answer, JSON or SSE.
fn messages(r: &RawResponse) -> Vec<Value> {
    if r.header("content-type").is_some_and(|c| c.starts_with("text/event-stream")) {
        r.sse_events()
    } else {
        vec![r.json()]
    }
}

/// The text of a call's result in `r` (the last message).
fn result_text(r: &RawResponse) -> String {
    let all = messages(r);
    let last = all.last().unwrap_or_else(|| panic!("no message in {r:?}"));
    last["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {last}")).to_owned()
}

const NO_SESSION: &str = "not found: no such session (it ended or never existed); send initialize again";

fn not_found(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"{NO_SESSION}"}}}}"#)
}

fn unavailable(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"{STORE_UNAVAILABLE}"}}}}"#)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_made_on_a_serves_calls_on_b_with_its_version_capabilities_and_log_level() {
    let redis = RedisServer::start();
    let ((a, _), (b, _)) = replicas(&redis.url(), "t1", || HttpConfig::new(Auth::None)).await;
    let sid = open_session(a, None).await;
    // The handshake's second half and the log level land on B, which re-makes the session.
    assert_eq!(blocking(b, "POST", headers(b, Some(&sid), None), INITIALIZED).await.status, 202);
    let set_level = r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#;
    let r = blocking(b, "POST", headers(b, Some(&sid), None), set_level).await;
    assert_eq!((r.status, r.body.as_str()), (200, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#));

    let expected =
        json!({"version": "2025-06-18", "client": "raw", "sampling": true, "roots": true, "subject": "host"});
    for (n, replica) in [(3, b), (4, a)] {
        // A's own copy took B's changes from the store: the debug line comes to it too.
        let r = blocking(replica, "POST", headers(replica, Some(&sid), None), &call(n, "whoami", json!({})))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let all = messages(&r);
        assert_eq!(all.len(), 2, "a debug log, then the result: {all:?}");
        assert_eq!(all[0]["method"], "notifications/message");
        assert_eq!(
            (&all[0]["params"]["level"], &all[0]["params"]["data"]),
            (&json!("debug"), &json!("a debug line"))
        );
        let got: Value = serde_json::from_str(&result_text(&r)).unwrap();
        assert_eq!(got, expected, "on {replica}");
    }
    // The store holds it under the prefix, expiring its idle TTL (10 minutes by default).
    let ttl: i64 = redis.command(&["PTTL", &format!("t1:session:{sid}")]).unwrap()[1..].parse().unwrap();
    assert!((590_000..=600_000).contains(&ttl), "{ttl}");
    let state =
        SessionState::from_json(&redis.command(&["GET", &format!("t1:session:{sid}")]).unwrap()).unwrap();
    assert_eq!((state.log_level.as_str(), state.initialized), ("debug", true));

    // DELETE on B ends it on A as well (A's copy is dropped at its next request).
    let mut delete = headers(b, Some(&sid), None);
    delete.retain(|(k, _)| k != "Content-Type");
    assert_eq!(blocking(b, "DELETE", delete, "").await.status, 204);
    let r = blocking(a, "POST", headers(a, Some(&sid), None), &call(5, "whoami", json!({}))).await;
    assert_eq!((r.status, r.body), (404, not_found(5)));
    assert_eq!(redis.command(&["EXISTS", &format!("t1:session:{sid}")]).unwrap(), ":0");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_idle_ttl_holds_in_the_store_a_session_kept_alive_on_b_is_remade_on_a() {
    let redis = RedisServer::start();
    let ttl = Duration::from_millis(900);
    let ((a, _), (b, _)) =
        replicas(&redis.url(), "t2", || HttpConfig::new(Auth::None).session_idle_ttl(ttl)).await;
    let sid = open_session(a, None).await;
    assert_eq!(blocking(a, "POST", headers(a, Some(&sid), None), INITIALIZED).await.status, 202);
    // Calls on B, 300 ms apart, keep it alive in the store past the TTL; A's copy goes idle.
    for n in 0..5 {
        let r = blocking(
            b,
            "POST",
            headers(b, Some(&sid), None),
            &call(10 + n, "steps", json!({"count": 0, "gap_ms": 0})),
        )
        .await;
        assert_eq!(result_text(&r), "0 steps");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // A let its copy go (idle 1.5 s > 0.9 s) and re-makes it from the store.
    let r = blocking(
        a,
        "POST",
        headers(a, Some(&sid), None),
        &call(20, "steps", json!({"count": 0, "gap_ms": 0})),
    )
    .await;
    assert_eq!(result_text(&r), "0 steps");
    // Idle past the TTL: gone from the store, and so from every replica.
    tokio::time::sleep(ttl + Duration::from_millis(300)).await;
    assert_eq!(redis.command(&["EXISTS", &format!("t2:session:{sid}")]).unwrap(), ":0");
    for (n, replica) in [(21, b), (22, a)] {
        let r = blocking(
            replica,
            "POST",
            headers(replica, Some(&sid), None),
            &call(n, "steps", json!({"count": 0, "gap_ms": 0})),
        )
        .await;
        assert_eq!((r.status, r.body), (404, not_found(n)));
    }
}

/// Read SSE events from `stream` until `enough` says stop or `limit` passes.
async fn read_events(
    stream: &mut TcpStream,
    limit: Duration,
    enough: impl Fn(&[SseEvent]) -> bool,
) -> Vec<SseEvent> {
    let deadline = tokio::time::Instant::now() + limit;
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let events = sse_events_in(&raw);
        if enough(&events) {
            return events;
        }
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Err(_) => return sse_events_in(&raw),
            Ok(Ok(n)) => raw.extend_from_slice(&buf[..n]),
            Ok(Err(e)) => panic!("read: {e}"),
        }
    }
}

/// Send a raw request and keep the connection to read from.
async fn open(addr: SocketAddr, method: &str, headers: &[(String, String)], body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut req = format!("{method} /mcp HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(req.as_bytes()).await.unwrap();
    stream
}

fn step_of(data: &str) -> Option<u64> {
    serde_json::from_str::<Value>(data).ok()?["params"]["data"]["step"].as_u64()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_posts_answer_cut_on_a_resumes_on_b_with_last_event_id_missing_no_event() {
    let redis = RedisServer::start();
    let ((a, _), (b, _)) = replicas(&redis.url(), "t3", || HttpConfig::new(Auth::None)).await;
    let sid = open_session(a, None).await;
    assert_eq!(blocking(a, "POST", headers(a, Some(&sid), None), INITIALIZED).await.status, 202);
    // Six steps 80 ms apart; the client reads two and goes away (a legacy call goes on).
    let mut stream =
        open(a, "POST", &headers(a, Some(&sid), None), &call(7, "steps", json!({"count": 6, "gap_ms": 80})))
            .await;
    let first = read_events(&mut stream, Duration::from_secs(5), |e| {
        e.iter().filter(|(_, d)| step_of(d).is_some()).count() >= 2
    })
    .await;
    drop(stream);
    let seen: Vec<u64> = first.iter().filter_map(|(_, d)| step_of(d)).collect();
    assert_eq!(seen, [1, 2], "{first:?}");
    let last_id = first.iter().rev().find_map(|(id, _)| id.clone()).expect("events carry ids");
    // The call ends on A meanwhile; its events are in Redis.
    tokio::time::sleep(Duration::from_millis(900)).await;

    let mut get = vec![
        ("Host".to_owned(), b.to_string()),
        ("Accept".to_owned(), "text/event-stream".to_owned()),
        ("Mcp-Session-Id".to_owned(), sid.clone()),
        ("MCP-Protocol-Version".to_owned(), "2025-06-18".to_owned()),
        ("Last-Event-ID".to_owned(), last_id.clone()),
    ];
    get.push(("Connection".to_owned(), "close".to_owned()));
    let mut resumed = open(b, "GET", &get, "").await;
    let rest = read_events(&mut resumed, Duration::from_secs(5), |e| {
        e.iter().any(|(_, d)| d.contains("\"result\""))
    })
    .await;
    let steps: Vec<u64> = rest.iter().filter_map(|(_, d)| step_of(d)).collect();
    assert_eq!(steps, [3, 4, 5, 6], "each event after {last_id} once, in order: {rest:?}");
    let answer: Value = serde_json::from_str(&rest.last().unwrap().1).unwrap();
    assert_eq!(
        (answer["id"].as_u64(), answer["result"]["content"][0]["text"].as_str()),
        (Some(7), Some("6 steps"))
    );
    // Their ids go on from where the client stopped.
    let (stream_id, seq) = last_id.rsplit_once(':').unwrap();
    let seq: u64 = seq.parse().unwrap();
    let ids: Vec<String> = rest.iter().filter_map(|(id, _)| id.clone()).collect();
    let want: Vec<String> = (1..=5).map(|n| format!("{stream_id}:{}", seq + n)).collect();
    assert_eq!(ids, want);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscription_on_a_receives_the_update_raised_on_b_and_a_live_change_on_b() {
    let redis = RedisServer::start();
    let ((a, _), (_, server_b)) = replicas(&redis.url(), "t4", || HttpConfig::new(Auth::None)).await;
    let sid = open_session(a, None).await;
    assert_eq!(blocking(a, "POST", headers(a, Some(&sid), None), INITIALIZED).await.status, 202);
    let subscribe =
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://doc"}}"#;
    assert_eq!(
        blocking(a, "POST", headers(a, Some(&sid), None), subscribe).await.body,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#
    );
    let get = [
        ("Host".to_owned(), a.to_string()),
        ("Accept".to_owned(), "text/event-stream".to_owned()),
        ("Mcp-Session-Id".to_owned(), sid.clone()),
        ("MCP-Protocol-Version".to_owned(), "2025-06-18".to_owned()),
    ];
    let mut stream = open(a, "GET", &get, "").await;
    tokio::task::block_in_place(|| redis.await_listeners("t4", 2));

    // B has no subscriber of its own: it sends none, and A's gets it through Redis. The first
    // notice is raised on a thread with no tokio runtime, as a sync tool's body would.
    let b = server_b.clone();
    assert_eq!(std::thread::spawn(move || b.notify_resource_updated("test://doc")).join().unwrap(), 0);
    assert_eq!(server_b.notify_resource_updated("test://other"), 0);
    server_b.add_tool(hello {}).unwrap();
    let got = read_events(&mut stream, Duration::from_secs(5), |e| e.len() >= 2).await;
    let mut got: Vec<Value> = got.iter().map(|(_, d)| serde_json::from_str(d).unwrap()).collect();
    // In either order: B publishes them in order, but on A the update waits for the store's
    // re-read of the session's subscriptions (a session another replica may have changed),
    // and a list change does not, so it may overtake the update. MCP orders neither.
    got.sort_by_key(|n| n["method"].as_str().map(str::to_owned));
    assert_eq!(
        got,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://doc"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}),
        ]
    );
    // Nothing else came (no echo, no update for the URI not subscribed to).
    let more = read_events(&mut stream, Duration::from_millis(400), |e| !e.is_empty()).await;
    assert_eq!(more, [], "{more:?}");
}

/// Lets in `alice-token` as alice and `bob-token` as bob.
struct TwoUsers;

impl Authenticate for TwoUsers {
    fn authenticate<'a>(
        &'a self,
        parts: &'a axum::http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(async move {
            match parts.headers.get("authorization").and_then(|v| v.to_str().ok()) {
                Some("Bearer alice-token") => Ok(Principal::new("alice")),
                Some("Bearer bob-token") => Ok(Principal::new("bob")),
                _ => Err(Refusal::Unauthenticated),
            }
        })
    }
}

/// Bob's requests naming alice's session get what an unknown id gets, on `mine` (where
/// alice made it) and on `other`; alice's still work.
async fn bound_to_alice(mine: SocketAddr, other: SocketAddr) {
    let sid = open_session(mine, Some("alice-token")).await;
    for (n, replica) in [(2, mine), (3, other)] {
        let as_bob = blocking(
            replica,
            "POST",
            headers(replica, Some(&sid), Some("bob-token")),
            &call(n, "whoami", json!({})),
        )
        .await;
        let unknown = blocking(
            replica,
            "POST",
            headers(replica, Some("no-such-id"), Some("bob-token")),
            &call(n, "whoami", json!({})),
        )
        .await;
        assert_eq!((as_bob.status, &as_bob.body), (404, &not_found(n)));
        assert_eq!((unknown.status, &unknown.body), (as_bob.status, &as_bob.body));
        let mut get = headers(replica, Some(&sid), Some("bob-token"));
        get.retain(|(k, _)| k != "Content-Type" && k != "Accept");
        get.push(("Accept".into(), "text/event-stream".into()));
        let r = blocking(replica, "GET", get, "").await;
        assert_eq!((r.status, r.json()["error"]["message"].as_str()), (404, Some(NO_SESSION)));
        let mut delete = headers(replica, Some(&sid), Some("bob-token"));
        delete.retain(|(k, _)| k != "Content-Type");
        let r = blocking(replica, "DELETE", delete, "").await;
        assert_eq!(
            (r.status, r.json()["error"]["message"].as_str()),
            (404, Some("not found: no such session (it ended or never existed)"))
        );
    }
    let r = blocking(
        other,
        "POST",
        headers(other, Some(&sid), Some("alice-token")),
        &call(4, "whoami", json!({})),
    )
    .await;
    assert_eq!(serde_json::from_str::<Value>(&result_text(&r)).unwrap()["subject"], "alice");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_bound_to_its_principal_in_memory_and_through_the_store() {
    // In memory: one endpoint, no store.
    let lone = serve(server(None), HttpConfig::new(Auth::with(TwoUsers))).await;
    bound_to_alice(lone, lone).await;
    // Two endpoints of one process sharing a MemorySessionStore.
    let store = Arc::new(MemorySessionStore::new());
    let config = || HttpConfig::new(Auth::with(TwoUsers)).session_store(store.clone());
    let (one, two) = (serve(server(None), config()).await, serve(server(None), config()).await);
    bound_to_alice(one, two).await;
    // Two replicas sharing Redis.
    let redis = RedisServer::start();
    let ((a, _), (b, _)) = replicas(&redis.url(), "t5", || HttpConfig::new(Auth::with(TwoUsers))).await;
    bound_to_alice(a, b).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn redis_down_is_the_exact_503_in_bounded_time_and_service_resumes_when_it_is_back() {
    let mut redis = RedisServer::start();
    let ((a, _), (b, _)) = replicas(&redis.url(), "t6", || HttpConfig::new(Auth::None)).await;
    let sid = open_session(a, None).await;
    assert_eq!(blocking(a, "POST", headers(a, Some(&sid), None), INITIALIZED).await.status, 202);
    tokio::task::block_in_place(|| redis.stop());

    for (n, replica) in [(2, a), (3, b)] {
        let started = Instant::now();
        let r = blocking(replica, "POST", headers(replica, Some(&sid), None), &call(n, "whoami", json!({})))
            .await;
        assert_eq!((r.status, r.body), (503, unavailable(n)));
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    }
    let r = blocking(b, "POST", headers(b, None, None), &init("2025-06-18", json!({}))).await;
    assert_eq!((r.status, r.body.as_str(), r.header("mcp-session-id")), (503, unavailable(1).as_str(), None));
    // A modern request needs no store.
    let mut modern = headers(a, None, None);
    modern.extend([
        ("MCP-Protocol-Version".into(), "2026-07-28".into()),
        ("Mcp-Method".into(), "server/discover".into()),
    ]);
    let discover = r#"{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    assert_eq!(blocking(a, "POST", modern, discover).await.status, 200);

    // Back (empty: nothing was persisted). The old session is gone; new ones work.
    tokio::task::block_in_place(|| redis.restart());
    let deadline = Instant::now() + Duration::from_secs(10);
    let sid2 = loop {
        let r = blocking(a, "POST", headers(a, None, None), &init("2025-06-18", json!({}))).await;
        if r.status == 200 {
            break r.header("mcp-session-id").unwrap().to_owned();
        }
        assert_eq!((r.status, r.body), (503, unavailable(1)));
        assert!(Instant::now() < deadline, "Redis is back, but initialize still fails");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let r = blocking(
        b,
        "POST",
        headers(b, Some(&sid2), None),
        &call(4, "steps", json!({"count": 0, "gap_ms": 0})),
    )
    .await;
    assert_eq!(result_text(&r), "0 steps");
    let r = blocking(a, "POST", headers(a, Some(&sid), None), &call(5, "whoami", json!({}))).await;
    assert_eq!((r.status, r.body), (404, not_found(5)));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_input_required_round_started_on_a_finishes_on_b_with_the_same_request_state_key() {
    let key = b"replicas share this 32-byte key!";
    let options = || ServerOptions::new("mrtr", "1.0.0").request_state_key(key);
    let serve_one = || async {
        let server = Server::new(tools![toolwire_examples::talk_tools::ask_contact].unwrap(), options());
        serve(server, HttpConfig::new(Auth::None)).await
    };
    let (a, b) = (serve_one().await, serve_one().await);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let modern = |addr: SocketAddr| {
        let mut h = mcp_headers(addr);
        h.extend([
            ("MCP-Protocol-Version".into(), "2026-07-28".into()),
            ("Mcp-Method".into(), "tools/call".into()),
            ("Mcp-Name".into(), "ask_contact".into()),
        ]);
        h
    };
    let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "ask_contact", "arguments": {"question": "Who?"}, "_meta": meta}});
    let r = blocking(a, "POST", modern(a), &first.to_string()).await;
    let result = &r.json()["result"];
    assert_eq!(result["resultType"], "input_required", "{}", r.body);
    let state = result["requestState"].as_str().unwrap().to_owned();
    let ask = result["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "ask_contact", "arguments": {"question": "Who?"}, "_meta": meta, "requestState": state,
        "inputResponses": {ask: {"action": "accept", "content": {"name": "Ada"}}}}});
    let r = blocking(b, "POST", modern(b), &retry.to_string()).await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "contact Ada (age not given)", "{}", r.body);
}

fn state(subject: &str) -> SessionState {
    SessionState::from_json(&format!(
        r#"{{"protocolVersion":"2025-11-25","logLevel":"info","initialized":true,"subject":"{subject}"}}"#
    ))
    .unwrap()
}

/// What every session store does: keep, read back, touch, remove, expire.
async fn session_store_contract(store: &dyn SessionStore) {
    let ttl = Duration::from_millis(300);
    assert_eq!(store.load("s").await.unwrap(), None);
    store.save("s", &state("alice"), ttl).await.unwrap();
    assert_eq!(store.load("s").await.unwrap(), Some(state("alice")));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(store.touch("s", ttl).await.unwrap(), Some(state("alice")));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(store.load("s").await.unwrap(), Some(state("alice")), "the touch restarted its TTL");
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(store.load("s").await.unwrap(), None, "idle past its TTL");
    assert_eq!(store.touch("s", ttl).await.unwrap(), None);
    store.save("s", &state("bob"), ttl).await.unwrap();
    assert!(store.remove("s").await.unwrap());
    assert!(!store.remove("s").await.unwrap());
    assert_eq!(store.load("s").await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_session_stores_keep_the_contract_and_prefixes_keep_deployments_apart() {
    session_store_contract(&MemorySessionStore::new()).await;
    let redis = RedisServer::start();
    let one = RedisSessionStore::open(&redis.url(), "one").unwrap();
    session_store_contract(&one).await;
    let two = RedisSessionStore::open(&redis.url(), "two").unwrap();
    one.save("s", &state("alice"), Duration::from_secs(60)).await.unwrap();
    assert_eq!(two.load("s").await.unwrap(), None);
    assert_eq!(two.touch("s", Duration::from_secs(60)).await.unwrap(), None);
    assert!(!two.remove("s").await.unwrap());
    assert_eq!(one.load("s").await.unwrap(), Some(state("alice")));
    // A value that is not a state is refused as such, not taken for a session.
    redis.command(&["SET", "one:session:junk", "[1,2]"]).unwrap();
    let err = one.load("junk").await.unwrap_err();
    assert!(
        err.to_string().starts_with("the session store holds an unreadable state for this session: "),
        "{err}"
    );
    // Down: a classified error, within the command timeout.
    let down = RedisSessionStore::open("redis://127.0.0.1:1/", "x").unwrap();
    let started = Instant::now();
    let err = down.load("s").await.unwrap_err();
    assert!(err.to_string().starts_with("the session store is unavailable: "), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

/// Replay `stream` of `session` after `after` once the background writes landed.
async fn replay_settled(
    store: &RedisEventStore,
    session: &str,
    stream: &str,
    after: u64,
    want: usize,
) -> Result<Vec<StoredEvent>, ReplayError> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let got = store.replay(session, stream, after).await;
        if got.as_ref().is_ok_and(|e| e.len() >= want) || Instant::now() > deadline {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_redis_event_store_replays_trims_expires_forgets_and_keeps_prefixes_apart() {
    let redis = RedisServer::start();
    let store = RedisEventStore::open(&redis.url(), "ev").unwrap().with_limits(4, Duration::from_millis(700));
    for seq in 0..=6 {
        store.append(
            "a",
            "s1",
            StoredEvent::new(
                seq,
                if seq == 0 { String::new() } else { format!("{{\"n\":{seq}}}") },
                seq == 6,
            ),
        );
    }
    let seqs = |e: &[StoredEvent]| e.iter().map(|e| e.seq).collect::<Vec<_>>();
    let held = replay_settled(&store, "a", "s1", 4, 2).await.unwrap();
    assert_eq!(seqs(&held), [5, 6]);
    assert_eq!(held[1], StoredEvent::new(6, "{\"n\":6}", true));
    // The first four were trimmed: resuming before them would skip events.
    let gone = store.replay("a", "s1", 1).await.unwrap_err();
    assert_eq!(
        gone.to_string(),
        "the events of stream 's1' after 1 are no longer held (the oldest held is 3)"
    );
    assert_eq!(seqs(&store.replay("a", "s1", 2).await.unwrap()), [3, 4, 5, 6]);
    // Another session's stream, and the same store under another prefix, hold nothing.
    assert_eq!(
        store.replay("b", "s1", 0).await.unwrap_err(),
        ReplayError::UnknownStream { stream: "s1".into() }
    );
    let other = RedisEventStore::open(&redis.url(), "other").unwrap();
    assert!(matches!(other.replay("a", "s1", 0).await, Err(ReplayError::UnknownStream { .. })));
    // A session that ends takes its streams with it.
    store.append("a", "s2", StoredEvent::new(1, "{}", false));
    replay_settled(&store, "a", "s2", 0, 1).await.unwrap();
    store.forget_session("a");
    let deadline = Instant::now() + Duration::from_secs(5);
    while store.replay("a", "s2", 0).await.is_ok() {
        assert!(Instant::now() < deadline, "forget_session did not land");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(matches!(store.replay("a", "s1", 2).await, Err(ReplayError::UnknownStream { .. })));
    // Retention: a stream left alone expires.
    store.append("c", "s3", StoredEvent::new(1, "{}", false));
    replay_settled(&store, "c", "s3", 0, 1).await.unwrap();
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert!(matches!(store.replay("c", "s3", 0).await, Err(ReplayError::UnknownStream { .. })));
    assert_eq!(redis.command(&["DBSIZE"]).unwrap(), ":0");
    // Down: a classified error.
    let down = RedisEventStore::open("redis://127.0.0.1:1/", "x").unwrap();
    assert!(matches!(down.replay("a", "s", 0).await, Err(ReplayError::Unavailable(_))));
}

/// `GET /readyz` on `addr`: its status and body.
async fn readyz(addr: SocketAddr) -> (u16, String) {
    let r = tokio::task::spawn_blocking(move || request(addr, "GET", "/readyz", &mcp_headers(addr), ""))
        .await
        .unwrap();
    (r.status, r.body)
}

#[tokio::test(flavor = "multi_thread")]
async fn readyz_checks_the_session_store_by_itself_whenever_one_is_set() {
    let mut redis = RedisServer::start();
    // A drain and a session store, and no readiness check registered by hand.
    let config = HttpConfig::new(Auth::None)
        .drain(toolwire::http::Drain::new())
        .session_store(Arc::new(RedisSessionStore::open(&redis.url(), "t-ready").unwrap()));
    let addr = serve(server(None), config).await;
    assert_eq!(readyz(addr).await, (200, "ready".to_owned()));

    tokio::task::block_in_place(|| redis.stop());
    let (status, body) = readyz(addr).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.starts_with("not ready: session store: unavailable: "), "{body}");

    tokio::task::block_in_place(|| redis.restart());
    let deadline = Instant::now() + Duration::from_secs(10);
    while readyz(addr).await.0 != 200 {
        assert!(Instant::now() < deadline, "Redis is back, but /readyz is still 503");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Without a store there is nothing to check: ready while Redis is down.
    let plain = serve(server(None), HttpConfig::new(Auth::None).drain(toolwire::http::Drain::new())).await;
    tokio::task::block_in_place(|| redis.stop());
    assert_eq!(readyz(plain).await, (200, "ready".to_owned()));
}

/// How many clients the Redis at `redis` has connected, not counting the one asking.
fn clients(redis: &RedisServer) -> usize {
    let info = redis.command(&["INFO", "clients"]).expect("Redis answers INFO");
    let line = info.lines().find_map(|l| l.strip_prefix("connected_clients:")).expect("connected_clients");
    line.trim().parse::<usize>().expect("a count") - 1
}

/// Use a replica's three stores once each (a session looked up, an event stored and
/// replayed, a notice published), so that each has opened whatever it opens.
async fn use_all_three(sessions: &dyn SessionStore, events: &dyn EventStore, server: &Server) {
    sessions.load("s-1").await.unwrap();
    events.append("s-1", "st", StoredEvent::new(1, "{}", false));
    let deadline = Instant::now() + Duration::from_secs(5);
    while events.replay("s-1", "st", 0).await.map(|e| e.len()).unwrap_or(0) == 0 {
        assert!(Instant::now() < deadline, "the event was not stored");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.notify_resource_updated("test://doc");
    tokio::time::sleep(Duration::from_millis(300)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_redis_connection_backs_all_three_stores() {
    let redis = RedisServer::start();
    let url = redis.url();
    let before = clients(&redis);

    // One `Redis`: the stores' and the fan-out's commands on one connection, and the
    // fan-out's subscription on its own (Redis serves nothing else on a subscribed one).
    let shared = toolwire::redis::Redis::open(&url, "t-one").unwrap();
    let (sessions, events) = (shared.session_store(), shared.event_store());
    let server = server(Some(Arc::new(shared.fanout())));
    use_all_three(&sessions, &events, &server).await;
    redis.await_listeners("t-one", 1);
    assert_eq!(clients(&redis) - before, 2, "one connection for the commands, one subscribed");

    // Each type opened by itself opens one of its own: three, and the subscription.
    let before = clients(&redis);
    let (sessions, events) =
        (RedisSessionStore::open(&url, "t-each").unwrap(), RedisEventStore::open(&url, "t-each").unwrap());
    let server = server_with(RedisFanout::open(&url, "t-each").unwrap());
    use_all_three(&sessions, &events, &server).await;
    redis.await_listeners("t-each", 1);
    assert_eq!(clients(&redis) - before, 4);
}

fn server_with(fanout: RedisFanout) -> Server {
    server(Some(Arc::new(fanout)))
}
