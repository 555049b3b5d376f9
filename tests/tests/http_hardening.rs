//! Hardening of the loopback HTTP server, on real sockets on 127.0.0.1: exact 400s for
//! repeated `Host`/`Origin` headers, empty bodies and bodies that fail to arrive (413 only
//! past the limit), and a connection cap that keeps an authenticated client served while
//! 1,100 idle sockets are open against a server limited to 1,024 file descriptors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::spec::SpecOptions;
use toolwire::{McpServerSpec, serve_registry, tool, tools};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn spec() -> McpServerSpec {
    let mut spec = serve_registry(
        Server::new(tools![echo].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap();
    spec.start().unwrap();
    spec
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// The head of a well-formed POST to `/mcp` (auth included), without framing headers.
fn head(spec: &McpServerSpec) -> String {
    let mut h = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
        spec.local_addr().unwrap()
    );
    for (k, v) in spec.auth_headers() {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    h
}

/// Write `bytes`, optionally close the write half, and read the response: status and body.
fn exchange(addr: SocketAddr, bytes: &[u8], half_close: bool) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(bytes).unwrap();
    if half_close {
        stream.shutdown(Shutdown::Write).unwrap();
    }
    read_response(&mut stream)
}

/// One response with a `Content-Length` body (every refusal here has one).
fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .unwrap_or_else(|| panic!("a status line: {status_line:?}"))
        .parse()
        .unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

fn message(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("JSON ({e}): {body}"));
    v["error"]["message"].as_str().unwrap_or_else(|| panic!("an error message: {body}")).to_owned()
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_host_or_origin_headers_are_400() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    let base = head(&spec);
    let twice_host = format!("{base}Host: {addr}\r\nContent-Length: {}\r\n\r\n{INIT}", INIT.len());
    let (status, body) = blocking(move || exchange(addr, twice_host.as_bytes(), false)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(message(&body), "bad request: more than one Host header");
    let twice_origin = format!(
        "{base}Origin: http://localhost\r\nOrigin: http://localhost\r\nContent-Length: {}\r\n\r\n{INIT}",
        INIT.len()
    );
    let (status, body) = blocking(move || exchange(addr, twice_origin.as_bytes(), false)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(message(&body), "bad request: more than one Origin header");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_or_blank_body_is_400() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    for body in ["", " \r\n\t "] {
        let bytes = format!("{}Content-Length: {}\r\n\r\n{body}", head(&spec), body.len());
        let (status, text) = blocking(move || exchange(addr, bytes.as_bytes(), false)).await;
        assert_eq!(status, 400, "{body:?}: {text}");
        assert_eq!(message(&text), "parse error: the body is empty");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_fails_to_arrive_is_400_naming_why_and_only_an_oversized_one_is_413() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    let base = head(&spec);

    let bad_chunk = format!("{base}Transfer-Encoding: chunked\r\n\r\nzz\r\n{INIT}\r\n0\r\n\r\n");
    let (status, body) = blocking(move || exchange(addr, bad_chunk.as_bytes(), false)).await;
    assert_eq!(status, 400, "{body}");
    assert!(message(&body).starts_with("bad request: the body's chunked encoding is invalid"), "{body}");

    let cut = format!("{base}Content-Length: {}\r\n\r\n{}", INIT.len(), &INIT[..20]);
    let (status, body) = blocking(move || exchange(addr, cut.as_bytes(), true)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        message(&body),
        format!(
            "bad request: the body was cut short: the connection closed before its end (Content-Length: {})",
            INIT.len()
        )
    );

    let chunked = format!("{:x}\r\n{INIT}\r\n0\r\n\r\n", INIT.len());
    for order in [
        format!("{base}Content-Length: {}\r\nTransfer-Encoding: chunked\r\n\r\n{chunked}", INIT.len()),
        format!("{base}Transfer-Encoding: chunked\r\nContent-Length: {}\r\n\r\n{chunked}", INIT.len()),
    ] {
        let (status, body) = blocking(move || exchange(addr, order.as_bytes(), false)).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            message(&body),
            "bad request: both Content-Length and Transfer-Encoding are set; send one (RFC 9112 §6.3)"
        );
    }

    let big = "x".repeat(toolwire::http::DEFAULT_MAX_BODY + 1);
    let over = format!("{base}Content-Length: {}\r\n\r\n{big}", big.len());
    let (status, body) = blocking(move || exchange(addr, over.as_bytes(), false)).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(
        message(&body),
        format!("payload too large: the body is over the {}-byte limit", toolwire::http::DEFAULT_MAX_BODY)
    );
}

/// The server of `serve-for-cli`, spawned under `prlimit --nofile=1024`.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_authenticated_call_gets_through_1100_idle_connections_with_1024_descriptors() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("skipped: prlimit(1) is not installed");
        return;
    }
    let mut child = Child(
        Command::new("prlimit")
            .args(["--nofile=1024:1024", "--"])
            .arg(env!("CARGO_BIN_EXE_serve-for-cli"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn serve-for-cli under prlimit"),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
    let served: Value = serde_json::from_str(&line).unwrap();
    let url = served["url"].as_str().unwrap();
    let addr: SocketAddr = url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let token =
        served["codex_env"].as_object().unwrap().values().next().unwrap().as_str().unwrap().to_owned();

    // 1,100 idle sockets: connected, and half of them with half a request head.
    let mut idle = Vec::new();
    for i in 0..1100 {
        let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else { continue };
        if i % 2 == 0 {
            let _ = s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        }
        idle.push(s);
    }
    std::thread::sleep(Duration::from_millis(200));

    let started = Instant::now();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{INIT}",
        INIT.len()
    );
    let mut stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(1)).expect("connect past the idle sockets");
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let (status, body) = read_response(&mut stream);
    let took = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"protocolVersion\""), "{body}");
    assert!(took < Duration::from_secs(1), "answered in {took:?}");
    drop(idle);
    drop(child.0.stdin.take());
}
