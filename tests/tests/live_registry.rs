//! A registry that changes while serving (`ServerBuilder::live`), on real processes and
//! sockets: `tests/src/bin/live-server.rs` as a stdio child and as a loopback HTTP server.
//!
//! - the Python SDK 2.3.0 client (`tests/peers/clients/py_live.py`) over stdio and legacy
//!   HTTP, in the legacy era (unsolicited `notifications/tools/list_changed`; over HTTP on the
//!   session's GET stream) and in auto mode, which settles on 2026-07-28
//!   (`subscriptions/listen` with `toolsListChanged`): a tool added is listed and called, a
//!   tool removed mid-call still answers that call, and is then the exact unknown-tool
//!   error; over legacy HTTP a `resources/subscribe` gets its update on the GET stream;
//! - the GET stream's own rules with their exact bodies (no session, an unknown one, a wrong
//!   `Accept`, a second stream, the stream ended by DELETE), on raw sockets.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use toolwire_tests::http::{RawResponse, mcp_headers, request};

mod peer_support;
use peer_support::peer;

const SERVER: &str = env!("CARGO_BIN_EXE_live-server");

/// One peer at a time: each starts a Python runtime plus the server.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn python(transport: &str, mode: &str) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let driver = toolwire_tests::tests_dir().join("peers/clients/py_live.py");
    let out = Command::new(peer("TOOLWIRE_PY_MCP2"))
        .arg(driver)
        .args(["--transport", transport, "--mode", mode, "--", SERVER])
        .output()
        .expect("run the Python driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        out.status.success() && last.ends_with(" 0 failed") && !stdout.contains("FAIL "),
        "py_live.py --transport {transport} --mode {mode} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // Every check ran: none was skipped by an early exit.
    let passed: usize = last.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let expected = match (transport, mode) {
        ("http", "legacy") => 14,
        (_, "legacy") => 12,
        _ => 13,
    };
    assert_eq!(passed, expected, "{stdout}");
}

#[test]
fn python_sdk_over_stdio_hears_of_added_and_removed_tools() {
    python("stdio", "legacy");
}

#[test]
fn python_sdk_over_legacy_http_hears_of_changes_and_updates_on_the_get_stream() {
    python("http", "legacy");
}

#[test]
fn python_sdk_on_2026_07_28_over_stdio_hears_of_changes_on_subscriptions_listen() {
    python("stdio", "auto");
}

#[test]
fn python_sdk_on_2026_07_28_over_http_hears_of_changes_on_subscriptions_listen() {
    python("http", "auto");
}

/// `live-server --http`, killed when dropped.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_server() -> HttpServer {
    let mut child =
        Command::new(SERVER).arg("--http").stdout(Stdio::piped()).spawn().expect("start live-server --http");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("url http://").unwrap_or_else(|| panic!("printed {line:?}"));
    let addr = url.strip_suffix("/mcp").unwrap().parse().unwrap();
    HttpServer { child, addr }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// A legacy session through its handshake; its id.
fn open_session(addr: SocketAddr) -> String {
    let r = request(addr, "POST", "/mcp", &mcp_headers(addr), INIT);
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    let r = request(
        addr,
        "POST",
        "/mcp",
        &with(mcp_headers(addr), "Mcp-Session-Id", &id),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(r.status, 202);
    id
}

fn with(mut headers: Vec<(String, String)>, name: &str, value: &str) -> Vec<(String, String)> {
    headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
    headers.push((name.to_owned(), value.to_owned()));
    headers
}

fn get_headers(addr: SocketAddr, session: Option<&str>) -> Vec<(String, String)> {
    let mut h =
        vec![("Host".to_owned(), addr.to_string()), ("Accept".to_owned(), "text/event-stream".to_owned())];
    if let Some(id) = session {
        h.push(("Mcp-Session-Id".to_owned(), id.to_owned()));
    }
    h
}

/// An open GET stream: the socket, and everything read from it so far.
struct Stream {
    socket: TcpStream,
    raw: Vec<u8>,
}

impl Stream {
    fn open(addr: SocketAddr, session: &str) -> (Stream, String) {
        let mut socket = TcpStream::connect(addr).unwrap();
        socket.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let mut req = String::from("GET /mcp HTTP/1.1\r\n");
        for (k, v) in get_headers(addr, Some(session)) {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        socket.write_all(req.as_bytes()).unwrap();
        let mut stream = Stream { socket, raw: Vec::new() };
        let head = stream.read_until(Duration::from_secs(10), |raw| raw.windows(4).any(|w| w == b"\r\n\r\n"));
        (stream, head)
    }

    /// Read until `done` holds for what was read, or `within` passes; what was read, as text.
    fn read_until(&mut self, within: Duration, done: impl Fn(&[u8]) -> bool) -> String {
        let end = Instant::now() + within;
        let mut buf = [0u8; 4096];
        while !done(&self.raw) && Instant::now() < end {
            match self.socket.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.raw.extend_from_slice(&buf[..n]),
                Err(e)
                    if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(e) => panic!("reading the GET stream: {e}"),
            }
        }
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// Wait for an SSE event whose data holds `needle`.
    fn expect(&mut self, needle: &str) -> String {
        let text =
            self.read_until(Duration::from_secs(10), |raw| String::from_utf8_lossy(raw).contains(needle));
        assert!(text.contains(needle), "no {needle} on the GET stream; read:\n{text}");
        text
    }

    /// Whether the server ended the stream (the last chunk, or the connection closed).
    fn ended(&mut self) -> bool {
        let end = Instant::now() + Duration::from_secs(10);
        let mut buf = [0u8; 4096];
        while Instant::now() < end {
            match self.socket.read(&mut buf) {
                Ok(0) => return true,
                Ok(n) => {
                    self.raw.extend_from_slice(&buf[..n]);
                    if self.raw.ends_with(b"0\r\n\r\n") {
                        return true;
                    }
                }
                Err(e)
                    if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(_) => return true,
            }
        }
        false
    }
}

fn get(addr: SocketAddr, headers: &[(String, String)]) -> RawResponse {
    request(addr, "GET", "/mcp", headers, "")
}

#[test]
fn the_get_stream_refuses_with_exact_bodies_and_ends_with_its_session() {
    let server = http_server();
    let addr = server.addr;

    let r = get(addr, &get_headers(addr, None));
    assert_eq!(
        (r.status, r.body.as_str()),
        (
            400,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad request: missing Mcp-Session-Id header; send initialize first"}}"#
        )
    );
    let r = get(addr, &get_headers(addr, Some("nope")));
    assert_eq!(
        (r.status, r.body.as_str()),
        (
            404,
            r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"not found: no such session (it ended or never existed); send initialize again"}}"#
        )
    );
    let session = open_session(addr);
    let r = get(addr, &with(get_headers(addr, Some(&session)), "Accept", "application/json"));
    assert_eq!(
        (r.status, r.body.as_str()),
        (
            406,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"not acceptable: a GET stream is server-sent events; the Accept header must name text/event-stream"}}"#
        )
    );

    let (mut stream, head) = Stream::open(addr, &session);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: text/event-stream"), "{head}");
    let r = get(addr, &get_headers(addr, Some(&session)));
    assert_eq!(
        (r.status, r.body.as_str()),
        (
            409,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"conflict: this session already has its GET stream open; only one is allowed per session"}}"#
        )
    );

    // A change reaches the session on its stream, not on the POST that caused it.
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grow","arguments":{}}}"#;
    let r = request(addr, "POST", "/mcp", &with(mcp_headers(addr), "Mcp-Session-Id", &session), call);
    assert_eq!(r.status, 200);
    assert!(r.body.contains("added extra") && !r.body.contains("list_changed"), "{}", r.body);
    stream.expect(r#"data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#);

    // DELETE ends the session, and its stream with it.
    let r = request(addr, "DELETE", "/mcp", &with(mcp_headers(addr), "Mcp-Session-Id", &session), "");
    assert_eq!(r.status, 204);
    assert!(stream.ended(), "the GET stream outlived its session");
    let r = get(addr, &get_headers(addr, Some(&session)));
    assert_eq!(r.status, 404);
}

#[test]
fn what_is_sent_before_the_stream_opens_waits_for_it_and_a_closed_stream_can_be_reopened() {
    let server = http_server();
    let addr = server.addr;
    let session = open_session(addr);
    // Sent before the client opened its stream: it waits for it.
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shrink","arguments":{"name":"slow"}}}"#;
    let r = request(addr, "POST", "/mcp", &with(mcp_headers(addr), "Mcp-Session-Id", &session), call);
    assert!(r.body.contains("removed slow"), "{}", r.body);
    let (mut stream, head) = Stream::open(addr, &session);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    stream.expect(r#"data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#);
    // The client closes it; once the server has noticed, a new one opens.
    drop(stream);
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let (_stream, head) = Stream::open(addr, &session);
        if head.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(head.starts_with("HTTP/1.1 409") && Instant::now() < end, "{head}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
