//! `notifications/tools/list_changed` on a legacy session that roams: three live replicas
//! (`tests/src/bin/replica.rs --live`) sharing sessions, events and notices through a real
//! Redis, behind a real nginx (`tests/src/cluster.rs`), all real processes on loopback.
//!
//! - The exact order that lost every change: the session initialized on replica `a`, its
//!   GET stream opened on `c` before `notifications/initialized` reaches `a` (each request
//!   sent to its replica directly, so the order is forced, not hoped for). Each change, made
//!   on `c` itself and on the other two, reaches the stream.
//! - Through nginx's round-robin, 20 sessions in a row with toolwire's own client and 20 with
//!   the Python SDK 2.3.0's legacy client: each session hears every change made on each
//!   replica.
//!
//! Needs `bash tests/peers/nginx/setup.sh`, `bash tests/peers/redis/setup.sh` and
//! `bash tests/peers/setup.sh` (the Python SDK 2.3.0 client).

mod peer_support;

use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwire::client::{Client, ClientOptions, EraMode, HttpServer, ListChanged};
use toolwire_tests::cluster::{Cluster, Replica, ReplicaOptions};
use toolwire_tests::http::{SseEvent, mcp_headers, open, request, sse_events_in};
use toolwire_tests::redis::RedisServer;

/// One cluster at a time: each is five processes on a 2-core machine.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The notification a change of the tools sends, as an event's data.
const TOOLS_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#;

/// Live replicas keeping legacy sessions in the shared Redis.
fn live(redis: &RedisServer) -> ReplicaOptions {
    ReplicaOptions { legacy: true, live: true, redis: Some(redis.url()), ..ReplicaOptions::default() }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

/// A 2026-07-28 call of `change` straight to `replica` (no session: nothing of the roaming
/// session is touched on the way); the text it answers.
fn change(replica: &Replica) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "change", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }})
    .to_string();
    let mut headers = mcp_headers(replica.addr);
    headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    headers.push(("Mcp-Method".into(), "tools/call".into()));
    headers.push(("Mcp-Name".into(), "change".into()));
    let r = request(replica.addr, "POST", "/mcp", &headers, &body);
    assert_eq!(r.status, 200, "{}", r.body);
    let text = r.json()["result"]["content"][0]["text"].as_str().map(str::to_owned);
    text.unwrap_or_else(|| panic!("no text in {}", r.body))
}

/// A legacy POST's headers for `addr`, in session `sid` when given.
fn legacy_headers(addr: SocketAddr, sid: Option<&str>) -> Vec<(String, String)> {
    let mut h = mcp_headers(addr);
    if let Some(sid) = sid {
        h.push(("Mcp-Session-Id".into(), sid.into()));
        h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    }
    h
}

/// Read what `stream` sends until `enough` of its events are list changes, or `limit` passes;
/// every event read so far.
fn read_changes(stream: &mut TcpStream, raw: &mut Vec<u8>, enough: usize, limit: Duration) -> Vec<SseEvent> {
    use std::io::Read;
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 4096];
    loop {
        let events = sse_events_in(raw);
        let changes = events.iter().filter(|(_, d)| d == TOOLS_CHANGED).count();
        let left = deadline.saturating_duration_since(Instant::now());
        if changes >= enough || left.is_zero() {
            return events;
        }
        stream.set_read_timeout(Some(left.min(Duration::from_millis(200)))).unwrap();
        match stream.read(&mut buf) {
            Ok(0) => return sse_events_in(raw),
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
}

#[test]
fn a_get_stream_opened_on_c_before_initialized_reached_a_hears_every_change() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let cluster = Cluster::start(&live(&redis));
    redis.await_listeners("toolwire-cluster", 3);
    let [a, b, c] = [&cluster.replicas[0], &cluster.replicas[1], &cluster.replicas[2]];
    assert_eq!([&*a.name, &*b.name, &*c.name], ["a", "b", "c"]);
    // `initialize` on a: the store holds the session, not initialized yet.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let r = request(a.addr, "POST", "/mcp", &legacy_headers(a.addr, None), &init.to_string());
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    // The GET stream on c, read until its head arrived: c has re-made the session from the
    // store by then, as not initialized.
    let get = [
        ("Host".to_owned(), c.addr.to_string()),
        ("Accept".to_owned(), "text/event-stream".to_owned()),
        ("Mcp-Session-Id".to_owned(), sid.clone()),
        ("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()),
    ];
    let mut stream = open(c.addr, "GET", "/mcp", &get, "");
    let mut raw = Vec::new();
    let until = Instant::now() + Duration::from_secs(10);
    while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        use std::io::Read;
        assert!(Instant::now() < until, "no head from c: {:?}", String::from_utf8_lossy(&raw));
        let mut buf = [0u8; 1024];
        stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        if let Ok(n) = stream.read(&mut buf) {
            assert_ne!(n, 0, "c closed the stream: {:?}", String::from_utf8_lossy(&raw));
            raw.extend_from_slice(&buf[..n]);
        }
    }
    assert!(raw.starts_with(b"HTTP/1.1 200 "), "{:?}", String::from_utf8_lossy(&raw));
    // Only now does `notifications/initialized` reach a.
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(request(a.addr, "POST", "/mcp", &legacy_headers(a.addr, Some(&sid)), initialized).status, 202);
    // A change on c itself, then on a and on b (carried to c by the fan-out): each is heard
    // on the stream, and no request of the session ever comes to c again.
    let mut told = Vec::new();
    for (i, replica) in [c, a, b].into_iter().enumerate() {
        told.push(change(replica));
        let events = read_changes(&mut stream, &mut raw, i + 1, Duration::from_secs(5));
        let changes = events.iter().filter(|(_, d)| d == TOOLS_CHANGED).count();
        assert_eq!(changes, i + 1, "after the changes {told:?}, the stream on c read {events:?}");
    }
    assert_eq!(told, ["c added extra", "a added extra", "b added extra"]);
    // Each change was one event, with its id: nothing twice.
    let events = read_changes(&mut stream, &mut raw, 4, Duration::from_millis(500));
    assert_eq!(events.iter().filter(|(_, d)| d == TOOLS_CHANGED).count(), 3, "{events:?}");
    assert!(events.iter().all(|(id, _)| id.is_some()), "{events:?}");
}

/// Wait (at most `limit`) until `count` reaches `want`; where it stands then.
fn wait_count(count: &AtomicUsize, want: usize, limit: Duration) -> usize {
    let deadline = Instant::now() + limit;
    while count.load(Ordering::SeqCst) < want && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    count.load(Ordering::SeqCst)
}

/// How long a client is given to open its GET stream after its handshake returned. The
/// stream's order against `notifications/initialized` is the client's own; the wait only
/// makes sure the stream is open before the changes are made (a change before it opens is
/// owed to no one).
const STREAM_OPENS: Duration = Duration::from_millis(400);

#[test]
fn twenty_sessions_of_toolwires_client_through_nginx_each_hear_every_change() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let cluster = Cluster::start(&live(&redis));
    redis.await_listeners("toolwire-cluster", 3);
    let rt = runtime();
    let mut heard = Vec::new();
    for run in 0..20 {
        let count = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&count);
        let options = ClientOptions::new("roaming")
            .era(EraMode::Legacy)
            .request_timeout(Duration::from_secs(20))
            .on_list_changed(move |which| {
                if which == ListChanged::Tools {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            });
        let client = rt
            .block_on(Client::connect(HttpServer::new(cluster.url()), options))
            .unwrap_or_else(|e| panic!("run {run}: connect through nginx: {e}"));
        std::thread::sleep(STREAM_OPENS);
        for (i, replica) in cluster.replicas.iter().enumerate() {
            let said = change(replica);
            assert!(said.starts_with(&format!("{} ", replica.name)), "{said}");
            let now = wait_count(&count, i + 1, Duration::from_secs(5));
            assert_eq!(now, i + 1, "run {run}: after a change on {}, {now} heard", replica.name);
        }
        heard.push(count.load(Ordering::SeqCst));
        rt.block_on(client.close());
    }
    assert_eq!(heard, [3; 20]);
    // The order that lost them: the stream on a replica that took neither POST of the
    // handshake (round-robin puts the three requests on three replicas).
    let log = cluster.access_log();
    let gets = log.lines().filter(|l| l.starts_with("GET /mcp 200 ")).count();
    assert!(gets >= 20, "every session opened its GET stream through nginx:\n{log}");
}

#[test]
fn twenty_sessions_of_the_python_sdks_legacy_client_through_nginx_each_hear_every_change() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let cluster = Cluster::start(&live(&redis));
    redis.await_listeners("toolwire-cluster", 3);
    let mut command = Command::new(peer_support::peer("TOOLWIRE_PY_MCP2"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/py_cluster.py")).args([
        "--scenario",
        "list-changed",
        "--runs",
        "20",
        "--url",
        &cluster.url(),
    ]);
    for r in &cluster.replicas {
        command.args(["--replica", &r.url()]);
    }
    let out = peer_support::run_bounded(command, Duration::from_secs(240));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "py_cluster.py --scenario list-changed failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    eprintln!("the Python SDK's sessions: {summary}");
    // Each of the 20 sessions heard each replica's change, once.
    assert_eq!(summary["heard"], json!(vec![[1, 2, 3]; 20]), "{summary}");
    let told = summary["told"].as_array().expect("told");
    assert_eq!(told.len(), 60, "{summary}");
    for (i, t) in told.iter().enumerate() {
        let replica = &cluster.replicas[i % 3].name;
        assert!(t.as_str().is_some_and(|t| t.starts_with(&format!("{replica} "))), "{summary}");
    }
}
