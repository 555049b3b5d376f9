//! The neutral stdio driver: std only, no MCP SDK, so it favours no server.
//!
//! It spawns a server command, sends `initialize` (protocol 2025-06-18) and
//! `notifications/initialized`, then `--calls` requests with `--window` requests in flight
//! (1 = sequential). It prints one [`Record`] line. The request is `tools/call` of `--tool`
//! by default; `--method list` is `tools/list`, `resources-list` is `resources/list` (the
//! first page), `read` is `resources/read` of `bench://small`, and `prompt` is `prompts/get`
//! of the `echo` prompt (see `toolwire-resources` and `rmcp-resources`), and `elicit` is
//! `tools/call` of `ask`, which asks the driver a question (`elicitation/create`) before it
//! answers: the driver declares the elicitation capability and accepts with the echoed
//! text (see `toolwire-elicit` and `rmcp-elicit`).
//!
//! - `init_us`: spawn to the `initialize` reply;
//! - `rps`, `p50_us`, `p99_us`, `max_us`: over the measured calls (after `--warmup` calls);
//! - `reply_bytes`: the size of the last reply line;
//! - `rss_idle_kb`: the server's resident set right after initializing (Linux `/proc`), and
//!   its split `rss_idle_anon_kb` (heap, stacks) / `rss_idle_file_kb` (binary, libraries);
//! - `libs_idle`: the shared libraries the server has mapped then (`libc.so.6,libm.so.6,...`);
//! - `rss_end_kb`, and `rss_at_<n>_kb` for each `--rss-at n`: after that many calls.
//!
//! Every reply is checked (it must be a result, not an error nor `isError: true`; a
//! `tools/call`, `resources/read` or `prompts/get` reply must carry the echoed text, a list
//! its items); a bad reply, a dead server or the `--timeout-s` watchdog make the driver exit 1.
//!
//! ```text
//! driver --case rmcp_echo --calls 20000 --window 16 [--tool echo] [--method list]
//!        [--method list|resources-list|read|prompt|elicit] [--text-bytes 16384]
//!        [--warmup 1000] [--rss-at 10000] [--timeout-s 300] -- SERVER [ARGS...]
//! ```
//!
//! `--text-bytes N` makes a `tools/call`'s text N bytes long (`ECHO_TEXT` repeated, cut to
//! N), as a tool that reads or returns a file's contents trades: a long request line and a
//! long answer (over `PIPE_BUF`), each checked whole.
//!
//! ```text
//! ```

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use toolwire_bench::json;
use toolwire_bench::proc::{mapped_libraries, rss_kb, status_kb, wait_bounded};
use toolwire_bench::record::Record;
use toolwire_bench::stats::percentile_sorted;

/// The text every `tools/call` sends and expects back (and what `bench://small` and the
/// `echo` prompt hold).
const ECHO_TEXT: &str = "hello from the toolwire bench";

/// What the driver asks for, `calls` times.
#[derive(Clone, Copy, PartialEq)]
enum Method {
    /// `tools/call` of `--tool` with `{"text": ECHO_TEXT}`.
    Call,
    /// `tools/list`.
    ToolsList,
    /// `resources/list`, the first page.
    ResourcesList,
    /// `resources/read` of `bench://small`.
    Read,
    /// `prompts/get` of `echo` with `{"text": ECHO_TEXT}`.
    Prompt,
    /// `tools/call` of `ask` with `{"text": ECHO_TEXT}`, which elicits the text back.
    Elicit,
}

impl Method {
    fn parse(s: &str) -> Result<Method, String> {
        Ok(match s {
            "call" => Method::Call,
            "list" => Method::ToolsList,
            "resources-list" => Method::ResourcesList,
            "read" => Method::Read,
            "prompt" => Method::Prompt,
            "elicit" => Method::Elicit,
            other => {
                return Err(format!(
                    "--method {other}: expected call, list, resources-list, read, prompt or elicit"
                ));
            }
        })
    }

    /// The JSON-RPC method name, as recorded.
    fn wire(self) -> &'static str {
        match self {
            Method::Call | Method::Elicit => "tools/call",
            Method::ToolsList => "tools/list",
            Method::ResourcesList => "resources/list",
            Method::Read => "resources/read",
            Method::Prompt => "prompts/get",
        }
    }
}

struct Args {
    case: String,
    calls: u64,
    window: u64,
    warmup: u64,
    tool: String,
    method: Method,
    /// The text a `tools/call` sends and expects back.
    text: String,
    rss_at: Vec<u64>,
    timeout: Duration,
    command: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        case: "unnamed".into(),
        calls: 1000,
        window: 1,
        warmup: u64::MAX,
        tool: "echo".into(),
        method: Method::Call,
        text: ECHO_TEXT.into(),
        rss_at: Vec::new(),
        timeout: Duration::from_secs(300),
        command: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--" {
            a.command = it.by_ref().collect();
            break;
        }
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let num = |s: String| s.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--case" => a.case = value()?,
            "--calls" => a.calls = num(value()?)?,
            "--window" => a.window = num(value()?)?.max(1),
            "--warmup" => a.warmup = num(value()?)?,
            "--tool" => a.tool = value()?,
            "--method" => a.method = Method::parse(&value()?)?,
            "--text-bytes" => {
                let n = num(value()?)? as usize;
                if n == 0 {
                    return Err("--text-bytes must be at least 1".into());
                }
                a.text = ECHO_TEXT.repeat(n / ECHO_TEXT.len() + 1)[..n].to_owned();
            }
            "--rss-at" => a.rss_at.push(num(value()?)?),
            "--timeout-s" => a.timeout = Duration::from_secs(num(value()?)?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.command.is_empty() {
        return Err("no server command after --".into());
    }
    if a.warmup == u64::MAX {
        a.warmup = (a.calls / 10).min(1000);
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("driver: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(record) => {
            println!("{}", record.line());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("driver: case {}: {e}", args.case);
            let mut r = Record::new();
            r.set("case", &args.case).set("window", args.window).set("failed", 1);
            println!("{}", r.line());
            ExitCode::FAILURE
        }
    }
}

fn request(id: u64, args: &Args) -> String {
    match args.method {
        Method::ToolsList | Method::ResourcesList => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{}"}}"#, args.method.wire())
        }
        Method::Call => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{}","arguments":{{"text":"{}"}}}}}}"#,
            args.tool, args.text
        ),
        Method::Read => {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"bench://small"}}}}"#
            )
        }
        Method::Prompt => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"prompts/get","params":{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
        ),
        Method::Elicit => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ask","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
        ),
    }
}

/// Kills the child when the deadline passes, unless disarmed first.
fn watchdog(pid: u32, timeout: Duration, done: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if done.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("driver: watchdog: the server did not finish within {timeout:?}; killing it");
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    });
}

fn run(args: &Args) -> Result<Record, String> {
    let spawn_at = Instant::now();
    let mut child: Child = Command::new(&args.command[0])
        .args(&args.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot spawn {:?}: {e}", args.command))?;
    let pid = child.id();
    let done = Arc::new(AtomicBool::new(false));
    watchdog(pid, args.timeout, done.clone());
    let mut input = BufWriter::new(child.stdin.take().expect("piped stdin"));
    let mut output = BufReader::with_capacity(64 * 1024, child.stdout.take().expect("piped stdout"));
    let mut line = Vec::with_capacity(4096);

    let send = |w: &mut BufWriter<_>, s: &str| -> Result<(), String> {
        w.write_all(s.as_bytes())
            .and_then(|()| w.write_all(b"\n"))
            .and_then(|()| w.flush())
            .map_err(|e| format!("write: {e}"))
    };

    let capabilities = if args.method == Method::Elicit { r#"{"elicitation":{}}"# } else { "{}" };
    send(
        &mut input,
        &format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{capabilities},"clientInfo":{{"name":"toolwire-bench-driver","version":"0.1.0"}}}}}}"#
        ),
    )?;
    read_reply(&mut output, &mut line, &mut input)?;
    let init_us = spawn_at.elapsed().as_micros() as u64;
    if json::top_level(&line, "result").is_none() {
        return Err(format!("initialize failed: {}", String::from_utf8_lossy(&line)));
    }
    send(&mut input, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
    std::thread::sleep(Duration::from_millis(100));
    let rss_idle = rss_kb(pid);
    // Anonymous memory (heap, stacks) apart from file-backed pages (the binary and libraries).
    let rss_idle_anon = status_kb(pid, "RssAnon:");
    let rss_idle_file = status_kb(pid, "RssFile:");
    let libraries = mapped_libraries(pid);

    let total = args.warmup + args.calls;
    let mut sent_at: Vec<Option<Instant>> = vec![None; total as usize + 1];
    let mut latencies: Vec<u64> = Vec::with_capacity(args.calls as usize);
    let mut rss_marks: Vec<(u64, Option<u64>)> = Vec::new();
    let mut next_id = 1u64;
    let mut received = 0u64;
    let mut reply_bytes = 0usize;
    let mut measure_start = Instant::now();
    let window = args.window.min(total.max(1));
    while next_id <= window && next_id <= total {
        sent_at[next_id as usize] = Some(Instant::now());
        send(&mut input, &request(next_id, args))?;
        next_id += 1;
    }
    while received < total {
        read_reply(&mut output, &mut line, &mut input)?;
        let now = Instant::now();
        let id = json::top_level(&line, "id")
            .and_then(json::as_u64)
            .filter(|&id| id >= 1 && id <= total)
            .ok_or_else(|| format!("reply without a known id: {}", String::from_utf8_lossy(&line)))?;
        check_reply(&line, args)?;
        reply_bytes = line.len();
        let at = sent_at[id as usize].take().ok_or_else(|| format!("duplicate reply for id {id}"))?;
        received += 1;
        if id > args.warmup {
            latencies.push((now - at).as_nanos() as u64);
        }
        if received == args.warmup {
            measure_start = Instant::now();
        }
        if args.rss_at.contains(&received) {
            rss_marks.push((received, rss_kb(pid)));
        }
        if next_id <= total {
            sent_at[next_id as usize] = Some(Instant::now());
            send(&mut input, &request(next_id, args))?;
            next_id += 1;
        }
    }
    let elapsed = measure_start.elapsed();
    let rss_end = rss_kb(pid);

    drop(input);
    let exit = wait_bounded(&mut child, Duration::from_secs(10));
    done.store(true, Ordering::Relaxed);

    latencies.sort_unstable();
    let n = latencies.len() as f64;
    let mut r = Record::new();
    r.set("case", &args.case)
        .set("method", args.method.wire())
        .set("window", args.window)
        .set("calls", latencies.len())
        .set("init_us", init_us)
        .set("rps", format!("{:.1}", n / elapsed.as_secs_f64()))
        .set("p50_us", format!("{:.1}", percentile_sorted(&latencies, 50.0) as f64 / 1000.0))
        .set("p99_us", format!("{:.1}", percentile_sorted(&latencies, 99.0) as f64 / 1000.0))
        .set("max_us", format!("{:.1}", latencies.last().copied().unwrap_or(0) as f64 / 1000.0))
        .set("reply_bytes", reply_bytes);
    if let Some(kb) = rss_idle {
        r.set("rss_idle_kb", kb);
    }
    if let Some(kb) = rss_idle_anon {
        r.set("rss_idle_anon_kb", kb);
    }
    if let Some(kb) = rss_idle_file {
        r.set("rss_idle_file_kb", kb);
    }
    if let Some(libs) = libraries {
        r.set("libs_idle", libs.join(","));
    }
    if let Some(kb) = rss_end {
        r.set("rss_end_kb", kb);
    }
    for (at, kb) in rss_marks {
        if let Some(kb) = kb {
            r.set(&format!("rss_at_{at}_kb"), kb);
        }
    }
    r.set("exit", exit);
    Ok(r)
}

/// Read the next line meant for us. Server-to-client requests are answered: `elicitation/create`
/// by accepting with `{"text": ECHO_TEXT}`, anything else (e.g. `ping`) with an empty result;
/// notifications are skipped.
fn read_reply<R: BufRead, W: Write>(output: &mut R, line: &mut Vec<u8>, input: &mut W) -> Result<(), String> {
    loop {
        line.clear();
        let n = output.read_until(b'\n', line).map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("the server closed its output (exited or was killed)".into());
        }
        while line.last().is_some_and(|b| b.is_ascii_whitespace()) {
            line.pop();
        }
        if line.is_empty() {
            continue;
        }
        if json::top_level(line, "method").is_some() {
            if let Some(id) = json::top_level(line, "id") {
                let result = if json::top_level(line, "method") == Some(br#""elicitation/create""#.as_slice())
                {
                    format!(r#"{{"action":"accept","content":{{"text":"{ECHO_TEXT}"}}}}"#)
                } else {
                    "{}".to_owned()
                };
                let answer =
                    format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, String::from_utf8_lossy(id));
                input
                    .write_all(answer.as_bytes())
                    .and_then(|()| input.write_all(b"\n"))
                    .and_then(|()| input.flush())
                    .map_err(|e| format!("write: {e}"))?;
            }
            continue;
        }
        return Ok(());
    }
}

fn check_reply(line: &[u8], args: &Args) -> Result<(), String> {
    let bad = || format!("bad reply: {}", String::from_utf8_lossy(line));
    let result = json::top_level(line, "result").ok_or_else(bad)?;
    let member = match args.method {
        Method::ToolsList => return json::top_level(result, "tools").map(|_| ()).ok_or_else(bad),
        Method::ResourcesList => return json::top_level(result, "resources").map(|_| ()).ok_or_else(bad),
        Method::Call | Method::Elicit => "content",
        Method::Read => "contents",
        Method::Prompt => "messages",
    };
    if json::top_level(result, "isError") == Some(b"true") {
        return Err(bad());
    }
    let content = json::top_level(result, member).ok_or_else(bad)?;
    let needle = if args.method == Method::Call { args.text.as_bytes() } else { ECHO_TEXT.as_bytes() };
    if content.windows(needle.len()).any(|w| w == needle) { Ok(()) } else { Err(bad()) }
}
