//! The `--http` main's drain (issue 44, item 3), on a real process and real sockets: a
//! legacy session's GET stream, which never ends by itself, does not hold the drain. On
//! SIGTERM the stream gets its last event (`retry:` alone) and closes, the call in flight
//! is still answered, and the process exits as soon as it is, far inside `--drain-grace`
//! (30 s by default). Two clients hold a GET stream open: toolwire's own (it opens one after
//! `initialize`, and makes the call in flight) and a raw socket (which reads the stream's
//! bytes to its end). A 2026-07-28 `subscriptions/listen`, the modern era's stream that never
//! ends by itself, does not hold the drain either: it gets its graceful closure (the listen's
//! completion result) and ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolwire::Content;
use toolwire::client::{CallOptions, Client, ClientOptions, EraMode, HttpServer};
use toolwire_tests::http::{mcp_headers, request};

/// `drain-main --http` with the default grace, its address and its `Authorization` value.
fn spawn_drain_main() -> (Child, SocketAddr, String) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_drain-main"))
        .args(["--http", "--show-token", "--log-level", "off"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn drain-main");
    let mut out = BufReader::new(server.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..4 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        lines.push(line.trim_end().to_owned());
    }
    let url = lines[0].rsplit(' ').next().unwrap().to_owned();
    let addr: SocketAddr = url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let auth = lines[3].strip_prefix("header: Authorization: ").expect("the token line").to_owned();
    (server, addr, auth)
}

/// toolwire's own legacy client connected to `addr` with `auth`, on a runtime of its own (it
/// opens its session's GET stream after `initialize`).
fn legacy_client(addr: SocketAddr, auth: &str) -> (tokio::runtime::Runtime, Client) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let token = auth.strip_prefix("Bearer ").expect("a bearer token").to_owned();
    let client = runtime.block_on(async {
        let server = HttpServer::new(format!("http://{addr}/mcp")).bearer(token);
        let options =
            ClientOptions::new("drain").era(EraMode::Legacy).request_timeout(Duration::from_secs(40));
        Client::connect(server, options).await.expect("toolwire's client connects")
    });
    (runtime, client)
}

/// Wait for `server` to exit, at most `limit` after `signalled`; it must exit 0. How long after
/// the signal it exited.
fn exits_cleanly_within(server: &mut Child, signalled: Instant, limit: Duration) -> Duration {
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(
            signalled.elapsed() < limit,
            "drain-main still running {:?} after SIGTERM (its grace is 30 s)",
            signalled.elapsed()
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(0));
    signalled.elapsed()
}

/// A legacy session made over raw HTTP, and its GET stream open on a socket of its own
/// (the response head read).
fn raw_get_stream(addr: SocketAddr, auth: &str) -> TcpStream {
    let mut headers = mcp_headers(addr);
    headers.push(("Authorization".into(), auth.to_owned()));
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let r = request(addr, "POST", "/mcp", &headers, &init.to_string());
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    headers.push(("Mcp-Session-Id".into(), sid.clone()));
    headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(request(addr, "POST", "/mcp", &headers, initialized).status, 202);
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(40))).unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nAuthorization: {auth}\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    stream.write_all(get.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(
            stream.read(&mut byte).unwrap(),
            1,
            "the GET stream's head: {}",
            String::from_utf8_lossy(&head)
        );
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: text/event-stream"), "{head}");
    stream
}

#[test]
fn on_sigterm_get_streams_end_with_retry_and_the_process_exits_once_the_call_in_flight_is_answered() {
    let (mut server, addr, auth) = spawn_drain_main();
    let mut raw = raw_get_stream(addr, &auth);
    let (runtime, client) = legacy_client(addr, &auth);
    // toolwire's client has its GET stream open: a second GET for its session would be 409,
    // and the raw one is open too. A call of 1.5 s is in flight at SIGTERM.
    let call = runtime.spawn({
        let client = client.clone();
        async move { client.call_tool("slow", json!({"ms": 1500}), CallOptions::default()).await }
    });
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();

    // The raw stream: its last bytes are `retry:` alone, then the connection ends, at once.
    let mut rest = Vec::new();
    raw.read_to_end(&mut rest).expect("the GET stream ends cleanly");
    let ended_after = signalled.elapsed();
    let rest = String::from_utf8_lossy(&rest);
    assert!(rest.contains("retry: 1000\n\n"), "no final retry: event in {rest:?}");
    assert!(ended_after < Duration::from_secs(1), "the GET stream ended {ended_after:?} after SIGTERM");

    let answered = runtime.block_on(call).expect("the call's task").expect("the call in flight is answered");
    assert_eq!(answered.content, [Content::Text { text: "slept 1500 ms".into() }]);
    let exited_after = exits_cleanly_within(&mut server, signalled, Duration::from_secs(3));
    eprintln!("GET stream ended {ended_after:?} after SIGTERM; drain-main exited after {exited_after:?}");
}

/// With nothing in flight, a connected client's GET stream does not hold the exit at all.
#[test]
fn on_sigterm_with_nothing_in_flight_the_process_exits_at_once_though_clients_hold_get_streams() {
    let (mut server, addr, auth) = spawn_drain_main();
    let mut raw = raw_get_stream(addr, &auth);
    let (_runtime, _client) = legacy_client(addr, &auth);
    std::thread::sleep(Duration::from_millis(200));
    let signalled = Instant::now();
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let mut rest = Vec::new();
    raw.read_to_end(&mut rest).expect("the GET stream ends cleanly");
    let rest = String::from_utf8_lossy(&rest);
    assert!(rest.contains("retry: 1000\n\n"), "no final retry: event in {rest:?}");
    let exited_after = exits_cleanly_within(&mut server, signalled, Duration::from_secs(1));
    eprintln!("drain-main exited {exited_after:?} after SIGTERM");
}

/// A 2026-07-28 `subscriptions/listen` open at SIGTERM: answered with its completion result
/// (the spec's graceful closure), its stream ends, and the process exits at once.
#[test]
fn on_sigterm_a_subscriptions_listen_gets_its_graceful_closure_and_does_not_hold_the_exit() {
    let (mut server, addr, auth) = spawn_drain_main();
    let body = json!({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}},
        "notifications": {"resourceSubscriptions": ["test://drain-note"]}}})
    .to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(40))).unwrap();
    let post = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {auth}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(post.as_bytes()).unwrap();
    // Read until the acknowledgment has arrived: the listen is open.
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("notifications/subscriptions/acknowledged") {
        let n = stream.read(&mut chunk).unwrap();
        assert!(n > 0, "the listen ended before its acknowledgment: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&seen).into_owned();
    assert!(head.starts_with("HTTP/1.1 200 "), "{head}");

    let signalled = Instant::now();
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).expect("the listen's stream ends cleanly");
    let ended_after = signalled.elapsed();
    let rest = String::from_utf8_lossy(&rest);
    assert!(
        rest.contains(r#""id":"L","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}"#),
        "no graceful closure in {rest:?}"
    );
    assert!(ended_after < Duration::from_secs(1), "the listen ended {ended_after:?} after SIGTERM");
    let exited_after = exits_cleanly_within(&mut server, signalled, Duration::from_secs(1));
    eprintln!("listen ended {ended_after:?}, drain-main exited {exited_after:?} after SIGTERM");
}
