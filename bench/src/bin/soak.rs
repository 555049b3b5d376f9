//! The soak run: `--calls` tool calls through one server process, a mix of valid calls,
//! panicking tools, calls past the server's deadline and calls the client cancels, over
//! stdio (the default) or, with `--http`, loopback streamable HTTP. std only, like the
//! driver.
//!
//! stdio, with `--window` answers outstanding. Per 100 calls (by id): 89 `echo` (a result),
//! 5 `panic` (`isError`), 1 `sleep` past the deadline (`isError`, the server's timeout), 5
//! `sleep(60s)` cancelled at once with `notifications/cancelled` (no answer, ever; or, if the
//! server's deadline fired before it read the cancel, the deadline's answer, once:
//! `cancel_after_deadline`). Dropped connections are not part of the stdio mix: a stdio
//! server has one connection, and its end is the end of the process.
//!
//! HTTP (`--http`; the server is `soak-server --http`, which prints `url`, `authorization`
//! and `ready`): one legacy session (initialize, notifications/initialized), then `--window`
//! client threads, each call a POST on its own connection (`bench/src/http.rs`), bearer
//! token and `Mcp-Session-Id` on every one. Per 100 calls: 85 `echo`, 5 `panic`, 1 `sleep`
//! past the deadline, 5 `sleep(60s)` cancelled with `notifications/cancelled` in a POST of
//! its own while the call's connection waits (its answer: 202 with no body; or the
//! deadline's, once, if it fired first), and 4 dropped connections (a `sleep(60s)` call
//! whose client closes its socket before any answer). Over legacy sessions a dropped
//! connection is not a cancellation (see `runtime/src/transport/http/mod.rs`): the call runs
//! on until the server's deadline ends it, holding one of the session's `max_in_flight`
//! permits (32) meanwhile; so run it with a deadline, one the cancel can beat over a socket
//! (run.sh: `--deadline-ms 100`, `--past-deadline-ms 400`). Without one, 32 dropped
//! `sleep(60s)` calls fill the session and the run stalls into its watchdog.
//!
//! At each checkpoint (10k, 100k and the last call, those within `--calls`) it prints the
//! server's resident set, open descriptors, threads, its runtime's alive tasks
//! (`SOAK_METRICS`, see `soak-server`) and the calls the client has outstanding (0: it
//! settles first). At the end every call must have been answered exactly once (none for
//! the cancelled and dropped ones) and with the outcome its kind owes, and the server must
//! exit 0 once stdin closes; otherwise the exit code is 1. `--goal` also fails the run if
//! the resident set at the last checkpoint is over 1.2x the one at 100k.
//!
//! ```text
//! soak --calls 1000000 [--http] [--window 16] [--goal] [--timeout-s 1800]
//!      [--past-deadline-ms 50] -- SERVER [ARGS...]
//! ```

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use toolwire_bench::http::{post, split_url};
use toolwire_bench::json;
use toolwire_bench::proc::{rss_kb, status_kb, wait_bounded};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Echo,
    Panic,
    Timeout,
    Cancelled,
}

fn kind(id: u64) -> Kind {
    match id % 100 {
        0..=88 => Kind::Echo,
        89..=93 => Kind::Panic,
        94 => Kind::Timeout,
        _ => Kind::Cancelled,
    }
}

struct Args {
    calls: u64,
    window: u64,
    goal: bool,
    timeout: Duration,
    http: bool,
    past_deadline_ms: u64,
    server: Vec<String>,
}

fn args() -> Args {
    let mut a = Args {
        calls: 1_000_000,
        window: 16,
        goal: false,
        timeout: Duration::from_secs(1800),
        http: false,
        past_deadline_ms: 50,
        server: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--calls" => a.calls = value().parse().expect("--calls N"),
            "--window" => a.window = value().parse::<u64>().expect("--window N").max(1),
            "--timeout-s" => a.timeout = Duration::from_secs(value().parse().expect("--timeout-s N")),
            "--goal" => a.goal = true,
            "--http" => a.http = true,
            "--past-deadline-ms" => a.past_deadline_ms = value().parse().expect("--past-deadline-ms N"),
            "--" => {
                a.server = it.collect();
                break;
            }
            other => panic!("unknown argument {other}"),
        }
    }
    assert!(!a.server.is_empty(), "usage: soak --calls N [--window W] [--goal] -- SERVER [ARGS...]");
    a
}

/// What the client has seen: answers per id, and calls it is owed an answer for.
struct Tally {
    answers: Vec<u8>,
    wrong: Vec<String>,
    /// Requests sent that owe an answer and have none yet.
    outstanding: u64,
    /// Answers received (calls completed, for the checkpoints).
    done: u64,
    /// Calls past the deadline answered with their result (the sleep's timer fired first).
    late: u64,
}

fn main() -> ExitCode {
    let a = args();
    if a.http {
        return http_soak(&a);
    }
    let (mut child, metrics) = spawn_server(&a, "stdio");
    let pid = child.id();
    let mut stdin = BufWriter::new(child.stdin.take().unwrap());
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"soak","version":"1"}}}}}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""id":0,"result""#), "initialize: {line}");

    let watchdog = Arc::new(AtomicBool::new(false));
    {
        let (watchdog, limit) = (watchdog.clone(), a.timeout);
        std::thread::spawn(move || {
            std::thread::sleep(limit);
            watchdog.store(true, Ordering::Relaxed);
            eprintln!("soak: the --timeout-s watchdog fired");
            std::process::exit(1);
        });
    }

    let calls = a.calls;
    let tally = Arc::new((
        Mutex::new(Tally {
            answers: vec![0; calls as usize + 1],
            wrong: Vec::new(),
            outstanding: 0,
            done: 0,
            late: 0,
        }),
        Condvar::new(),
    ));
    let slept = format!("slept {}ms", a.past_deadline_ms);
    let reader = {
        let tally = tally.clone();
        std::thread::spawn(move || {
            let mut line = Vec::new();
            loop {
                line.clear();
                if stdout.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
                    return;
                }
                let id = json::top_level(&line, "id").and_then(json::as_u64);
                let is_error = json::path(&line, &["result", "isError"]) == Some(b"true");
                let (lock, cv) = &*tally;
                let mut t = lock.lock().unwrap();
                let Some(id) = id.filter(|&id| id >= 1 && id <= calls) else {
                    t.wrong.push(format!("an answer to no call: {}", String::from_utf8_lossy(&line)));
                    continue;
                };
                t.answers[id as usize] = t.answers[id as usize].saturating_add(1);
                let ok = match kind(id) {
                    Kind::Echo => json::top_level(&line, "result").is_some() && !is_error,
                    Kind::Panic => is_error,
                    // A runtime thread descheduled past both timers may find the sleep done
                    // first: its result is an answer too (counted as `deadline_late`).
                    Kind::Timeout if !is_error => {
                        t.late += 1;
                        line.windows(slept.len()).any(|w| w == slept.as_bytes())
                    }
                    Kind::Timeout => true,
                    // The server's deadline fired before the cancel was read: one answer, the
                    // timeout's, is right too.
                    Kind::Cancelled => is_error && line.windows(16).any(|w| w == b"did not return w"),
                };
                if !ok && t.wrong.len() < 10 {
                    t.wrong.push(format!(
                        "call {id} ({:?}): {}",
                        kind(id),
                        String::from_utf8_lossy(&line).trim_end()
                    ));
                }
                t.outstanding = t.outstanding.saturating_sub(1);
                t.done += 1;
                cv.notify_all();
            }
        })
    };

    let checkpoints: Vec<u64> = [10_000, 100_000, calls].into_iter().filter(|&c| c <= calls).collect();
    let mut rss_at = Vec::new();
    let sent = AtomicU64::new(0);
    let start = Instant::now();
    for id in 1..=calls {
        {
            let (lock, cv) = &*tally;
            let mut t = lock.lock().unwrap();
            if t.outstanding >= a.window {
                drop(t);
                stdin.flush().unwrap();
                t = lock.lock().unwrap();
                while t.outstanding >= a.window {
                    t = cv.wait(t).unwrap();
                }
            }
            if kind(id) != Kind::Cancelled {
                t.outstanding += 1;
            }
        }
        let call = |name: &str, args: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
            )
        };
        let text = match kind(id) {
            Kind::Echo => call("echo", &format!(r#"{{"text":"soak call {id}"}}"#)),
            Kind::Panic => call("panic", r#"{"message":"on purpose"}"#),
            Kind::Timeout => call("sleep", &format!(r#"{{"ms":{}}}"#, a.past_deadline_ms)),
            Kind::Cancelled => format!(
                "{}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id},\"reason\":\"soak\"}}}}",
                call("sleep", r#"{"ms":60000}"#)
            ),
        };
        writeln!(stdin, "{text}").unwrap();
        sent.store(id, Ordering::Relaxed);
        if checkpoints.contains(&id) {
            stdin.flush().unwrap();
            // Settle: every answer owed so far is in.
            let (lock, cv) = &*tally;
            let mut t = lock.lock().unwrap();
            while t.outstanding > 0 {
                t = cv.wait(t).unwrap();
            }
            drop(t);
            let rss = checkpoint("stdio", pid, &metrics, id, start);
            rss_at.push((id, rss));
        }
    }
    drop(stdin);
    let code = wait_bounded(&mut child, Duration::from_secs(30));
    reader.join().unwrap();
    let _ = std::fs::remove_file(&metrics);

    let t = tally.0.lock().unwrap();
    let mut failed = false;
    let (mut missing, mut twice, mut cancelled_answered, mut raced) = (0u64, 0u64, 0u64, 0u64);
    for id in 1..=calls {
        let n = t.answers[id as usize];
        match (kind(id), n) {
            (Kind::Cancelled, 0) => {}
            (Kind::Cancelled, 1) => raced += 1,
            (Kind::Cancelled, _) => cancelled_answered += 1,
            (_, 0) => missing += 1,
            (_, 1) => {}
            _ => twice += 1,
        }
    }
    println!(
        "soak transport=stdio calls={calls} missing={missing} answered_twice={twice} cancelled_but_answered={cancelled_answered} cancel_after_deadline={raced} deadline_late={} wrong={} exit={code} elapsed_s={:.1}",
        t.late,
        t.wrong.len(),
        start.elapsed().as_secs_f64()
    );
    for w in &t.wrong {
        eprintln!("soak: wrong answer: {w}");
    }
    if missing + twice + cancelled_answered > 0 || !t.wrong.is_empty() || code != 0 {
        failed = true;
    }
    failed |= !goal_met("stdio", &rss_at, a.goal);
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// Settle, then print one checkpoint line for the server `pid`; its resident set.
fn checkpoint(transport: &str, pid: u32, metrics: &std::path::Path, id: u64, start: Instant) -> u64 {
    std::thread::sleep(Duration::from_millis(100));
    let rss = rss_kb(pid).unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    let threads = status_kb(pid, "Threads:").unwrap_or(0);
    let tasks = std::fs::read_to_string(metrics).unwrap_or_default();
    let tasks = tasks.trim().strip_prefix("alive_tasks=").unwrap_or("?").to_owned();
    println!(
        "soak transport={transport} calls={id} rss_kb={rss} fds={fds} threads={threads} alive_tasks={tasks} outstanding=0 elapsed_s={:.1}",
        start.elapsed().as_secs_f64()
    );
    rss
}

/// Print the resident set's growth from 100k to the last checkpoint; false if `goal` is set
/// and it is over 1.2x.
fn goal_met(transport: &str, rss_at: &[(u64, u64)], goal: bool) -> bool {
    let at_100k = rss_at.iter().find(|(n, _)| *n == 100_000).map(|(_, r)| *r);
    if let (Some(base), Some(&(n, last))) = (at_100k, rss_at.last()) {
        let ratio = last as f64 / base as f64;
        println!("soak transport={transport} rss_ratio_{n}_vs_100k={ratio:.3} goal=1.2");
        if goal && ratio > 1.2 {
            eprintln!("soak: the resident set grew {ratio:.3}x from 100k to {n} calls (goal 1.2x)");
            return false;
        }
    }
    true
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum HttpKind {
    Echo,
    Panic,
    Timeout,
    Cancelled,
    Dropped,
}

fn http_kind(id: u64) -> HttpKind {
    match id % 100 {
        0..=84 => HttpKind::Echo,
        85..=89 => HttpKind::Panic,
        90 => HttpKind::Timeout,
        91..=95 => HttpKind::Cancelled,
        _ => HttpKind::Dropped,
    }
}

/// The HTTP server, its address and the headers every POST carries.
struct HttpPeer {
    addr: std::net::SocketAddr,
    path: String,
    auth: String,
    session: String,
}

impl HttpPeer {
    fn headers(&self) -> [(&str, &str); 5] {
        [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Authorization", &self.auth),
            ("Mcp-Session-Id", &self.session),
        ]
    }

    /// A raw POST of `body` on a connection of its own, left open for the caller.
    fn send_raw(&self, body: &str) -> std::io::Result<std::net::TcpStream> {
        let mut stream = std::net::TcpStream::connect_timeout(&self.addr, Duration::from_secs(5))?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.path,
            self.addr,
            body.len()
        );
        for (k, v) in self.headers() {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes())?;
        Ok(stream)
    }
}

/// How many JSON-RPC answers to `id` a body holds.
fn answers_to(body: &str, id: u64) -> u8 {
    let needle = format!("\"id\":{id}");
    let n = body
        .match_indices(&needle)
        .filter(|(i, _)| !body[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
        .count();
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// What the HTTP clients have seen.
struct HttpTally {
    answers: Vec<std::sync::atomic::AtomicU8>,
    wrong: Mutex<Vec<String>>,
    wrong_count: AtomicU64,
    late: AtomicU64,
    dropped: AtomicU64,
}

impl HttpTally {
    fn wrong(&self, what: String) {
        self.wrong_count.fetch_add(1, Ordering::Relaxed);
        let mut w = self.wrong.lock().unwrap();
        if w.len() < 10 {
            w.push(what);
        }
    }
}

/// One HTTP call of the mix, checked.
fn http_call(peer: &HttpPeer, t: &HttpTally, id: u64, past_deadline_ms: u64) {
    let call = |name: &str, args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
        )
    };
    let kind = http_kind(id);
    let body = match kind {
        HttpKind::Echo => call("echo", &format!(r#"{{"text":"soak call {id}"}}"#)),
        HttpKind::Panic => call("panic", r#"{"message":"on purpose"}"#),
        HttpKind::Timeout => call("sleep", &format!(r#"{{"ms":{past_deadline_ms}}}"#)),
        HttpKind::Cancelled | HttpKind::Dropped => call("sleep", r#"{"ms":60000}"#),
    };
    let (status, text) = match kind {
        HttpKind::Dropped => {
            match peer.send_raw(&body) {
                // Closed before any answer: the server reads the request, then loses the peer.
                Ok(stream) => {
                    std::thread::sleep(Duration::from_millis(2));
                    drop(stream);
                    t.dropped.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => t.wrong(format!("call {id} (Dropped): {e}")),
            }
            return;
        }
        HttpKind::Cancelled => {
            let mut stream = match peer.send_raw(&body) {
                Ok(s) => s,
                Err(e) => return t.wrong(format!("call {id} (Cancelled): {e}")),
            };
            // Let the server take the call in before the cancel comes on another connection.
            std::thread::sleep(Duration::from_millis(2));
            let cancel = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"soak"}}}}"#
            );
            match post(peer.addr, &peer.path, &peer.headers(), &cancel) {
                Ok(a) if a.status == 202 => {}
                Ok(a) => t.wrong(format!("cancel of {id} answered {}: {}", a.status, a.body)),
                Err(e) => t.wrong(format!("cancel of {id}: {e}")),
            }
            let mut raw = Vec::new();
            if let Err(e) = std::io::Read::read_to_end(&mut stream, &mut raw) {
                return t.wrong(format!("call {id} (Cancelled): read: {e}"));
            }
            let raw = String::from_utf8_lossy(&raw).into_owned();
            let status: u16 = raw.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
            let body = raw.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
            (status, body)
        }
        _ => match post(peer.addr, &peer.path, &peer.headers(), &body) {
            Ok(a) => (a.status, a.body),
            Err(e) => return t.wrong(format!("call {id} ({kind:?}): {e}")),
        },
    };
    let n = answers_to(&text, id);
    t.answers[id as usize].fetch_add(n, Ordering::Relaxed);
    if n == 0 {
        if !(kind == HttpKind::Cancelled && status == 202) {
            t.wrong(format!("call {id} ({kind:?}) answered {status} without its id: {text}"));
        }
        return;
    }
    let bytes = text.as_bytes();
    let is_error = json::path(bytes, &["result", "isError"]) == Some(b"true");
    let ok = status == 200
        && match kind {
            HttpKind::Echo => json::top_level(bytes, "result").is_some() && !is_error,
            HttpKind::Panic => is_error,
            HttpKind::Timeout if !is_error => {
                t.late.fetch_add(1, Ordering::Relaxed);
                text.contains(&format!("slept {past_deadline_ms}ms"))
            }
            HttpKind::Timeout => true,
            HttpKind::Cancelled => is_error && text.contains("did not return w"),
            HttpKind::Dropped => false,
        };
    if !ok {
        t.wrong(format!("call {id} ({kind:?}) answered {status}: {}", text.trim_end()));
    }
}

/// Spawn the server under test on pipes, with the file it writes its metrics to.
fn spawn_server(a: &Args, transport: &str) -> (std::process::Child, std::path::PathBuf) {
    let metrics =
        std::env::temp_dir().join(format!("toolwire-soak-{transport}-{}.metrics", std::process::id()));
    let child = Command::new(&a.server[0])
        .args(&a.server[1..])
        .env("SOAK_METRICS", &metrics)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the server");
    (child, metrics)
}

/// The HTTP soak (`--http`).
fn http_soak(a: &Args) -> ExitCode {
    let (mut child, metrics) = spawn_server(a, "http");
    let pid = child.id();
    let stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut url, mut auth) = (None, String::new());
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            eprintln!("soak: the HTTP server exited before it was ready");
            drop(stdin);
            wait_bounded(&mut child, Duration::from_secs(5));
            return ExitCode::FAILURE;
        }
        match line.trim_end().split_once(' ') {
            Some(("url", u)) => url = Some(u.to_owned()),
            Some(("authorization", v)) => auth = v.to_owned(),
            _ if line.trim_end() == "ready" => break,
            _ => {}
        }
    }
    let (addr, path) = split_url(&url.expect("the server printed no url")).expect("a loopback URL");
    assert!(addr.ip().is_loopback(), "the soak talks to 127.0.0.1 only, not {addr}");
    let mut peer = HttpPeer { addr, path, auth, session: String::new() };
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
    let headers: Vec<_> = peer.headers().into_iter().take(4).collect();
    let answer = post(addr, &peer.path, &headers, init).expect("initialize");
    assert!(answer.status == 200 && answer.body.contains(r#""result""#), "initialize: {answer:?}");
    peer.session = answer.header("mcp-session-id").expect("an Mcp-Session-Id").to_owned();
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let answer = post(addr, &peer.path, &peer.headers(), note).expect("notifications/initialized");
    assert_eq!(answer.status, 202, "notifications/initialized: {answer:?}");

    {
        let limit = a.timeout;
        std::thread::spawn(move || {
            std::thread::sleep(limit);
            eprintln!("soak: the --timeout-s watchdog fired");
            std::process::exit(1);
        });
    }
    let calls = a.calls;
    let tally = HttpTally {
        answers: (0..=calls).map(|_| std::sync::atomic::AtomicU8::new(0)).collect(),
        wrong: Mutex::new(Vec::new()),
        wrong_count: AtomicU64::new(0),
        late: AtomicU64::new(0),
        dropped: AtomicU64::new(0),
    };
    let checkpoints: Vec<u64> = [10_000, 100_000, calls].into_iter().filter(|&c| c <= calls).collect();
    let mut rss_at = Vec::new();
    let next = AtomicU64::new(1);
    let start = Instant::now();
    let mut done = 0;
    for &until in &checkpoints {
        if until <= done {
            continue;
        }
        // `--window` clients until the checkpoint, then all joined: nothing outstanding.
        std::thread::scope(|s| {
            for _ in 0..a.window {
                s.spawn(|| {
                    loop {
                        let id = next.fetch_add(1, Ordering::Relaxed);
                        if id > until {
                            next.fetch_sub(1, Ordering::Relaxed);
                            return;
                        }
                        http_call(&peer, &tally, id, a.past_deadline_ms);
                    }
                });
            }
        });
        next.store(until + 1, Ordering::Relaxed);
        done = until;
        rss_at.push((until, checkpoint("http", pid, &metrics, until, start)));
    }
    drop(stdin);
    let code = wait_bounded(&mut child, Duration::from_secs(30));
    let _ = std::fs::remove_file(&metrics);

    let (mut missing, mut twice, mut cancelled_answered, mut raced, mut dropped_answered) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    for id in 1..=calls {
        let n = tally.answers[id as usize].load(Ordering::Relaxed);
        match (http_kind(id), n) {
            (HttpKind::Cancelled, 0) | (HttpKind::Dropped, 0) => {}
            (HttpKind::Dropped, _) => dropped_answered += 1,
            (HttpKind::Cancelled, 1) => raced += 1,
            (HttpKind::Cancelled, _) => cancelled_answered += 1,
            (_, 0) => missing += 1,
            (_, 1) => {}
            _ => twice += 1,
        }
    }
    let wrong = tally.wrong_count.load(Ordering::Relaxed);
    println!(
        "soak transport=http calls={calls} missing={missing} answered_twice={twice} cancelled_but_answered={cancelled_answered} cancel_after_deadline={raced} dropped={} dropped_answered={dropped_answered} deadline_late={} wrong={wrong} exit={code} elapsed_s={:.1}",
        tally.dropped.load(Ordering::Relaxed),
        tally.late.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
    for w in tally.wrong.lock().unwrap().iter() {
        eprintln!("soak: wrong answer: {w}");
    }
    let mut failed = missing + twice + cancelled_answered + dropped_answered + wrong > 0 || code != 0;
    failed |= !goal_met("http", &rss_at, a.goal);
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
