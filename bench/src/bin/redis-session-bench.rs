//! What a shared session store costs a legacy request: p50 (and p90, p99) of a legacy
//! `tools/call` (`echo`) over one keep-alive loopback connection to toolwire's `mcp_router`,
//! in one run, with no session store (the default), with a `MemorySessionStore`, and with a
//! `RedisSessionStore` on a `redis-server` this bench starts on a free loopback port; and the
//! store's own lookup (`SessionStore::touch`, one `GETEX`) timed alone.
//!
//!     cargo run --release -p toolwire-bench --features redis --bin redis-session-bench [-- --calls N]
//!
//! Needs `redis-server` (`bash tests/peers/redis/setup.sh`). Goal (issue 16): the Redis
//! lookup adds at most 150 µs p50 per legacy request on loopback.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolwire::http::{Auth, HttpConfig, MemorySessionStore, SessionStore, mcp_router};
use toolwire::redis::RedisSessionStore;
use toolwire::{Server, ServerOptions, tool, tools};
use toolwire_bench::stats::percentile_sorted;

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// A `redis-server` of the bench's own, killed when dropped.
struct Redis(Child, u16);

impl Redis {
    fn start() -> Redis {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server (bash tests/peers/redis/setup.sh installs it)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        Redis(child, port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One keep-alive connection, one request at a time.
struct Conn {
    stream: TcpStream,
    addr: SocketAddr,
    buf: Vec<u8>,
}

impl Conn {
    fn new(addr: SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Conn { stream, addr, buf: Vec::new() }
    }

    /// POST `body`; the status, the session id if any, and the body.
    fn post(&mut self, session: Option<&str>, body: &str) -> (u16, Option<String>, String) {
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(s) = session {
            req.push_str(&format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        self.stream.write_all(req.as_bytes()).unwrap();
        self.read()
    }

    fn read(&mut self) -> (u16, Option<String>, String) {
        let mut chunk = [0u8; 8192];
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                let length = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned())
                    })
                    .and_then(|v| v.parse::<usize>().ok());
                if let Some(length) = length
                    && self.buf.len() >= end + 4 + length
                {
                    let body = String::from_utf8_lossy(&self.buf[end + 4..end + 4 + length]).into_owned();
                    self.buf.drain(..end + 4 + length);
                    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
                    let session = head.lines().find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("mcp-session-id").then(|| v.trim().to_owned())
                    });
                    return (status, session, body);
                }
                assert!(length.is_some(), "an answer without Content-Length: {head}");
            }
            let n = self.stream.read(&mut chunk).expect("read");
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// Serve `config` on a loopback port.
async fn serve(config: HttpConfig) -> SocketAddr {
    let server = Server::new(tools![echo].unwrap(), ServerOptions::new("bench", "1.0.0"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, mcp_router(server, config)).await });
    addr
}

/// Latencies (ns, sorted) of `calls` legacy `tools/call`s in one session on `addr`.
fn legacy_calls(addr: SocketAddr, calls: usize) -> Vec<u64> {
    let mut conn = Conn::new(addr);
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
    let (status, session, body) = conn.post(None, init);
    assert_eq!(status, 200, "{body}");
    let session = session.expect("a session id");
    let (status, _, _) =
        conn.post(Some(&session), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(status, 202);
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    let warmup = (calls / 10).max(50);
    let mut samples = Vec::with_capacity(calls);
    for i in 0..warmup + calls {
        let start = Instant::now();
        let (status, _, body) = conn.post(Some(&session), call);
        let took = start.elapsed();
        assert!(status == 200 && body.contains("\"text\":\"hi\""), "{status} {body}");
        if i >= warmup {
            samples.push(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX));
        }
    }
    samples.sort_unstable();
    samples
}

fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn row(name: &str, sorted: &[u64]) -> u64 {
    let (p50, p90, p99) =
        (percentile_sorted(sorted, 50.0), percentile_sorted(sorted, 90.0), percentile_sorted(sorted, 99.0));
    println!("| {name} | {} | {:.1} | {:.1} | {:.1} |", sorted.len(), micros(p50), micros(p90), micros(p99));
    p50
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let calls: usize = match std::env::args().skip_while(|a| a != "--calls").nth(1) {
        Some(n) => n.parse().expect("--calls N"),
        None => 5_000,
    };
    let redis = Redis::start();
    let url = format!("redis://127.0.0.1:{}/", redis.1);
    let redis_store = Arc::new(RedisSessionStore::open(&url, "bench").expect("a Redis URL"));

    let none = serve(HttpConfig::new(Auth::None)).await;
    let memory = serve(HttpConfig::new(Auth::None).session_store(Arc::new(MemorySessionStore::new()))).await;
    let shared = serve(HttpConfig::new(Auth::None).session_store(redis_store.clone())).await;

    println!(
        "legacy tools/call (echo), one keep-alive loopback connection, {calls} calls each (after a warm-up), in µs:\n"
    );
    println!("| session store | calls | p50 | p90 | p99 |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let mut p50s = Vec::new();
    for (name, addr) in
        [("none (default)", none), ("MemorySessionStore", memory), ("RedisSessionStore", shared)]
    {
        let samples = tokio::task::spawn_blocking(move || legacy_calls(addr, calls)).await.unwrap();
        p50s.push(row(name, &samples));
    }

    // The lookup alone: one GETEX per legacy request.
    let state = toolwire::http::SessionState::from_json(
        r#"{"protocolVersion":"2025-11-25","logLevel":"info","initialized":true,"subject":"host"}"#,
    )
    .unwrap();
    let ttl = Duration::from_secs(600);
    redis_store.save("lookup", &state, ttl).await.unwrap();
    let mut lookups = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        assert!(redis_store.touch("lookup", ttl).await.unwrap().is_some());
        lookups.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
    }
    lookups.sort_unstable();
    let lookup = row("RedisSessionStore::touch alone (GETEX)", &lookups);
    let added = p50s[2] as f64 - p50s[0] as f64;
    println!(
        "\nRedis session lookup per legacy request: +{:.1} µs p50 over no store ({:.1} µs p50 for the GETEX alone); goal ≤ 150 µs",
        added / 1000.0,
        micros(lookup)
    );
}
