//! Tower layers around every MCP request (feature `tower`, `ServerBuilder::layer`), against a
//! real peer: the Python SDK 2.3.0 client (tests/peers/clients/py_layered.py), legacy and
//! 2026-07-28, calls a real child (`layered-server`, tests/src/bin) over stdio and over
//! streamable HTTP on 127.0.0.1. The server's layers are tower's own `TimeoutLayer`,
//! `LoadShedLayer` over `ConcurrencyLimitLayer`, and a `Layer` and `Service` of the program's
//! own (`Ledger`). What the client reads:
//!
//! - a call the timeout ends: the JSON-RPC error naming the call and saying it timed out, and
//!   the tool's body saw its context cancelled and was dropped;
//! - a call that arrives while another runs: shed, the error saying the server is at capacity;
//! - `canned`, no tool: the program's own layer's answer; and the layer saw every request,
//!   method and name;
//! - piped into the server's stdin and closed at once, a request is still answered;
//! - and a 2026-07-28 HTTP client that hangs up on a call inside the layers cancels it (its
//!   body is dropped long before the timeout would have ended it).

mod peer_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use peer_support::{TempDir, peer, run_bounded};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_layered-server");

const TIMED_OUT: &str =
    "tools/call of 'slow' timed out: the server's time limit for a request passed before it was answered";
const SHED: &str = "tools/call of 'echo' was not served: the server is at capacity; try again later";

/// Run the Python driver with `args` (marks in `marks`); its report.
fn python(marks: &Path, envs: &[(&str, &str)], args: &[&str]) -> Value {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/py_layered.py")).args(args);
    command.env("LAYERED_MARKS", marks).env("PYTHONUNBUFFERED", "1");
    for (k, v) in envs {
        command.env(k, v);
    }
    let out = run_bounded(command, Duration::from_secs(90));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "py_layered {args:?} failed:\n{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("not a report ({e}): {stdout}\n{stderr}"))
}

/// Wait up to 5 s for `<marks>/<name>`.
fn marked(marks: &Path, name: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if marks.join(name).exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// What every transport and era must show.
fn assert_report(report: &Value, marks: &Path, modern: bool) {
    assert_eq!(report["echo"], json!({"texts": ["hi"], "isError": false}), "{report}");
    assert_eq!(
        report["canned"],
        json!({"texts": ["answered by the ledger layer for canned (client mcp)"], "isError": false}),
        "{report}"
    );
    assert_eq!(report["slow"], json!({"error": {"code": -32033, "message": TIMED_OUT}}), "{report}");
    assert!(marked(marks, "timed-out.cancelled"), "the timed-out body's context was not cancelled");
    assert!(marked(marks, "timed-out.dropped"), "the timed-out body was not dropped");
    assert_eq!(report["hold"], json!({"texts": ["held"], "isError": false}), "{report}");
    assert_eq!(report["shed"], json!({"error": {"code": -32034, "message": SHED}}), "{report}");
    assert_eq!(report["after"], json!({"texts": ["after"], "isError": false}), "{report}");

    // The program's own layer saw every request, by method and name, the shed one included.
    let ledger = std::fs::read_to_string(marks.join("ledger")).expect("the ledger layer wrote its ledger");
    let calls: Vec<&str> = ledger.lines().filter(|l| l.starts_with("tools/call")).collect();
    assert_eq!(
        calls,
        [
            "tools/call echo",
            "tools/call canned",
            "tools/call slow",
            "tools/call hold",
            "tools/call echo",
            "tools/call echo"
        ],
        "{ledger}"
    );
    let first = if modern { "server/discover -" } else { "initialize -" };
    assert_eq!(ledger.lines().next(), Some(first), "{ledger}");
}

fn over_stdio(mode: &str) {
    let marks = TempDir::new("layered-marks");
    let report = python(&marks.0, &[], &["--mode", mode, "--", SERVER, "--log-level", "off"]);
    assert_report(&report, &marks.0, mode != "legacy");
}

#[test]
fn over_stdio_the_python_client_reads_the_layers_answers_in_the_legacy_era() {
    over_stdio("legacy");
}

#[test]
fn over_stdio_the_python_client_reads_the_layers_answers_in_2026_07_28() {
    over_stdio("auto");
}

#[test]
fn over_stdio_a_request_piped_in_before_stdin_closes_is_answered() {
    // Stdin a file: the request and the end of input are both there when serving begins
    // (as `printf ... | server` gives them), so the input closes while the request is still
    // in the layers.
    let dir = TempDir::new("layered-stdin");
    let input = dir.0.join("input");
    std::fs::write(&input, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").unwrap();
    for _ in 0..5 {
        let out = Command::new(SERVER)
            .args(["--log-level", "off"])
            .stdin(std::fs::File::open(&input).unwrap())
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    }
}

/// A `layered-server --http` child, its URL and its bearer token.
struct HttpServer {
    child: Child,
    url: String,
    token: String,
}

impl HttpServer {
    fn start(marks: &Path, timeout_ms: u32) -> HttpServer {
        let mut child = Command::new(SERVER)
            .args(["--http", "--show-token", "--log-level", "off"])
            .env("LAYERED_MARKS", marks)
            .env("LAYERED_TIMEOUT_MS", timeout_ms.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut lines = Vec::new();
        for _ in 0..4 {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            lines.push(line.trim_end().to_owned());
        }
        let url = lines[0].rsplit(' ').next().unwrap().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{lines:?}");
        let auth =
            lines[3].strip_prefix("header: Authorization: Bearer ").unwrap_or_else(|| panic!("{lines:?}"));
        // The rest of stdout is not read; the pipe stays open so the server can write.
        std::mem::forget(out);
        HttpServer { child, url, token: auth.to_owned() }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

fn over_http(mode: &str) {
    let marks = TempDir::new("layered-marks");
    let server = HttpServer::start(&marks.0, 1000);
    let report = python(
        &marks.0,
        &[("LAYERED_TOKEN", &server.token)],
        &["--mode", mode, "--url", &server.url, "--token-env", "LAYERED_TOKEN"],
    );
    assert_report(&report, &marks.0, mode != "legacy");
}

#[test]
fn over_http_the_python_client_reads_the_layers_answers_in_the_legacy_era() {
    over_http("legacy");
}

#[test]
fn over_http_the_python_client_reads_the_layers_answers_in_2026_07_28() {
    over_http("auto");
}

#[test]
fn over_http_a_modern_client_that_hangs_up_cancels_the_call_inside_the_layers() {
    let marks = TempDir::new("layered-marks");
    let server = HttpServer::start(&marks.0, 30_000);
    let addr = server.url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let mut h = toolwire_tests::http::mcp_headers(addr);
    h.push(("Authorization".into(), format!("Bearer {}", server.token)));
    for (k, v) in [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "slow")]
    {
        h.push((k.into(), v.into()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"label": "hung-up"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let connection = toolwire_tests::http::open(addr, "POST", "/mcp", &h, &body.to_string());
    std::thread::sleep(Duration::from_millis(300));
    let hung_up = Instant::now();
    drop(connection);
    assert!(marked(&marks.0, "hung-up.cancelled"), "the body's context was not cancelled");
    assert!(marked(&marks.0, "hung-up.dropped"), "the body was not dropped");
    assert!(hung_up.elapsed() < Duration::from_secs(5), "cancelled only after {:?}", hung_up.elapsed());
}
