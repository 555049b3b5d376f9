//! The HTTP bench's runner: std only, no MCP SDK, so it favours no server.
//!
//! It spawns an HTTP server binary (see `src/http_args.rs`: it prints `url`, maybe
//! `authorization`, then `ready`; or a `serve_registry!` main run with `--http
//! --show-token`, whose URL and `header: Authorization:` lines it reads), checks one call by hand, then either
//!
//! - drives it with `wrk` (`--connections C --duration-s D`, one wrk thread, the
//!   `bench/http.lua` script: a `tools/call` per request, each with its own id) and prints
//!   one [`Record`]: `rps`, `p50_us`, `p99_us`, `max_us` (wrk's latency histogram),
//!   `errors` (connect, read, write, timeouts and non-2xx answers), the answer's `framing`
//!   (`json` or `sse`) and the server's resident set before and after (`rss_idle_kb`,
//!   `rss_end_kb`); or
//! - with `--calls N`, makes N `tools/call`s one after another on one keep-alive connection
//!   (each checked: 200 and the echoed text) and prints `calls`: the client side of
//!   `bench/instructions.sh`'s HTTP cases, which run the server under callgrind; or
//! - with `--sessions N`, opens N legacy sessions (initialize, then
//!   notifications/initialized, each on its own connection), leaves them idle, and prints
//!   the resident-set growth per session (`session_bytes`); with `--expire-after-s S` it
//!   then waits S seconds and reports whether the first session is gone (`expired=1`: the
//!   server answers 404 for it) and the resident set after (`rss_expired_kb`).
//!
//! The check before `wrk` runs: `session` mode opens a session and sends
//! `notifications/initialized` (202); the call must answer 200 with the echoed text (and,
//! for `echo_progress`, the progress notification before the result). A failed check, a
//! run with errors, or a dead server make it exit 1.
//!
//! ```text
//! http-bench --case http.json.c16:toolwire --mode json|sse|session [--path /mcp]
//!            [--tool echo|echo_progress|echo_sync|echo_inline] [--connections 16] [--duration-s 5]
//!            [--sessions 1000 [--expire-after-s 4]] [--calls N] [--script bench/http.lua]
//!            -- SERVER [ARGS...]
//! ```

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::time::Duration;

use toolwire_bench::http::{Answer, KeepAlive, post, split_url};
use toolwire_bench::proc::{rss_kb, wait_bounded};
use toolwire_bench::record::Record;

const ECHO_TEXT: &str = "hello from the toolwire bench";

struct Args {
    case: String,
    mode: String,
    path: Option<String>,
    tool: String,
    connections: u32,
    duration_s: u32,
    sessions: Option<u32>,
    expire_after_s: Option<u64>,
    calls: Option<u32>,
    script: String,
    command: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        case: "unnamed".into(),
        mode: "json".into(),
        path: None,
        tool: "echo".into(),
        connections: 1,
        duration_s: 5,
        sessions: None,
        expire_after_s: None,
        calls: None,
        script: "bench/http.lua".into(),
        command: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--case" => a.case = value()?,
            "--mode" => a.mode = value()?,
            "--path" => a.path = Some(value()?),
            "--tool" => a.tool = value()?,
            "--connections" => a.connections = value()?.parse().map_err(|e| format!("--connections: {e}"))?,
            "--duration-s" => a.duration_s = value()?.parse().map_err(|e| format!("--duration-s: {e}"))?,
            "--sessions" => a.sessions = Some(value()?.parse().map_err(|e| format!("--sessions: {e}"))?),
            "--expire-after-s" => {
                a.expire_after_s = Some(value()?.parse().map_err(|e| format!("--expire-after-s: {e}"))?)
            }
            "--calls" => a.calls = Some(value()?.parse().map_err(|e| format!("--calls: {e}"))?),
            "--script" => a.script = value()?,
            "--" => {
                a.command = it.collect();
                break;
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.command.is_empty() {
        return Err("no server command after --".into());
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("http-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let mut r = Record::new();
    r.set("kind", "http").set("case", &args.case);
    match run(&args, &mut r) {
        Ok(()) => {
            println!("{}", r.line());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("http-bench: {}: {e}", args.case);
            r.set("failed", 1);
            println!("{}", r.line());
            ExitCode::FAILURE
        }
    }
}

/// The server, stopped (stdin closed, or SIGTERM for a `serve_registry!` main; killed after
/// 10 s) when dropped.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    url: String,
    authorization: Option<String>,
    /// A `serve_registry!` main serving `--http`: it stops on SIGTERM, not on stdin's end.
    main: bool,
}

impl Server {
    fn spawn(command: &[String]) -> Result<Server, String> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", command[0]))?;
        let stdin = child.stdin.take();
        let mut out = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let (mut url, mut authorization, mut main) = (None, None, false);
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                let _ = child.kill();
                return Err("the server exited before it was ready".into());
            }
            let line = line.trim_end();
            // `serve_registry!`'s `--http --show-token` lines: the URL, then the header.
            if let Some((_, u)) = line.split_once(" serving MCP (streamable HTTP) at ") {
                url = Some(u.to_owned());
                main = true;
                continue;
            }
            if let Some(a) = line.strip_prefix("header: Authorization: ") {
                authorization = Some(a.to_owned());
                if main {
                    break;
                }
                continue;
            }
            match line.split_once(' ') {
                Some(("url", u)) => url = Some(u.to_owned()),
                Some(("authorization", a)) => authorization = Some(a.to_owned()),
                _ if line == "ready" => break,
                _ => {}
            }
        }
        let url = url.ok_or("the server printed no url")?;
        Ok(Server { child, stdin, url, authorization, main })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        if self.main {
            // std has no signal but SIGKILL; kill(1) sends SIGTERM, so the server drains.
            let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        }
        wait_bounded(&mut self.child, Duration::from_secs(10));
    }
}

/// The headers every MCP POST carries.
fn base_headers<'a>(server: &'a Server, session: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    if let Some(auth) = &server.authorization {
        h.push(("Authorization", auth));
    }
    if let Some(sid) = session {
        h.push(("Mcp-Session-Id", sid));
    }
    h
}

/// Open a legacy session: initialize, then notifications/initialized; its id.
fn open_session(server: &Server, addr: SocketAddr, path: &str) -> Result<String, String> {
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"http-bench","version":"0.1.0"}}}"#;
    let a = post(addr, path, &base_headers(server, None), init)?;
    if a.status != 200 || !a.body.contains("\"result\"") {
        return Err(format!("initialize answered {}: {}", a.status, a.body));
    }
    let sid = a.header("mcp-session-id").ok_or("initialize answered without an Mcp-Session-Id")?.to_owned();
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let a = post(addr, path, &base_headers(server, Some(&sid)), note)?;
    if a.status != 202 {
        return Err(format!("notifications/initialized answered {}: {}", a.status, a.body));
    }
    Ok(sid)
}

/// A `tools/call` of `tool` with the echo text, under `id` (JSON text), `meta` (empty, or
/// `,"_meta":{...}`) after the arguments.
fn call_body(id: &str, tool: &str, meta: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"text":"{ECHO_TEXT}"}}{meta}}}}}"#
    )
}

/// Whether `a` is a successful call's answer carrying the echoed text.
fn echoed(a: &Answer) -> bool {
    a.status == 200 && a.body.contains(ECHO_TEXT) && !a.body.contains("\"isError\":true")
}

/// One call by hand, checked: 200, the echoed text, and for `echo_progress` the progress
/// notification first. Returns the answer's framing.
fn check_call(
    server: &Server,
    addr: SocketAddr,
    path: &str,
    session: Option<&str>,
    tool: &str,
) -> Result<&'static str, String> {
    let meta = if tool == "echo_progress" { r#","_meta":{"progressToken":"check"}"# } else { "" };
    let a: Answer = post(addr, path, &base_headers(server, session), &call_body(r#""check""#, tool, meta))?;
    let bad = || format!("the check call answered {}: {}", a.status, a.body);
    if !echoed(&a) {
        return Err(bad());
    }
    if tool == "echo_progress" {
        let progress = a.body.find("notifications/progress").ok_or_else(bad)?;
        let result = a.body.find("\"result\"").ok_or_else(bad)?;
        if progress > result {
            return Err(format!("the progress came after the result: {}", a.body));
        }
    }
    let sse = a.header("content-type").is_some_and(|c| c.starts_with("text/event-stream"));
    Ok(if sse { "sse" } else { "json" })
}

fn run(args: &Args, r: &mut Record) -> Result<(), String> {
    let server = Server::spawn(&args.command)?;
    let (addr, url_path) = split_url(&server.url)?;
    let path = args.path.clone().unwrap_or(url_path);
    let url = format!("http://{addr}{path}");
    let pid = server.pid();
    if let Some(n) = args.sessions {
        return idle_sessions(&server, addr, &path, n, args.expire_after_s, r);
    }
    let session = if args.mode == "session" { Some(open_session(&server, addr, &path)?) } else { None };
    let framing = check_call(&server, addr, &path, session.as_deref(), &args.tool)?;
    r.set("mode", &args.mode).set("connections", args.connections).set("framing", framing);
    r.set("rss_idle_kb", rss_kb(pid).unwrap_or(0));
    if let Some(n) = args.calls {
        return calls_in_sequence(&server, addr, &path, session.as_deref(), &args.tool, n, r);
    }

    let duration = args.duration_s.to_string();
    let connections = args.connections.to_string();
    let output = Command::new("wrk")
        .args(["-t1", "-c", &connections, "-d", &format!("{duration}s"), "--timeout", "5s"])
        .args(["-s", &args.script, &url])
        .env("WRK_TOOL", &args.tool)
        .env("WRK_AUTH", server.authorization.as_deref().unwrap_or(""))
        .env("WRK_SESSION", session.as_deref().unwrap_or(""))
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("run wrk (is it installed? bench/run.sh installs it): {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("wrk "))
        .ok_or_else(|| format!("wrk printed no summary line:\n{stdout}"))?;
    let wrk = Record::parse(&format!("bench {line}")).ok_or("an unreadable wrk summary")?;
    let num = |k: &str| wrk.num(k).unwrap_or(0.0);
    let errors = num("errors_connect")
        + num("errors_read")
        + num("errors_write")
        + num("errors_status")
        + num("errors_timeout");
    let secs = num("duration_us") / 1e6;
    r.set("requests", num("requests"))
        .set("rps", format!("{:.0}", num("requests") / secs.max(1e-9)))
        .set("p50_us", num("p50_us"))
        .set("p99_us", num("p99_us"))
        .set("max_us", num("max_us"))
        .set("mean_us", num("mean_us"))
        .set("errors", errors)
        .set("rss_end_kb", rss_kb(pid).unwrap_or(0));
    // The server still answers correctly after the run.
    check_call(&server, addr, &path, session.as_deref(), &args.tool)?;
    if errors > 0.0 {
        return Err(format!("wrk counted {errors} errors: {line}"));
    }
    Ok(())
}

/// `n` checked `tools/call`s of `tool`, one after another on one keep-alive connection.
fn calls_in_sequence(
    server: &Server,
    addr: SocketAddr,
    path: &str,
    session: Option<&str>,
    tool: &str,
    n: u32,
    r: &mut Record,
) -> Result<(), String> {
    let headers = base_headers(server, session);
    let mut conn = KeepAlive::connect(addr)?;
    for id in 0..n {
        let a = conn.post(path, &headers, &call_body(&id.to_string(), tool, ""))?;
        if !echoed(&a) {
            return Err(format!("call {id} answered {}: {}", a.status, a.body));
        }
    }
    r.set("calls", n);
    Ok(())
}

fn idle_sessions(
    server: &Server,
    addr: SocketAddr,
    path: &str,
    n: u32,
    expire_after_s: Option<u64>,
    r: &mut Record,
) -> Result<(), String> {
    let pid = server.pid();
    // One session first, so what a first session allocates once is not counted per session.
    let first = open_session(server, addr, path)?;
    std::thread::sleep(Duration::from_millis(200));
    let before = rss_kb(pid).ok_or("no resident set")?;
    for _ in 0..n {
        open_session(server, addr, path)?;
    }
    std::thread::sleep(Duration::from_millis(500));
    let after = rss_kb(pid).ok_or("no resident set")?;
    let per_session = (after.saturating_sub(before) * 1024) as f64 / f64::from(n);
    r.set("sessions", n)
        .set("rss_before_kb", before)
        .set("rss_after_kb", after)
        .set("session_bytes", format!("{per_session:.0}"));
    if let Some(wait) = expire_after_s {
        std::thread::sleep(Duration::from_secs(wait));
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let a = post(addr, path, &base_headers(server, Some(&first)), ping)?;
        r.set("expired", u8::from(a.status == 404)).set("expired_status", a.status);
        r.set("rss_expired_kb", rss_kb(pid).unwrap_or(0));
    }
    Ok(())
}
