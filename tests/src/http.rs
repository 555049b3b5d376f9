//! A raw HTTP/1.1 client over a std `TcpStream`, for status-code tests that need full
//! control of every header (a foreign `Host`, a missing `Accept`) and must see the bytes
//! the server sent.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One response, read to the end of the connection.
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// The status code.
    pub status: u16,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: String,
}

impl RawResponse {
    /// The first header called `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))
    }

    /// The `data:` payloads of an SSE body, as JSON.
    pub fn sse_events(&self) -> Vec<serde_json::Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).expect("SSE data is JSON"))
            .collect()
    }
}

/// The headers a well-behaved MCP client sends with a POST (no auth).
pub fn mcp_headers(addr: SocketAddr) -> Vec<(String, String)> {
    vec![
        ("Host".into(), addr.to_string()),
        ("Accept".into(), "application/json, text/event-stream".into()),
        ("Content-Type".into(), "application/json".into()),
    ]
}

/// Send one request with exactly these headers (plus `Content-Length`) and hand back the
/// connection, to read a streamed answer from as it comes ([`sse_events_in`]).
pub fn open(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect to the server under test");
    let mut req = format!("{method} {path} HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(req.as_bytes()).unwrap();
    stream
}

/// One SSE event: its `id:` (if any) and its `data:`.
pub type SseEvent = (Option<String>, String);

/// The complete SSE events, with JSON data, in the raw bytes of a response read so far (its
/// head, chunked or not; or a later part without the head).
pub fn sse_events_in(raw: &[u8]) -> Vec<SseEvent> {
    let text = String::from_utf8_lossy(raw);
    // The head, when this is the start of the response (a later read has none).
    let body = match text.split_once("\r\n\r\n") {
        Some((_, body)) if text.starts_with("HTTP/") => body,
        _ if text.starts_with("HTTP/") => return Vec::new(),
        _ => &text,
    };
    let mut events = Vec::new();
    for block in body.split("\n\n") {
        let (mut id, mut data) = (None, None);
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id: ") {
                id = Some(v.trim().to_owned());
            } else if let Some(v) = line.strip_prefix("data: ") {
                data = Some(v.trim().to_owned());
            }
        }
        if let Some(data) =
            data.filter(|d| d.starts_with('{') && serde_json::from_str::<serde_json::Value>(d).is_ok())
        {
            events.push((id, data));
        }
    }
    events
}

/// Send one request with exactly these headers (plus `Content-Length` and
/// `Connection: close`) and read the whole response.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> RawResponse {
    let mut stream = TcpStream::connect(addr).expect("connect to the server under test");
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    stream.write_all(req.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the response");
    parse(&raw)
}

fn parse(raw: &[u8]) -> RawResponse {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete response head");
    let head = std::str::from_utf8(&raw[..split]).expect("ASCII head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let rest = &raw[split + 4..];
    let chunked = headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked { dechunk(rest) } else { rest.to_vec() };
    RawResponse { status, headers, body: String::from_utf8(body).expect("UTF-8 body") }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size_text = std::str::from_utf8(&rest[..end]).unwrap();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap_or(0);
        rest = &rest[end + 2..];
        if size == 0 || rest.len() < size {
            break;
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[(size + 2).min(rest.len())..];
    }
    out
}
