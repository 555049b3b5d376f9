//! A minimal HTTP/1.1 client on std's `TcpStream`, for the few requests the HTTP bench makes
//! around its `wrk` runs (open a session, check an answer, open idle sessions): one request
//! per connection (`Connection: close`), read to the end, chunked bodies decoded. And
//! [`KeepAlive`], requests one after another on one connection, for the instruction count of
//! a server under callgrind.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A parsed answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: String,
}

impl Answer {
    /// A header's value (name in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// The `host:port` and path of an `http://` URL.
pub fn split_url(url: &str) -> Result<(SocketAddr, String), String> {
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("not an http:// URL: {url}"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].to_owned()),
        None => (rest, "/".to_owned()),
    };
    let addr = authority.parse().map_err(|e| format!("bad address in {url}: {e}"))?;
    Ok((addr, path))
}

/// POST `body` to `path` with `headers`, and read the whole answer.
pub fn post(addr: SocketAddr, path: &str, headers: &[(&str, &str)], body: &str) -> Result<Answer, String> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("connect to {addr}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).map_err(|e| format!("write to {addr}: {e}"))?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(|e| format!("read from {addr}: {e}"))?;
    parse(&raw)
}

/// One keep-alive connection, for requests one after another: what `wrk` does per
/// connection, without its load (`http-bench --calls`). Every answer must carry a
/// `Content-Length` or be chunked (rmcp's answers in a legacy session are an SSE stream).
pub struct KeepAlive {
    stream: TcpStream,
    addr: SocketAddr,
    /// Bytes read and not yet part of an answer.
    buf: Vec<u8>,
}

impl KeepAlive {
    /// Connect to `addr`.
    pub fn connect(addr: SocketAddr) -> Result<KeepAlive, String> {
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
            .map_err(|e| format!("connect to {addr}: {e}"))?;
        stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        Ok(KeepAlive { stream, addr, buf: Vec::with_capacity(4096) })
    }

    /// POST `body` to `path` with `headers` and read its answer; the connection stays open.
    pub fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &str) -> Result<Answer, String> {
        let addr = self.addr;
        let mut request =
            format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n", body.len());
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        self.stream.write_all(request.as_bytes()).map_err(|e| format!("write to {addr}: {e}"))?;
        let head_end = loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            self.fill()?;
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).to_ascii_lowercase();
        let chunked = head
            .split("\r\n")
            .any(|l| l.strip_prefix("transfer-encoding:").is_some_and(|v| v.trim() == "chunked"));
        let end = if chunked {
            loop {
                if let Some((end, _)) = chunked_body(&self.buf, head_end)? {
                    break end;
                }
                self.fill()?;
            }
        } else {
            let length: usize = head
                .split("\r\n")
                .find_map(|l| l.strip_prefix("content-length:"))
                .ok_or("a keep-alive answer with neither a Content-Length nor chunked framing")?
                .trim()
                .parse()
                .map_err(|e| format!("bad Content-Length: {e}"))?;
            while self.buf.len() < head_end + length {
                self.fill()?;
            }
            head_end + length
        };
        let answer = parse(&self.buf[..end]);
        self.buf.drain(..end);
        answer
    }

    fn fill(&mut self) -> Result<(), String> {
        let mut chunk = [0u8; 4096];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err(format!("{} closed the connection mid-answer", self.addr)),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e) => Err(format!("read from {}: {e}", self.addr)),
        }
    }
}

fn parse(raw: &[u8]) -> Result<Answer, String> {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").ok_or("an answer without a header end")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line: {status_line}"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked { dechunk(body)? } else { body.to_owned() };
    Ok(Answer { status, headers, body })
}

/// A chunked body that starts at `from` in `buf`: where it ends (past its last chunk's empty
/// line) and its bytes, or `None` while part of it is still to come. Trailers are not
/// expected (no server here sends them).
fn chunked_body(buf: &[u8], mut from: usize) -> Result<Option<(usize, Vec<u8>)>, String> {
    let mut body = Vec::new();
    loop {
        let Some(line) = buf[from..].windows(2).position(|w| w == b"\r\n") else { return Ok(None) };
        let size = std::str::from_utf8(&buf[from..from + line]).map_err(|e| e.to_string())?;
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|e| format!("bad chunk size {size:?}: {e}"))?;
        // The size line, the chunk and its CRLF (the last chunk is empty: its CRLF ends the body).
        let start = from + line + 2;
        let end = start + size + 2;
        if buf.len() < end {
            return Ok(None);
        }
        if &buf[end - 2..end] != b"\r\n" {
            return Err("a chunk without its CRLF".into());
        }
        if size == 0 {
            return Ok(Some((end, body)));
        }
        body.extend_from_slice(&buf[start..end - 2]);
        from = end;
    }
}

fn dechunk(rest: &str) -> Result<String, String> {
    let (_, body) = chunked_body(rest.as_bytes(), 0)?.ok_or("a chunked body cut short")?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunked_answer_reads_back() {
        let raw = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
        let a = parse(raw).unwrap();
        assert_eq!(a.status, 200);
        assert_eq!(a.header("content-type"), Some("text/event-stream"));
        assert_eq!(a.body, "hello world");
    }

    #[test]
    fn a_chunked_body_ends_after_its_empty_chunk() {
        let head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
        let body = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
        let whole = [&head[..], &body[..], b"HTTP/1.1 200 OK"].concat();
        let end = head.len() + body.len();
        assert_eq!(chunked_body(&whole, head.len()), Ok(Some((end, b"hello world".to_vec()))));
        for cut in head.len()..end {
            assert_eq!(chunked_body(&whole[..cut], head.len()), Ok(None), "cut at {cut}");
        }
        assert!(chunked_body(b"zz\r\n", 0).is_err());
    }

    #[test]
    fn a_url_splits() {
        let (addr, path) = split_url("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(addr.port(), 8080);
        assert_eq!(path, "/mcp");
        assert!(split_url("https://x/").is_err());
    }
}
