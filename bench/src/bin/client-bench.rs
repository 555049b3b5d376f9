//! The client bench: an SDK's stdio client (toolwire's or rmcp's) spawns a server and calls
//! its `echo` tool, sequentially (`--concurrency 1`) or with K calls in flight (K tasks on one
//! shared connection, each calling in a loop). Prints one [`Record`] line like the driver's:
//! `init_us` (spawn to a connected client), `rps`, `p50_us`, `p99_us`, `max_us`.
//!
//! `--validate` (toolwire only) measures client-side argument validation instead:
//!
//! - `lazy_at_connect=1` when no adopted tool had compiled its validator before its first call;
//! - `reject_us`: in-process time per call rejected by validation (`{"text": 5}`), which
//!   never reaches the wire, so it is validation plus the error's message;
//! - `validated_us` and `raw_us`: per-call medians of interleaved batches through the
//!   adopted [`RemoteTool`](toolwire::client::RemoteTool) (validated, result sealed) and
//!   through `Client::call_tool` (neither), on the same connection; `delta_us` is the
//!   difference.
//!
//! `--in-process` (toolwire only) connects toolwire's client to a toolwire
//! [`Server`](toolwire::Server) in this process ([`InProcess`](toolwire::client::InProcess))
//! instead of spawning SERVER: the same `echo(text)` tool the stdio server `toolwire-echo`
//! serves (`src/toolwire_echo.rs` has the same fn), through the whole protocol with no pipe
//! and no second process, so `bench/instructions.sh` can count it beside the stdio child.
//!
//! ```text
//! client-bench --case C --client toolwire|rmcp --calls N --concurrency K [--validate] [--warmup W] -- SERVER [ARGS...]
//! client-bench --case C --client toolwire --calls N --concurrency K [--warmup W] --in-process
//! ```
//!
//! `--warmup W` calls first (default a tenth of N, at most 1,000); `bench/instructions.sh`
//! passes `--warmup 0`, so its difference of two runs divides by the calls it made.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use toolwire_bench::record::Record;
use toolwire_bench::stats::{median, percentile_sorted};

#[path = "../toolwire_echo.rs"]
mod toolwire_echo;

/// The text every call sends and expects back.
const ECHO_TEXT: &str = "hello from the toolwire bench";

struct Args {
    case: String,
    client: String,
    calls: usize,
    concurrency: usize,
    validate: bool,
    in_process: bool,
    /// Calls before the measured ones; `None` is a tenth of `calls`, at most 1,000.
    warmup: Option<usize>,
    command: Vec<String>,
}

impl Args {
    /// How many calls warm up the connection before the measured ones.
    fn warmup(&self) -> usize {
        self.warmup.unwrap_or((self.calls / 10).min(1000))
    }
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        case: "unnamed".into(),
        client: "toolwire".into(),
        calls: 1000,
        concurrency: 1,
        validate: false,
        in_process: false,
        warmup: None,
        command: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--" {
            a.command = it.by_ref().collect();
            break;
        }
        if flag == "--validate" {
            a.validate = true;
            continue;
        }
        if flag == "--in-process" {
            a.in_process = true;
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |s: &str| s.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--case" => a.case = value,
            "--client" => a.client = value,
            "--calls" => a.calls = num(&value)?,
            "--concurrency" => a.concurrency = num(&value)?.max(1),
            "--warmup" => a.warmup = Some(num(&value)?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    match (a.in_process, a.command.is_empty()) {
        (true, false) => return Err("--in-process takes no server command".into()),
        (true, true) if a.client != "toolwire" => return Err("--in-process is toolwire's client only".into()),
        (false, true) => return Err("no server command after --".into()),
        _ => {}
    }
    Ok(a)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("client-bench: {e}");
            return ExitCode::from(2);
        }
    };
    // The measured work runs as a spawned task, on a worker thread like any task a real
    // program would call from, not inside `block_on` on the main thread (which would add a
    // cross-thread wake-up to every call for both clients).
    let args = std::sync::Arc::new(args);
    let a = args.clone();
    let run = tokio::spawn(async move {
        match (a.client.as_str(), a.validate) {
            ("toolwire", false) => toolwire_calls(&a).await,
            ("toolwire", true) => toolwire_validate(&a).await,
            ("rmcp", false) => rmcp_calls(&a).await,
            (other, _) => Err(format!("no such client bench: {other} (validate={})", a.validate)),
        }
    });
    match tokio::time::timeout(Duration::from_secs(600), run).await {
        Ok(Ok(Ok(record))) => {
            println!("{}", record.line());
            ExitCode::SUCCESS
        }
        Ok(Ok(Err(e))) => fail(&args, &e),
        Ok(Err(e)) => fail(&args, &format!("the bench task failed: {e}")),
        Err(_) => fail(&args, "did not finish within 600 s"),
    }
}

fn fail(args: &Args, e: &str) -> ExitCode {
    eprintln!("client-bench: case {}: {e}", args.case);
    let mut r = Record::new();
    r.set("case", &args.case).set("failed", 1);
    println!("{}", r.line());
    ExitCode::FAILURE
}

/// Run `calls` calls of `one` split over `concurrency` tasks; returns (latencies ns, elapsed).
async fn timed<F, Fut>(calls: usize, concurrency: usize, one: F) -> Result<(Vec<u64>, Duration), String>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<(), String>> + Send,
{
    let one = Arc::new(one);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for t in 0..concurrency {
        let share = calls / concurrency + usize::from(t < calls % concurrency);
        let one = one.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(share);
            for _ in 0..share {
                let at = Instant::now();
                one().await?;
                lat.push(at.elapsed().as_nanos() as u64);
            }
            Ok::<_, String>(lat)
        }));
    }
    let mut all = Vec::with_capacity(calls);
    for t in tasks {
        all.extend(t.await.map_err(|e| format!("task: {e}"))??);
    }
    Ok((all, start.elapsed()))
}

fn record(args: &Args, init: Duration, mut lat: Vec<u64>, elapsed: Duration) -> Record {
    lat.sort_unstable();
    let mut r = Record::new();
    r.set("case", &args.case)
        .set("client", &args.client)
        .set("window", args.concurrency)
        .set("calls", lat.len())
        .set("init_us", init.as_micros())
        .set("rps", format!("{:.1}", lat.len() as f64 / elapsed.as_secs_f64()))
        .set("p50_us", format!("{:.1}", percentile_sorted(&lat, 50.0) as f64 / 1000.0))
        .set("p99_us", format!("{:.1}", percentile_sorted(&lat, 99.0) as f64 / 1000.0))
        .set("max_us", format!("{:.1}", lat.last().copied().unwrap_or(0) as f64 / 1000.0));
    r
}

async fn toolwire_connect(args: &Args) -> Result<(toolwire::client::Client, Duration), String> {
    use toolwire::client::{Client, ClientOptions, InProcess, StdioServer};
    let start = Instant::now();
    let client = if args.in_process {
        // The stdio server's `serve_registry!` main, minus the pipes: the same tool in a
        // `Server` of the same name (`echo_sync` rides along unused, as in toolwire-http).
        let tools = toolwire::tools![toolwire_echo::echo, toolwire_echo::echo_sync]
            .map_err(|e| format!("registry: {e}"))?;
        let server =
            toolwire::Server::new(tools, toolwire::ServerOptions::new("toolwire-bench-echo", "0.1.0"));
        Client::connect(InProcess::new(server), ClientOptions::new("bench")).await
    } else {
        let server = StdioServer::new(&args.command[0]).args(args.command[1..].iter().cloned());
        Client::connect(server, ClientOptions::new("bench")).await
    };
    let client = client.map_err(|e| format!("connect: {e}"))?;
    Ok((client, start.elapsed()))
}

async fn toolwire_calls(args: &Args) -> Result<Record, String> {
    use toolwire::client::CallOptions;
    let (client, init) = toolwire_connect(args).await?;
    let warm = args.warmup();
    let c = client.clone();
    let one = move || {
        let c = c.clone();
        async move {
            let r = c
                .call_tool("echo", json!({ "text": ECHO_TEXT }), CallOptions::default())
                .await
                .map_err(|e| e.to_string())?;
            match r.content.first() {
                Some(toolwire::Content::Text { text }) if text == ECHO_TEXT && !r.is_error => Ok(()),
                _ => Err(format!("bad result: {r:?}")),
            }
        }
    };
    timed(warm, 1, one.clone()).await?;
    let (lat, elapsed) = timed(args.calls, args.concurrency, one).await?;
    client.close().await;
    Ok(record(args, init, lat, elapsed))
}

async fn toolwire_validate(args: &Args) -> Result<Record, String> {
    use toolwire::client::{AdoptOptions, CallOptions};
    use toolwire::{Context, Tool};
    let (client, init) = toolwire_connect(args).await?;
    let discovery = client.adopt(AdoptOptions::default()).await.map_err(|e| format!("adopt: {e}"))?;
    let lazy = discovery.tools().iter().all(|t| !t.validator_compiled());
    let tool = discovery.tools().first().cloned().ok_or("the server listed no tool")?;
    let ctx = Context::new();
    let good = serde_json::value::RawValue::from_string(json!({ "text": ECHO_TEXT }).to_string())
        .map_err(|e| e.to_string())?;
    let bad =
        serde_json::value::RawValue::from_string(r#"{"text":5}"#.to_owned()).map_err(|e| e.to_string())?;
    tool.call(&good, &ctx).await.map_err(|e| format!("first validated call: {e}"))?;
    let compiled_after_first = tool.validator_compiled();

    // Rejected calls never leave the process: validation plus the error's message.
    let mut reject = Vec::new();
    for _ in 0..7 {
        let n = (args.calls / 7).max(100);
        let at = Instant::now();
        for _ in 0..n {
            if tool.call(&bad, &ctx).await.is_ok() {
                return Err("a call with `text: 5` was not rejected".into());
            }
        }
        reject.push(at.elapsed().as_secs_f64() * 1e6 / n as f64);
    }

    // Validated (RemoteTool) and raw (Client::call_tool) calls, interleaved in batches.
    let mut validated = Vec::new();
    let mut raw = Vec::new();
    let batch = (args.calls / 14).max(20);
    for _ in 0..7 {
        let at = Instant::now();
        for _ in 0..batch {
            tool.call(&good, &ctx).await.map_err(|e| e.to_string())?;
        }
        validated.push(at.elapsed().as_secs_f64() * 1e6 / batch as f64);
        let at = Instant::now();
        for _ in 0..batch {
            client
                .call_tool(tool.remote_name(), json!({ "text": ECHO_TEXT }), CallOptions::default())
                .await
                .map_err(|e| e.to_string())?;
        }
        raw.push(at.elapsed().as_secs_f64() * 1e6 / batch as f64);
    }
    client.close().await;
    let (v, r) = (median(&validated).unwrap_or(0.0), median(&raw).unwrap_or(0.0));
    let mut rec = Record::new();
    rec.set("case", &args.case)
        .set("client", "toolwire")
        .set("init_us", init.as_micros())
        .set("lazy_at_connect", u8::from(lazy))
        .set("compiled_after_first", u8::from(compiled_after_first))
        .set("reject_us", format!("{:.3}", median(&reject).unwrap_or(0.0)))
        .set("validated_us", format!("{v:.2}"))
        .set("raw_us", format!("{r:.2}"))
        .set("delta_us", format!("{:.2}", v - r));
    Ok(rec)
}

async fn rmcp_calls(args: &Args) -> Result<Record, String> {
    use rmcp::ServiceExt as _;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    let start = Instant::now();
    let mut cmd = tokio::process::Command::new(&args.command[0]);
    cmd.args(&args.command[1..]);
    let transport = TokioChildProcess::new(cmd).map_err(|e| format!("spawn: {e}"))?;
    let service = ().serve(transport).await.map_err(|e| format!("connect: {e}"))?;
    let init = start.elapsed();
    let peer = service.peer().clone();
    let mut arguments = serde_json::Map::new();
    arguments.insert("text".into(), json!(ECHO_TEXT));
    let one = move || {
        let peer = peer.clone();
        let params = CallToolRequestParams::new("echo").with_arguments(arguments.clone());
        async move {
            let r = peer.call_tool(params).await.map_err(|e| e.to_string())?;
            let text = r.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str());
            if text == Some(ECHO_TEXT) && r.is_error != Some(true) {
                Ok(())
            } else {
                Err(format!("bad result: {r:?}"))
            }
        }
    };
    let warm = args.warmup();
    timed(warm, 1, one.clone()).await?;
    let (lat, elapsed) = timed(args.calls, args.concurrency, one).await?;
    service.cancel().await.map_err(|e| format!("cancel: {e}"))?;
    Ok(record(args, init, lat, elapsed))
}
