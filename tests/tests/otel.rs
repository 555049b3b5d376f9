//! OpenTelemetry end to end (feature `otel`), against real peers and a real receiver: the
//! Python SDK 2.3.0 client, traced with opentelemetry-sdk, calls a toolwire server
//! (`otel-hop`, tests/src/bin) over stdio, and over HTTP on 127.0.0.1; the tool it calls is adopted from a Python SDK
//! 2.3.0 server (tests/peers/fixtures/py_otel_server.py), traced too. Every process exports
//! its spans over OTLP/HTTP to one `oteltap` receiver (PyPI, pinned in
//! tests/peers/requirements-otel.txt), toolwire through its own exporter (`otel::Otlp`).
//! What the receiver got must be one trace, linked hop to hop:
//!
//! ```text
//! py client root (Python)
//! ├── MCP send tools/list            CLIENT (Python client, for the tool's schemas)
//! │   └── tools/list                 SERVER (toolwire)
//! └── MCP send tools/call shout      CLIENT (Python client; traceparent into _meta)
//!     └── tools/call shout           SERVER (toolwire: ServerTelemetry, parent from _meta)
//!         └── tools/call shout       CLIENT (toolwire: ClientTelemetry, the adopted tool's call)
//!             └── tools/call shout   SERVER (Python server, parent from the _meta toolwire wrote)
//!                 └── shout body     INTERNAL (the Python tool's body)
//! ```
//!
//! and the same for `boom` (a tool's error result, four hops) and `nope` (an unknown tool,
//! toolwire's JSON-RPC error, never sent downstream): fourteen spans in one trace; and
//! `sleepy`, which the client gives up on after 1 s: toolwire's two spans end `cancelled`.
//!
//! and toolwire's metrics (both sides) must have reached the receiver too.

mod peer_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use peer_support::{peer, run_bounded};
use serde_json::{Value, json};

const HOP: &str = env!("CARGO_BIN_EXE_otel-hop");

/// `oteltap` listening on a free loopback port, every line it prints kept.
struct Receiver {
    child: Child,
    port: u16,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Receiver {
    fn start() -> Receiver {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut child = Command::new(peer("TOOLWIRE_PY_OTEL"))
            .args(["-m", "oteltap", "--port", &port.to_string()])
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start oteltap");
        let out = BufReader::new(child.stdout.take().unwrap());
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let kept = lines.clone();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if line.starts_with("Listening") {
                    let _ = ready_tx.send(());
                }
                kept.lock().unwrap().push(line);
            }
        });
        ready_rx.recv_timeout(Duration::from_secs(20)).expect("oteltap says it listens");
        Receiver { child, port, lines }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The JSON objects received so far.
    fn items(&self) -> Vec<Value> {
        self.lines.lock().unwrap().iter().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// Wait up to 20 s for `done` to hold of what was received.
    fn wait_for(&self, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let items = self.items();
            if done(&items) {
                return items;
            }
            assert!(
                Instant::now() < until,
                "{what} never reached the receiver; it got these spans:\n{}and these other items:\n{:#?}",
                summary(&items.iter().filter(|i| i.get("spanId").is_some()).cloned().collect::<Vec<_>>()),
                items.iter().filter(|i| i.get("spanId").is_none()).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Span kinds as OTLP numbers them.
const INTERNAL: i64 = 1;
const SERVER: i64 = 2;
const CLIENT: i64 = 3;

fn attribute<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    span["attributes"].as_array()?.iter().find(|a| a["key"] == key).map(|a| &a["value"])
}

fn string_attribute<'a>(span: &'a Value, key: &str) -> Option<&'a str> {
    attribute(span, key)?["stringValue"].as_str()
}

/// One line a span: its id, its parent's, its kind and its name.
fn summary(spans: &[Value]) -> String {
    spans
        .iter()
        .map(|s| format!("{} <- {} kind {} {}\n", s["spanId"], s["parentSpanId"], s["kind"], s["name"]))
        .collect()
}

/// The one span of `trace` whose parent is `parent`, named `name`, of `kind`.
fn child<'a>(spans: &'a [Value], parent: &str, name: &str, kind: i64) -> &'a Value {
    let found: Vec<&Value> = spans
        .iter()
        .filter(|s| s["parentSpanId"] == parent && s["name"] == name && s["kind"] == kind)
        .collect();
    assert_eq!(found.len(), 1, "one `{name}` (kind {kind}) under {parent}; the trace:\n{}", summary(spans));
    found[0]
}

/// The middle hop over HTTP: `otel-hop --http`, serving until its stdin closes.
struct HttpHop {
    child: Child,
    url: String,
}

impl HttpHop {
    fn start(receiver: &Receiver, python: &str, script: &std::path::Path) -> HttpHop {
        let mut child = Command::new(HOP)
            .arg(python)
            .arg(script)
            .arg("--http")
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start otel-hop --http");
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut url).unwrap();
        HttpHop { child, url: url.trim().to_owned() }
    }

    /// Close its stdin and wait for it to exit (its exporter flushed).
    fn stop(mut self) {
        drop(self.child.stdin.take());
        let until = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < until, "otel-hop --http did not exit when its stdin closed");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for HttpHop {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn over(transport: &str, mode: &str) {
    let receiver = Receiver::start();
    let python = peer("TOOLWIRE_PY_OTEL");
    let fixtures = toolwire_tests::tests_dir().join("peers");
    let server_script = fixtures.join("fixtures/py_otel_server.py");
    let mut client = Command::new(&python);
    client
        .arg(fixtures.join("clients/py_otel_client.py"))
        .args(["--mode", mode, &receiver.endpoint(), "shout", "boom", "nope", "sleepy", "--"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .env("PYTHONUNBUFFERED", "1");
    let hop = match transport {
        "http" => {
            let hop = HttpHop::start(&receiver, &python, &server_script);
            client.arg(&hop.url);
            Some(hop)
        }
        _ => {
            client.args([HOP, &python]).arg(&server_script);
            None
        }
    };
    let out = run_bounded(client, Duration::from_secs(60));
    if let Some(hop) = hop {
        hop.stop();
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the Python client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said: Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("the client's line");
    // The adopted tool's text, sealed as toolwire seals what a remote server says.
    let sealed = "<untrusted-data source=\"mcp\" server=\"py\" tool=\"shout\">\nHELLO!\n</untrusted-data>";
    assert_eq!(said["calls"]["shout"], json!({"text": sealed, "is_error": false}), "{said}");
    assert_eq!(said["calls"]["boom"]["is_error"], json!(true), "{said}");
    let unknown = said["calls"]["nope"]["code"].as_i64().expect("a JSON-RPC error for an unknown tool");
    assert_eq!(said["calls"]["sleepy"], json!({"given_up": true}), "{said}");
    let trace_id = said["trace_id"].as_str().unwrap().to_owned();
    let root = said["root_span_id"].as_str().unwrap().to_owned();

    // Fourteen spans in the client's trace: all of them came, from three processes.
    // (`sleepy`'s spans are looked at apart, below: the Python server's ends when it likes.)
    let sleepy = |s: &Value| s["name"].as_str().is_some_and(|n| n.ends_with("sleepy"));
    let items = receiver.wait_for("the spans of the trace", |items| {
        items.iter().filter(|i| i["traceId"] == trace_id.as_str() && !sleepy(i)).count() >= 14
    });
    let spans: Vec<Value> = items.iter().filter(|i| i.get("spanId").is_some()).cloned().collect();
    let in_trace: Vec<Value> =
        spans.iter().filter(|s| s["traceId"] == trace_id.as_str() && !sleepy(s)).cloned().collect();
    assert_eq!(in_trace.len(), 14, "one trace end to end:\n{}", summary(&in_trace));

    let py_list = child(&in_trace, &root, "MCP send tools/list", CLIENT);
    let listed = child(&in_trace, py_list["spanId"].as_str().unwrap(), "tools/list", SERVER);
    assert_eq!(string_attribute(listed, "mcp.method.name"), Some("tools/list"), "{listed}");
    let py_send = child(&in_trace, &root, "MCP send tools/call shout", CLIENT);
    let served = child(&in_trace, py_send["spanId"].as_str().unwrap(), "tools/call shout", SERVER);
    let sent = child(&in_trace, served["spanId"].as_str().unwrap(), "tools/call shout", CLIENT);
    let py_served = child(&in_trace, sent["spanId"].as_str().unwrap(), "tools/call shout", SERVER);
    child(&in_trace, py_served["spanId"].as_str().unwrap(), "shout body", INTERNAL);

    // toolwire's spans carry the conventions' attributes.
    for span in [served, sent] {
        assert_eq!(string_attribute(span, "mcp.method.name"), Some("tools/call"), "{span}");
        assert_eq!(string_attribute(span, "gen_ai.tool.name"), Some("shout"), "{span}");
        assert_eq!(string_attribute(span, "gen_ai.operation.name"), Some("execute_tool"), "{span}");
        assert!(string_attribute(span, "jsonrpc.request.id").is_some(), "{span}");
        assert_eq!(attribute(span, "error.type"), None, "{span}");
    }
    // Over HTTP the served span says so, and a legacy one names its session.
    let served = child(
        &in_trace,
        child(&in_trace, &root, "MCP send tools/call shout", CLIENT)["spanId"].as_str().unwrap(),
        "tools/call shout",
        SERVER,
    );
    let tcp = string_attribute(served, "network.transport");
    let session = string_attribute(served, "mcp.session.id");
    match (transport, mode) {
        ("http", "legacy") => {
            assert!(tcp == Some("tcp") && session.is_some_and(|s| !s.is_empty()), "{served}")
        }
        ("http", _) => assert!(tcp == Some("tcp") && session.is_none(), "{served}"),
        _ => assert!(tcp.is_none() && session.is_none(), "{served}"),
    }
    let version = if mode == "legacy" { None } else { Some("2026-07-28") };
    if let Some(version) = version {
        assert_eq!(string_attribute(served, "mcp.protocol.version"), Some(version), "{served}");
    } else {
        assert!(string_attribute(served, "mcp.protocol.version").is_some(), "{served}");
    }

    // A tool's error result: toolwire's spans on both sides say `tool_error`, status Error.
    let py_send = child(&in_trace, &root, "MCP send tools/call boom", CLIENT);
    let served = child(&in_trace, py_send["spanId"].as_str().unwrap(), "tools/call boom", SERVER);
    let sent = child(&in_trace, served["spanId"].as_str().unwrap(), "tools/call boom", CLIENT);
    child(&in_trace, sent["spanId"].as_str().unwrap(), "tools/call boom", SERVER);
    for span in [served, sent] {
        assert_eq!(string_attribute(span, "error.type"), Some("tool_error"), "{span}");
        assert_eq!(span["status"]["code"], 2, "status Error: {span}");
    }

    // An unknown tool: a JSON-RPC error, its code the error type; never sent downstream.
    let py_send = child(&in_trace, &root, "MCP send tools/call nope", CLIENT);
    let served = child(&in_trace, py_send["spanId"].as_str().unwrap(), "tools/call nope", SERVER);
    assert_eq!(string_attribute(served, "error.type"), Some(unknown.to_string().as_str()), "{served}");
    assert_eq!(string_attribute(served, "rpc.response.status_code"), Some(unknown.to_string().as_str()));
    assert_eq!(served["status"]["code"], 2, "status Error: {served}");
    assert!(in_trace.iter().all(|s| s["parentSpanId"] != served["spanId"]), "nothing under {served}");

    // A call the client gave up on: toolwire's served span ends `cancelled` (the client's
    // `notifications/cancelled`), and so does its own call downstream, dropped untold.
    let items = receiver.wait_for("toolwire's spans of the cancelled call", |items| {
        items.iter().filter(|i| i["traceId"] == trace_id.as_str() && i["name"] == "tools/call sleepy").count()
            >= 2
    });
    let in_trace: Vec<Value> = items.iter().filter(|i| i["traceId"] == trace_id.as_str()).cloned().collect();
    let py_send = child(&in_trace, &root, "MCP send tools/call sleepy", CLIENT);
    let served = child(&in_trace, py_send["spanId"].as_str().unwrap(), "tools/call sleepy", SERVER);
    let sent = child(&in_trace, served["spanId"].as_str().unwrap(), "tools/call sleepy", CLIENT);
    for span in [served, sent] {
        assert_eq!(string_attribute(span, "error.type"), Some("cancelled"), "{span}");
        assert_eq!(span["status"]["code"], 2, "status Error: {span}");
    }

    // toolwire's exporter sent its metrics too (flushed when the hop exited).
    let metrics = receiver.wait_for("toolwire's metrics", |items| {
        let names: Vec<&str> = items.iter().filter_map(|i| i["name"].as_str()).collect();
        ["mcp.server.operation.duration", "mcp.client.operation.duration", "toolwire.server.requests"]
            .iter()
            .all(|n| names.contains(n))
    });
    let duration = metrics.iter().find(|m| m["name"] == "mcp.server.operation.duration").unwrap();
    assert_eq!(duration["unit"], "s", "{duration}");
    // Counted by method, tool and error type: `boom` once as a tool error on each side.
    for name in ["toolwire.server.requests", "toolwire.client.requests"] {
        let requests = metrics.iter().find(|m| m["name"] == name).unwrap();
        let points = requests["sum"]["dataPoints"].as_array().expect("a sum's data points");
        let boom = points
            .iter()
            .find(|p| p["attributes"].as_array().unwrap().iter().any(|a| a["value"]["stringValue"] == "boom"))
            .unwrap_or_else(|| panic!("no data point for boom: {requests}"));
        let has = |k: &str, v: &str| {
            boom["attributes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["key"] == k && a["value"]["stringValue"] == v)
        };
        assert!(has("error.type", "tool_error") && has("mcp.method.name", "tools/call"), "{boom}");
        assert_eq!(boom["asInt"], 1, "{boom}");
    }
}

#[test]
fn over_stdio_one_trace_from_a_traced_python_client_through_toolwire_to_a_python_server_in_the_legacy_era() {
    over("stdio", "legacy");
}

#[test]
fn over_stdio_one_trace_from_a_traced_python_client_through_toolwire_to_a_python_server_in_2026_07_28() {
    over("stdio", "2026-07-28");
}

#[test]
fn over_http_one_trace_from_a_traced_python_client_through_toolwire_to_a_python_server_in_the_legacy_era() {
    over("http", "legacy");
}

#[test]
fn over_http_one_trace_from_a_traced_python_client_through_toolwire_to_a_python_server_in_2026_07_28() {
    over("http", "2026-07-28");
}
