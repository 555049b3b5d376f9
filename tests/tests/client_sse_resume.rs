//! Resuming a request's SSE stream (2025-11-25 resumability, SEP-1699), against a tiny HTTP/1.1
//! server on 127.0.0.1 written here on tokio, so each test scripts every answer and records
//! every request: a `tools/call` stream closed after a priming event is resumed with `GET` and
//! `Last-Event-ID` after its `retry` interval (twice, when the first resumed stream closes
//! too), and the answer is taken from the resumed stream; a stream without event ids, and one
//! whose resumption the server refuses, fail the call as `unavailable`; resumptions that bring
//! nothing end after five; a resumed stream that never answers ends with the call's timeout.
//! No peers needed.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolwire::client::{AdoptOptions, Client, ClientOptions, HttpServer};
use toolwire::tool::RemoteError;
use toolwire::{Context, Tool, ToolError};

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    /// The JSON-RPC method of a POST.
    rpc: Option<String>,
    /// The JSON-RPC id of a POST.
    id: Option<Value>,
    last_event_id: Option<String>,
    session: Option<String>,
    version: Option<String>,
    at: Instant,
}

impl Seen {
    /// `POST tools/call`, `GET`, `GET Last-Event-ID: x`, `DELETE`.
    fn line(&self) -> String {
        match (&self.rpc, &self.last_event_id) {
            (Some(rpc), _) => format!("{} {rpc}", self.method),
            (None, Some(id)) => format!("{} Last-Event-ID: {id}", self.method),
            (None, None) => self.method.clone(),
        }
    }
}

/// How the server answers one request.
enum Reply {
    /// 200 with a JSON body.
    Json(Value),
    /// A bare status.
    Status(u16),
    /// 200 `text/event-stream` with these bytes, then the connection closes.
    Sse(String),
    /// 200 `text/event-stream` with these bytes, then nothing, the connection kept open.
    SseHang(String),
}

/// Decides the reply to each request, given it and the requests seen before it.
type Script = dyn Fn(&Seen, &[Seen]) -> Reply + Send + Sync;

struct Peer {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Peer {
    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    fn lines(&self) -> Vec<String> {
        self.seen.lock().unwrap().iter().map(Seen::line).collect()
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Serve `script`: `initialize`, `notifications/initialized` and `tools/list` (one tool,
/// `work`) are answered here; the standalone `GET` (no `Last-Event-ID`) gets 405 unless
/// the script says otherwise; everything else is the script's.
async fn serve(script: Box<Script>) -> Peer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let script: Arc<Script> = Arc::from(script);
    let record = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (record, script) = (Arc::clone(&record), Arc::clone(&script));
            tokio::spawn(async move { handle(stream, &record, &*script).await });
        }
    });
    Peer { addr, seen }
}

async fn handle(mut stream: TcpStream, record: &Mutex<Vec<Seen>>, script: &Script) {
    let mut buf = Vec::new();
    let head_end = loop {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let method = lines.next().unwrap_or_default().split(' ').next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let header = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let req = Seen {
        method,
        rpc: msg.get("method").and_then(Value::as_str).map(str::to_owned),
        id: msg.get("id").cloned(),
        last_event_id: header("last-event-id"),
        session: header("mcp-session-id"),
        version: header("mcp-protocol-version"),
        at: Instant::now(),
    };
    let before = {
        let mut seen = record.lock().unwrap();
        let before = seen.clone();
        seen.push(req.clone());
        before
    };
    let reply = match (req.method.as_str(), req.rpc.as_deref()) {
        ("POST", Some("initialize")) => Reply::Json(json!({"jsonrpc": "2.0", "id": req.id, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "resumer", "version": "0"},
        }})),
        ("POST", Some("tools/list")) => Reply::Json(json!({"jsonrpc": "2.0", "id": req.id, "result": {
            "tools": [{"name": "work", "inputSchema": {"type": "object"}}],
        }})),
        ("POST", _) if req.id.is_none() => Reply::Status(202),
        ("GET", _) if req.last_event_id.is_none() => Reply::Status(405),
        ("DELETE", _) => Reply::Status(405),
        _ => script(&req, &before),
    };
    let head = |status: &str, ct: &str, len: Option<usize>| {
        let len = len.map(|n| format!("Content-Length: {n}\r\n")).unwrap_or_default();
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ct}\r\nMcp-Session-Id: s-1\r\n{len}Connection: close\r\n\r\n"
        )
    };
    let (bytes, hang) = match reply {
        Reply::Json(v) => {
            let body = v.to_string();
            (head("200 OK", "application/json", Some(body.len())) + &body, false)
        }
        Reply::Status(code) => (head(&format!("{code} X"), "text/plain", Some(0)), false),
        Reply::Sse(events) => (head("200 OK", "text/event-stream", None) + &events, false),
        Reply::SseHang(events) => (head("200 OK", "text/event-stream", None) + &events, true),
    };
    let _ = stream.write_all(bytes.as_bytes()).await;
    let _ = stream.flush().await;
    if hang {
        // Hold the stream open until the client drops it.
        let mut rest = [0u8; 64];
        while stream.read(&mut rest).await.is_ok_and(|n| n > 0) {}
    }
}

/// The id of the `tools/call` among `seen`.
fn call_id(seen: &[Seen]) -> Value {
    seen.iter().find(|s| s.rpc.as_deref() == Some("tools/call")).and_then(|s| s.id.clone()).unwrap()
}

fn answer(id: &Value, text: &str) -> String {
    let msg = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}});
    format!("event: message\ndata: {msg}\n\n")
}

async fn call(peer: &Peer, adopt: AdoptOptions) -> Result<String, ToolError> {
    let client = Client::connect(HttpServer::new(peer.url()), ClientOptions::new("resumer")).await.unwrap();
    let d = client.adopt(adopt.prefix("")).await.unwrap();
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        d.get("work").unwrap().call_json(json!({}), &Context::new()),
    )
    .await
    .expect("the call must end");
    client.close().await;
    out.map(|o| o.joined_text())
}

#[tokio::test]
async fn a_stream_closed_after_a_priming_event_is_resumed_with_last_event_id() {
    let peer = serve(Box::new(|req, before| match (req.rpc.as_deref(), req.last_event_id.as_deref()) {
        (Some("tools/call"), _) => Reply::Sse("id: c-1\nretry: 300\ndata:\n\n".into()),
        // The first resumed stream closes too, after one more event.
        (None, Some("c-1")) => Reply::Sse("id: c-2\ndata:\n\n".into()),
        (None, Some("c-2")) => Reply::Sse(format!("id: c-3\n{}", answer(&call_id(before), "resumed"))),
        _ => Reply::Status(500),
    }))
    .await;
    let text = call(&peer, AdoptOptions::default()).await.unwrap();
    assert!(text.contains("\nresumed\n"), "{text}");
    assert_eq!(
        peer.lines(),
        [
            "POST initialize",
            "GET",
            "POST notifications/initialized",
            "POST tools/list",
            "POST tools/call",
            "GET Last-Event-ID: c-1",
            "GET Last-Event-ID: c-2",
            "DELETE",
        ]
    );
    let seen = peer.seen();
    for get in &seen[5..7] {
        assert_eq!(get.session.as_deref(), Some("s-1"));
        assert_eq!(get.version.as_deref(), Some("2025-11-25"));
    }
    // Each resumption waited the `retry` interval (300ms; the second stream gave none and
    // the first one's holds). Lower bounds only: a slow machine only waits longer.
    assert!(seen[5].at - seen[4].at >= Duration::from_millis(250), "{:?}", seen[5].at - seen[4].at);
    assert!(seen[6].at - seen[5].at >= Duration::from_millis(250), "{:?}", seen[6].at - seen[5].at);
}

#[tokio::test]
async fn a_stream_without_event_ids_or_whose_resumption_is_refused_is_unavailable() {
    // No event ids: nothing to resume; the call fails at once, with no GET.
    let peer = serve(Box::new(|req, _| match req.rpc.as_deref() {
        Some("tools/call") => Reply::Sse("retry: 50\ndata:\n\n".into()),
        _ => Reply::Status(500),
    }))
    .await;
    let err = call(&peer, AdoptOptions::default()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the outcome of tool 'work' is unknown: the call was cut off (server 'resumer' closed the SSE \
         stream before answering); it may have run, and it must not be re-run"
    );
    assert_eq!(peer.lines()[4..], ["POST tools/call", "DELETE"]);

    // The server keeps no streams: one GET, a 405, and the call fails.
    let peer = serve(Box::new(|req, _| match req.rpc.as_deref() {
        Some("tools/call") => Reply::Sse("id: c-1\nretry: 50\ndata:\n\n".into()),
        _ => Reply::Status(405),
    }))
    .await;
    let err = call(&peer, AdoptOptions::default()).await.unwrap_err();
    assert!(matches!(err, ToolError::Remote(RemoteError::OutcomeUnknown { .. })), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the outcome of tool 'work' is unknown: the call was cut off (server 'resumer' closed the SSE \
         stream before answering); it may have run, and it must not be re-run"
    );
    assert_eq!(peer.lines()[4..], ["POST tools/call", "GET Last-Event-ID: c-1", "DELETE"]);
}

#[tokio::test]
async fn resumptions_that_bring_nothing_end_after_five() {
    let peer = serve(Box::new(|req, _| match req.rpc.as_deref() {
        Some("tools/call") => Reply::Sse("id: c-1\nretry: 50\ndata:\n\n".into()),
        _ => Reply::Sse(": nothing new\n\n".into()),
    }))
    .await;
    let err = call(&peer, AdoptOptions::default()).await.unwrap_err();
    assert!(matches!(err, ToolError::Remote(RemoteError::OutcomeUnknown { .. })), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the outcome of tool 'work' is unknown: the call was cut off (server 'resumer' closed the SSE \
         stream before answering, and 5 attempts to resume it brought nothing); it may have run, and it \
         must not be re-run"
    );
    let mut expected = vec!["POST tools/call".to_owned()];
    expected.extend(std::iter::repeat_n("GET Last-Event-ID: c-1".to_owned(), 5));
    expected.push("DELETE".into());
    assert_eq!(peer.lines()[4..], expected);
}

#[tokio::test]
async fn a_resumed_stream_that_never_answers_ends_with_the_call_timeout() {
    let peer = serve(Box::new(|req, _| match req.rpc.as_deref() {
        Some("tools/call") => Reply::Sse("id: c-1\nretry: 50\ndata:\n\n".into()),
        _ => Reply::SseHang("id: c-2\ndata:\n\n".into()),
    }))
    .await;
    let err = call(&peer, AdoptOptions::default().timeout(Duration::from_secs(1))).await.unwrap_err();
    assert!(matches!(err, ToolError::Remote(RemoteError::TimedOut { .. })), "{err:?}");
    assert_eq!(peer.lines()[4..6], ["POST tools/call", "GET Last-Event-ID: c-1"]);
}

#[tokio::test]
async fn a_call_refused_by_http_status_says_which_and_is_not_retried() {
    for (status, want) in [
        (403, "tool 'work' was not run: server 'resumer' answered HTTP 403: the credentials were refused"),
        (401, "tool 'work' was not run: server 'resumer' answered HTTP 401: the credentials were refused"),
        // A 404 under a session: the session is renewed once, then the status is the answer.
        (404, "tool 'work' was not run: server 'resumer' answered HTTP 404"),
    ] {
        let peer = serve(Box::new(move |req, _| match req.rpc.as_deref() {
            Some("tools/call") => Reply::Status(status),
            _ => Reply::Status(405),
        }))
        .await;
        let err = call(&peer, AdoptOptions::default()).await.unwrap_err();
        assert_eq!(err.to_string(), want);
        assert!(!err.is_retryable(), "{err:?}");
    }
    // A 503 leaves the call's fate open: at most once, its outcome is unknown.
    let peer = serve(Box::new(|req, _| match req.rpc.as_deref() {
        Some("tools/call") => Reply::Status(503),
        _ => Reply::Status(405),
    }))
    .await;
    let err = call(&peer, AdoptOptions::default()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the outcome of tool 'work' is unknown: the call was cut off (server 'resumer' answered HTTP 503); \
         it may have run, and it must not be re-run"
    );
    assert!(!err.is_retryable());
}
