//! `#[tool(local)]` bodies, whose futures are not `Send` (an `Rc`, a `RefCell` borrow held
//! across an `.await`), served by a real child process (`local-tools`, tests/src/bin) over
//! stdio and over HTTP on 127.0.0.1, and called by the Python SDK 2.3.0 client
//! (tests/peers/clients/py_local_client.py): they run on toolwire's local threads with the
//! guarantees of any tool. Progress reaches the client; a panic is a tool error after which the
//! server serves on; `notifications/cancelled`, the server's deadline and (over HTTP) a
//! dropped connection each stop the body, whose `Drop` then runs on its local thread.

mod peer_support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use peer_support::{TempDir, peer, run_bounded};
use serde_json::{Value, json};
use toolwire_tests::http::{mcp_headers, open};

const SERVER: &str = env!("CARGO_BIN_EXE_local-tools");

/// The Python driver's JSON lines, by case.
fn cases(mut command: Command) -> BTreeMap<String, Value> {
    command.env("PYTHONUNBUFFERED", "1");
    let shown = format!("{command:?}");
    let out = run_bounded(command, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .map(|v| (v["case"].as_str().expect("a case name").to_owned(), v))
        .collect()
}

fn py_driver(mode: &str) -> Command {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/py_local_client.py"));
    command.args(["--mode", mode]);
    command
}

/// Wait up to 5 s for `<dir>/<label>.dropped`; the name of the thread the body was dropped on.
fn dropped(dir: &Path, label: &str) -> String {
    let path = dir.join(format!("{label}.dropped"));
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if let Ok(thread) = std::fs::read_to_string(&path) {
            return thread;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the body labelled `{label}` was not dropped within 5 s");
}

/// What every run of the driver must have seen, whatever the transport and era.
fn assert_cases(cases: &BTreeMap<String, Value>, marks: &Path) {
    let tally = &cases["tally"];
    assert_eq!(tally["is_error"], json!(false), "{tally}");
    let text = tally["text"].as_str().unwrap();
    assert!(text.starts_with("3 on toolwire-local-"), "{tally}");
    assert_eq!(
        tally["progress"],
        json!([[1.0, 3.0, "counted"], [2.0, 3.0, "counted"], [3.0, 3.0, "counted"]]),
        "{tally}"
    );

    let boom = &cases["boom"];
    assert_eq!(boom["is_error"], json!(true), "{boom}");
    assert!(boom["text"].as_str().unwrap().contains("the local body gave up"), "{boom}");

    let whereabouts = &cases["whereabouts"];
    assert!(whereabouts["text"].as_str().unwrap().starts_with("toolwire-local-"), "{whereabouts}");

    assert_eq!(cases["cancelled"]["given_up"], json!(true));
    assert_eq!(
        cases["cancelled"]["dropped_within_1s"],
        json!(true),
        "not dropped on `notifications/cancelled`"
    );
    assert!(dropped(marks, "cancelled").starts_with("toolwire-local-"));

    let deadline = &cases["deadline"];
    assert_eq!(
        (deadline["is_error"].clone(), deadline["text"].clone()),
        (json!(true), json!("tool 'forever' did not return within 2s and was abandoned")),
        "the deadline's answer: {deadline}"
    );
    assert!(dropped(marks, "deadline").starts_with("toolwire-local-"));

    assert_eq!(cases["after"]["is_error"], json!(false), "{}", cases["after"]);
    assert!(cases["after"]["text"].as_str().unwrap().starts_with("1 on toolwire-local-"));
}

fn over_stdio(mode: &str) {
    let marks = TempDir::new("local-marks");
    let mut command = py_driver(mode);
    command.env("LOCAL_TOOLS_MARKS", &marks.0);
    command.args(["--stdio", "--", SERVER, "--deadline", "2", "--log-level", "off"]);
    assert_cases(&cases(command), &marks.0);
}

#[test]
fn over_stdio_the_python_client_calls_local_tools_in_the_legacy_era() {
    over_stdio("legacy");
}

#[test]
fn over_stdio_the_python_client_calls_local_tools_in_2026_07_28() {
    over_stdio("2026-07-28");
}

/// A `local-tools --http` child, its address and its bearer token.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
    token: String,
}

impl HttpServer {
    fn start(marks: &Path) -> HttpServer {
        let mut child = Command::new(SERVER)
            .args(["--http", "--show-token", "--log-level", "off", "--deadline", "2"])
            .env("LOCAL_TOOLS_MARKS", marks)
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
        let url = lines[0].rsplit(' ').next().unwrap();
        let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
        let auth =
            lines[3].strip_prefix("header: Authorization: Bearer ").unwrap_or_else(|| panic!("{lines:?}"));
        // The rest of stdout is not read; the pipe stays open so the server can write.
        std::mem::forget(out);
        HttpServer { child, addr, token: auth.to_owned() }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

fn over_http(mode: &str) {
    let marks = TempDir::new("local-marks");
    let server = HttpServer::start(&marks.0);
    let mut command = py_driver(mode);
    command.env("LOCAL_TOOLS_TOKEN", &server.token).env("LOCAL_TOOLS_MARKS", &marks.0);
    command.args(["--url", &format!("http://{}/mcp", server.addr), "--token-env", "LOCAL_TOOLS_TOKEN"]);
    assert_cases(&cases(command), &marks.0);
}

#[test]
fn over_http_the_python_client_calls_local_tools_in_the_legacy_era() {
    over_http("legacy");
}

#[test]
fn over_http_the_python_client_calls_local_tools_in_2026_07_28() {
    over_http("2026-07-28");
}

/// A client that closes its connection while a `local` body runs: the body is dropped, on its
/// local thread, long before the deadline would have stopped it.
#[test]
fn over_http_a_dropped_connection_drops_the_local_body() {
    let marks = TempDir::new("local-marks");
    let server = HttpServer::start(&marks.0);
    let mut h = mcp_headers(server.addr);
    h.push(("Authorization".into(), format!("Bearer {}", server.token)));
    for (k, v) in
        [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "forever")]
    {
        h.push((k.into(), v.into()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "forever", "arguments": {"label": "hung-up"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let connection = open(server.addr, "POST", "/mcp", &h, &body.to_string());
    // Let the body start, then hang up.
    std::thread::sleep(Duration::from_millis(300));
    let hung_up = Instant::now();
    drop(connection);
    let thread = dropped(&marks.0, "hung-up");
    assert!(thread.starts_with("toolwire-local-"), "{thread}");
    assert!(hung_up.elapsed() < Duration::from_millis(1500), "dropped only at the deadline");
}
