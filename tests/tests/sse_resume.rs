//! Resumable SSE streams of a legacy session (2025-11-25 "Resumability and Redelivery",
//! SEP-1699 polling), on real sockets on 127.0.0.1 against toolwire's own `mcp_router`:
//!
//! - a POST's answer cut mid-way is resumed with `GET` and `Last-Event-ID`: the events that
//!   followed, then the rest live, each once, in order, ending with the response;
//! - the GET stream, cut and resumed the same way, carrying logs a tool sent after its call
//!   ended (out-of-call logs go to the session's GET stream);
//! - a `Last-Event-ID` of another shape (400), of no stream of this session or of another
//!   session's (404), and older than the store holds (410), with their exact bodies;
//! - a stream the store evicted whole while its call still runs: resumed from the client's
//!   last event when nothing after it was lost, 410 when something was (not a 404);
//! - polling: an answer not ready in time is closed after a priming event with `retry:`, and
//!   the GET that names it gets the answer;
//! - the Python SDK 2.3.0 client (`tests/peers/clients/py_sse_resume.py`) follows a polled
//!   answer and hears out-of-call logs through its `logging_callback`.

mod peer_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolwire::http::{Auth, HttpConfig, MemoryEventStore, mcp_router};
use toolwire::protocol::LoggingLevel;
use toolwire::{Context, Server, ServerOptions, tool, tools};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Log `count` steps, waiting `gap_ms` before each, then answer.
#[tool(read_only)]
async fn steps(count: u32, gap_ms: u64, ctx: &Context) -> String {
    for step in 1..=count {
        tokio::time::sleep(Duration::from_millis(gap_ms)).await;
        ctx.log(LoggingLevel::Info, json!({ "step": step }));
    }
    format!("{count} steps")
}

/// Answer at once, and log `count` lines `gap_ms` apart after the call has ended.
#[tool(read_only)]
async fn linger(count: u32, gap_ms: u64, ctx: &Context) -> &'static str {
    let ctx = ctx.clone();
    tokio::spawn(async move {
        for after in 1..=count {
            tokio::time::sleep(Duration::from_millis(gap_ms)).await;
            ctx.log(LoggingLevel::Info, json!({ "after": after }));
        }
    });
    "answered"
}

fn server() -> Server {
    Server::new(tools![steps, linger].unwrap(), ServerOptions::new("resumable", "1.0.0"))
}

/// Serve the endpoint with `config` on an ephemeral loopback port.
async fn serve(config: HttpConfig) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = mcp_router(server(), config);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}

async fn blocking(addr: SocketAddr, method: &str, headers: Vec<(String, String)>, body: &str) -> RawResponse {
    let (method, body) = (method.to_owned(), body.to_owned());
    tokio::task::spawn_blocking(move || request(addr, &method, "/mcp", &headers, &body)).await.unwrap()
}

fn session_headers(addr: SocketAddr, session: &str) -> Vec<(String, String)> {
    let mut h = mcp_headers(addr);
    h.push(("Mcp-Session-Id".into(), session.into()));
    h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    h
}

fn get_headers(addr: SocketAddr, session: &str, last_event_id: Option<&str>) -> Vec<(String, String)> {
    let mut h = vec![
        ("Host".to_owned(), addr.to_string()),
        ("Accept".to_owned(), "text/event-stream".to_owned()),
        ("Mcp-Session-Id".to_owned(), session.to_owned()),
        ("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()),
    ];
    if let Some(id) = last_event_id {
        h.push(("Last-Event-ID".to_owned(), id.to_owned()));
    }
    h
}

/// A legacy session through its handshake; its id.
async fn open_session(addr: SocketAddr) -> String {
    let r = blocking(addr, "POST", mcp_headers(addr), INIT).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(blocking(addr, "POST", session_headers(addr, &id), note).await.status, 202);
    id
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq)]
struct Event {
    id: Option<String>,
    retry: Option<u64>,
    data: String,
}

impl Event {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("event data is not JSON ({e}): {self:?}"))
    }

    /// The seq of its id (`<stream>:<seq>`).
    fn seq(&self) -> u64 {
        let id = self.id.as_deref().unwrap_or_else(|| panic!("an event without an id: {self:?}"));
        id.rsplit_once(':').and_then(|(_, n)| n.parse().ok()).unwrap_or_else(|| panic!("id {id:?}"))
    }

    fn stream(&self) -> &str {
        self.id.as_deref().and_then(|id| id.rsplit_once(':')).map(|(s, _)| s).expect("an id")
    }
}

/// An HTTP exchange whose SSE body is read as it comes (chunked or to the end of the
/// connection), on a socket the test can drop mid-way.
struct Sse {
    socket: TcpStream,
    raw: Vec<u8>,
    body: Vec<u8>,
    status: u16,
    chunked: bool,
    ended: bool,
}

impl Sse {
    async fn open(addr: SocketAddr, method: &str, headers: &[(String, String)], body: &str) -> Sse {
        let mut socket = TcpStream::connect(addr).await.unwrap();
        let mut req = format!("{method} /mcp HTTP/1.1\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        socket.write_all(req.as_bytes()).await.unwrap();
        let mut sse =
            Sse { socket, raw: Vec::new(), body: Vec::new(), status: 0, chunked: false, ended: false };
        let end = loop {
            if let Some(end) = sse.raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break end;
            }
            assert!(sse.fill(Duration::from_secs(10)).await, "no response head");
        };
        let head = String::from_utf8_lossy(&sse.raw[..end]).to_ascii_lowercase();
        sse.status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
        assert!(head.contains("content-type: text/event-stream"), "not SSE: {head}");
        sse.chunked = head.contains("transfer-encoding: chunked");
        sse.raw.drain(..end + 4);
        sse
    }

    /// Read more; `false` once the connection is closed or `within` passed.
    async fn fill(&mut self, within: Duration) -> bool {
        let mut buf = [0u8; 8192];
        match tokio::time::timeout(within, self.socket.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => {
                self.raw.extend_from_slice(&buf[..n]);
                true
            }
            _ => false,
        }
    }

    /// Move what is complete of the body from `raw` to `body`.
    fn decode(&mut self) {
        if !self.chunked {
            self.body.append(&mut self.raw);
            return;
        }
        loop {
            let Some(line) = self.raw.windows(2).position(|w| w == b"\r\n") else { return };
            let size =
                usize::from_str_radix(std::str::from_utf8(&self.raw[..line]).unwrap().trim(), 16).unwrap();
            if size == 0 {
                self.ended = true;
                return;
            }
            if self.raw.len() < line + 2 + size + 2 {
                return;
            }
            self.body.extend_from_slice(&self.raw[line + 2..line + 2 + size]);
            self.raw.drain(..line + 2 + size + 2);
        }
    }

    /// The next event, waiting up to `within`; `None` when the stream ended first.
    async fn next(&mut self, within: Duration) -> Option<Event> {
        let deadline = Instant::now() + within;
        loop {
            self.decode();
            if let Some(end) = self.body.windows(2).position(|w| w == b"\n\n") {
                let text = String::from_utf8(self.body.drain(..end + 2).collect()).unwrap();
                let mut event = Event { id: None, retry: None, data: String::new() };
                let mut data = Vec::new();
                for line in text.lines() {
                    if let Some(v) = line.strip_prefix("id: ") {
                        event.id = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("retry: ") {
                        event.retry = Some(v.parse().unwrap());
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data.push(v);
                    }
                }
                if data.is_empty() && event.id.is_none() {
                    continue; // a keep-alive comment
                }
                event.data = data.join("\n");
                return Some(event);
            }
            if self.ended {
                return None;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || !self.fill(left).await {
                self.decode();
                if !self.body.windows(2).any(|w| w == b"\n\n") {
                    return None;
                }
            }
        }
    }

    /// Every event until the stream ends (panics if it has not within `within`).
    async fn rest(&mut self, within: Duration) -> Vec<Event> {
        let deadline = Instant::now() + within;
        let mut events = Vec::new();
        while let Some(e) = self.next(deadline.saturating_duration_since(Instant::now())).await {
            events.push(e);
        }
        assert!(self.ended || Instant::now() < deadline, "the stream did not end; read {events:#?}");
        events
    }
}

fn step(event: &Event) -> Option<u64> {
    event.json()["params"]["data"]["step"].as_u64()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_cut_mid_way_is_resumed_with_last_event_id_and_misses_nothing() {
    let addr = serve(HttpConfig::new(Auth::None)).await;
    let session = open_session(addr).await;
    let body = call(2, "steps", json!({"count": 6, "gap_ms": 150}));
    let mut post = Sse::open(addr, "POST", &session_headers(addr, &session), &body).await;
    assert_eq!(post.status, 200);
    let first = post.next(Duration::from_secs(10)).await.expect("step 1");
    let second = post.next(Duration::from_secs(10)).await.expect("step 2");
    assert_eq!((step(&first), step(&second)), (Some(1), Some(2)));
    assert_eq!((first.seq(), second.seq()), (1, 2));
    assert_eq!(first.stream(), second.stream());
    // The connection drops; the call goes on (in a legacy session a dropped connection is not
    // a cancellation), and step 3 is sent while no one reads.
    drop(post);
    tokio::time::sleep(Duration::from_millis(250)).await;
    let last = second.id.clone().unwrap();
    let mut resumed = Sse::open(addr, "GET", &get_headers(addr, &session, Some(&last)), "").await;
    assert_eq!(resumed.status, 200);
    let events = resumed.rest(Duration::from_secs(15)).await;
    let steps: Vec<Option<u64>> = events.iter().map(step).collect();
    assert_eq!(steps, [Some(3), Some(4), Some(5), Some(6), None], "{events:#?}");
    let seqs: Vec<u64> = events.iter().map(Event::seq).collect();
    assert_eq!(seqs, [3, 4, 5, 6, 7]);
    assert!(events.iter().all(|e| e.stream() == first.stream()));
    let answer = events.last().unwrap().json();
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["result"]["content"][0]["text"], "6 steps");

    // Once answered, the same id replays the rest again, from the store, and ends.
    let mut again = Sse::open(addr, "GET", &get_headers(addr, &session, Some(&last)), "").await;
    let replayed = again.rest(Duration::from_secs(10)).await;
    assert_eq!(replayed.iter().map(Event::seq).collect::<Vec<_>>(), [3, 4, 5, 6, 7]);
}

#[tokio::test(flavor = "multi_thread")]
async fn logs_sent_after_the_call_ended_go_to_the_get_stream_which_resumes_too() {
    let addr = serve(HttpConfig::new(Auth::None)).await;
    let session = open_session(addr).await;
    let mut get = Sse::open(addr, "GET", &get_headers(addr, &session, None), "").await;
    assert_eq!(get.status, 200);
    let r = blocking(
        addr,
        "POST",
        session_headers(addr, &session),
        &call(2, "linger", json!({"count": 4, "gap_ms": 150})),
    )
    .await;
    // The call's answer is plain JSON: nothing came before it.
    assert_eq!(r.header("content-type"), Some("application/json"), "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "answered");
    let after = |e: &Event| e.json()["params"]["data"]["after"].as_u64();
    let first = get.next(Duration::from_secs(10)).await.expect("the first out-of-call log");
    assert_eq!(first.json()["method"], "notifications/message");
    assert_eq!(after(&first), Some(1));
    assert_eq!(first.seq(), 1);
    drop(get);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let last = first.id.clone().unwrap();
    let mut resumed = Sse::open(addr, "GET", &get_headers(addr, &session, Some(&last)), "").await;
    let mut got = Vec::new();
    while got.len() < 3 {
        got.push(resumed.next(Duration::from_secs(10)).await.expect("the logs that followed"));
    }
    assert_eq!(got.iter().map(after).collect::<Vec<_>>(), [Some(2), Some(3), Some(4)]);
    assert_eq!(got.iter().map(Event::seq).collect::<Vec<_>>(), [2, 3, 4]);
    assert!(got.iter().all(|e| e.stream() == first.stream()));
    // A GET stream goes on: nothing more, and not ended.
    assert_eq!(resumed.next(Duration::from_millis(300)).await, None);
    assert!(!resumed.ended);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_last_event_id_that_cannot_be_resumed_is_refused_with_why() {
    let store = Arc::new(MemoryEventStore::with_limits(3, 1 << 20));
    let addr = serve(HttpConfig::new(Auth::None).event_store(store.clone())).await;
    let session = open_session(addr).await;
    let other = open_session(addr).await;
    let mut post = Sse::open(
        addr,
        "POST",
        &session_headers(addr, &session),
        &call(2, "steps", json!({"count": 10, "gap_ms": 1})),
    )
    .await;
    let events = post.rest(Duration::from_secs(10)).await;
    assert_eq!(events.len(), 11, "{events:#?}");
    let stream = events[0].stream().to_owned();
    // The store kept the last three events of the stream (9, 10 and the response, 11).
    assert_eq!(store.held().0, 3);

    let refused = |status: u16, message: &str| {
        (status, json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": message}}))
    };
    for (last, session, want) in [
        (
            "12".to_owned(),
            &session,
            refused(
                400,
                "bad request: Last-Event-ID \"12\" is not an event id of this server (its ids read <stream>:<number>)",
            ),
        ),
        (
            format!("{stream}:1"),
            &session,
            refused(
                410,
                &format!(
                    "gone: the events after Last-Event-ID '{stream}:1' are no longer held (the oldest held of that stream is '{stream}:9'); the stream cannot be resumed without missing events"
                ),
            ),
        ),
        (
            format!("{stream}:8"),
            &other,
            refused(
                404,
                &format!(
                    "not found: Last-Event-ID '{stream}:8' names no stream of this session (it never existed, or its events are gone)"
                ),
            ),
        ),
        (
            "bm90LWEtc3RyZWFt:3".to_owned(),
            &session,
            refused(
                404,
                "not found: Last-Event-ID 'bm90LWEtc3RyZWFt:3' names no stream of this session (it never existed, or its events are gone)",
            ),
        ),
    ] {
        let r = blocking(addr, "GET", get_headers(addr, session, Some(&last)), "").await;
        assert_eq!((r.status, r.json()), want, "Last-Event-ID {last}");
    }
    // What is still held replays.
    let mut ok = Sse::open(addr, "GET", &get_headers(addr, &session, Some(&format!("{stream}:8"))), "").await;
    let replayed = ok.rest(Duration::from_secs(10)).await;
    assert_eq!(replayed.iter().map(Event::seq).collect::<Vec<_>>(), [9, 10, 11]);
    assert_eq!(replayed[2].json()["result"]["content"][0]["text"], "10 steps");

    // Ending the session drops its events from the store.
    let r = blocking(addr, "DELETE", session_headers(addr, &session), "").await;
    assert_eq!(r.status, 204);
    assert_eq!(store.held(), (0, 0));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_evicted_while_its_call_runs_resumes_when_nothing_was_lost_and_is_gone_when_something_was() {
    // A store that keeps one stream: a second call's answer evicts the first's whole.
    let store = Arc::new(MemoryEventStore::with_limits(1_000, 1 << 20).max_streams(1));
    let addr = serve(HttpConfig::new(Auth::None).event_store(store.clone())).await;
    let session = open_session(addr).await;
    let body = call(2, "steps", json!({"count": 3, "gap_ms": 600}));
    let mut post = Sse::open(addr, "POST", &session_headers(addr, &session), &body).await;
    let first = post.next(Duration::from_secs(10)).await.expect("step 1");
    assert_eq!((step(&first), first.seq()), (Some(1), 1));
    drop(post);
    let mut other = Sse::open(
        addr,
        "POST",
        &session_headers(addr, &session),
        &call(3, "steps", json!({"count": 1, "gap_ms": 1})),
    )
    .await;
    assert_eq!(other.rest(Duration::from_secs(10)).await.len(), 2);
    assert_eq!(store.streams(), 1, "the first call's stream was evicted");
    // Step 2 is 600 ms after step 1: the first stream is not held anew yet. A client that
    // saw nothing is told what it cannot have (step 1 went with the stream)...
    let stream = first.stream().to_owned();
    let r = blocking(addr, "GET", get_headers(addr, &session, Some(&format!("{stream}:0"))), "").await;
    assert_eq!(r.status, 410, "{}", r.body);
    assert_eq!(
        r.json()["error"]["message"],
        format!(
            "gone: the events after Last-Event-ID '{stream}:0' are no longer held (the oldest held of that stream is '{stream}:2'); the stream cannot be resumed without missing events"
        )
    );
    // ...and the client that saw step 1 lost nothing: it follows the rest of the call.
    let last = first.id.clone().unwrap();
    let mut resumed = Sse::open(addr, "GET", &get_headers(addr, &session, Some(&last)), "").await;
    assert_eq!(resumed.status, 200);
    let events = resumed.rest(Duration::from_secs(15)).await;
    assert_eq!(events.iter().map(step).collect::<Vec<_>>(), [Some(2), Some(3), None], "{events:#?}");
    assert_eq!(events.iter().map(Event::seq).collect::<Vec<_>>(), [2, 3, 4]);
    assert_eq!(events[2].json()["result"]["content"][0]["text"], "3 steps");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_not_ready_in_time_is_closed_with_retry_and_polled() {
    let config =
        HttpConfig::new(Auth::None).sse_polling(Duration::from_millis(100), Duration::from_millis(250));
    let addr = serve(config).await;
    let session = open_session(addr).await;
    let body = call(2, "steps", json!({"count": 2, "gap_ms": 400}));
    let mut post = Sse::open(addr, "POST", &session_headers(addr, &session), &body).await;
    let events = post.rest(Duration::from_secs(5)).await;
    assert_eq!(events.len(), 1, "{events:#?}");
    let priming = &events[0];
    assert_eq!((priming.seq(), priming.retry, priming.data.as_str()), (0, Some(250), ""));
    let mut polled = Sse::open(addr, "GET", &get_headers(addr, &session, priming.id.as_deref()), "").await;
    let rest = polled.rest(Duration::from_secs(10)).await;
    let steps: Vec<Option<u64>> = rest.iter().map(step).collect();
    assert_eq!(steps, [Some(1), Some(2), None], "{rest:#?}");
    assert_eq!(rest.iter().map(Event::seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(rest[2].json()["result"]["content"][0]["text"], "2 steps");

    // A call that answers in time is not polled: plain JSON.
    let quick = call(3, "steps", json!({"count": 0, "gap_ms": 0}));
    let r = blocking(addr, "POST", session_headers(addr, &session), &quick).await;
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "0 steps");
}

#[test]
fn python_sdk_follows_a_polled_answer_and_hears_logs_sent_after_its_call() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let config =
        HttpConfig::new(Auth::None).sse_polling(Duration::from_millis(100), Duration::from_millis(200));
    let addr = runtime.block_on(serve(config));
    let driver = toolwire_tests::tests_dir().join("peers/clients/py_sse_resume.py");
    let out = std::process::Command::new(peer_support::peer("TOOLWIRE_PY_MCP2"))
        .arg(driver)
        .args(["--url", &format!("http://{addr}/mcp")])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the Python driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let cases: std::collections::BTreeMap<String, Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}\n{stderr}")))
        .map(|v| (v["case"].as_str().unwrap().to_owned(), v))
        .collect();
    assert_eq!(
        cases["polled"],
        json!({"case": "polled", "text": "3 steps", "is_error": false, "logs": [{"step": 1}, {"step": 2}, {"step": 3}]})
    );
    assert_eq!(
        cases["out_of_call"],
        json!({"case": "out_of_call", "text": "answered", "logs_before_answer": [], "logs": [{"after": 1}, {"after": 2}, {"after": 3}]})
    );
}

#[test]
fn typescript_sdk_v2_reconnects_a_polled_answer_with_last_event_id() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let config =
        HttpConfig::new(Auth::None).sse_polling(Duration::from_millis(100), Duration::from_millis(200));
    let addr = runtime.block_on(serve(config));
    let driver = toolwire_tests::tests_dir().join("peers/clients/ts_v2_sse_resume.mjs");
    let out = std::process::Command::new(peer_support::peer("TOOLWIRE_NODE22"))
        .arg(driver)
        .args(["--url", &format!("http://{addr}/mcp")])
        .env("TOOLWIRE_NODE_MODULES", peer_support::peer("TOOLWIRE_NODE_MODULES"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the TypeScript driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let got: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    assert_eq!(got["version"], "2025-11-25");
    assert_eq!((got["text"].as_str(), got["is_error"].as_bool()), (Some("3 steps"), Some(false)), "{got}");
    assert_eq!(got["logs"], json!([{"step": 1}, {"step": 2}, {"step": 3}]));
    // Every event id it saw: the priming event's, then the resumed stream's, one stream.
    let tokens: Vec<&str> = got["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let stream = tokens[0].strip_suffix(":0").unwrap_or_else(|| panic!("priming first: {tokens:?}"));
    let want: Vec<String> = (0..=4).map(|n| format!("{stream}:{n}")).collect();
    assert_eq!(tokens, want);
    assert_eq!(got["errors"], json!([]), "{got}");
}
