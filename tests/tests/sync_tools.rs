//! Sync `#[tool] fn`s that block, never return or panic, served by a real child process
//! (`sync-tools`, tests/src/bin) over stdio and over HTTP on 127.0.0.1: a body that sleeps
//! holds up no other call, the server's deadline answers a body that never returns, and a
//! panic is a tool error after which the server serves on.
//!
//! Over stdio a sync body runs in place, on the stdin reader, which a new reader relieves
//! once the body runs past a few milliseconds; at most 2 relieved bodies run at once, and past
//! that a body goes to a hot worker (at most 2), then to tokio's blocking pool. Each test
//! sends more misbehaving calls than relief and the hot workers together take, so every
//! place a sync body runs is covered.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};
use toolwire_tests::example_server::StdioChild;
use toolwire_tests::http::{mcp_headers, request};

const SERVER: &str = env!("CARGO_BIN_EXE_sync-tools");
/// More than relief (2) and the hot workers (at most 2) take together.
const MISBEHAVING: usize = 6;

fn call(id: Value, tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        .to_string()
}

fn stdio(args: &[&str]) -> StdioChild {
    let mut child = StdioChild::spawn(Command::new(SERVER).args(args).args(["--log-level", "off"]));
    let init = child.initialize("2025-06-18");
    assert!(init.contains(r#""serverInfo":{"name":"sync-tools""#), "{init}");
    child
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

/// The text of a tool result, and whether it is an error.
fn text_of(reply: &Value) -> (&str, bool) {
    let result = &reply["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {reply}"));
    (text, result["isError"] == json!(true))
}

#[test]
fn over_stdio_sync_tools_sleeping_2_s_hold_up_none_of_100_fast_calls() {
    let mut server = stdio(&[]);
    for i in 0..MISBEHAVING {
        server.send(&call(json!(format!("slow-{i}")), "sleepy", json!({})));
    }
    // Each fast call is answered, in turn, before any sleeping one: the stdin reader and the
    // runtime are free while the sleeping bodies hold their threads.
    for i in 0..100 {
        let reply = parse(&server.ask(&call(json!(i), "fast", json!({"text": format!("fast {i}")}))));
        assert_eq!(reply["id"], json!(i), "fast call {i} answered before the sleeping ones: {reply}");
        assert_eq!(text_of(&reply), (format!("fast {i}").as_str(), false));
    }
    let mut slow: Vec<String> = (0..MISBEHAVING)
        .map(|_| {
            let reply = parse(&server.recv());
            assert_eq!(text_of(&reply), ("slept 2 s", false), "{reply}");
            reply["id"].as_str().unwrap().to_owned()
        })
        .collect();
    slow.sort();
    assert_eq!(slow, (0..MISBEHAVING).map(|i| format!("slow-{i}")).collect::<Vec<_>>());
}

/// What a client writes before the server is ready (the handshake and calls, all waiting on
/// stdin when serving begins) is dispatched by the serving thread before the stdin reader
/// thread starts: `initialize` is answered first, every line in order, and a call among those
/// lines is spawned, never run on the serving thread (the runtime's, `main`), so sync bodies
/// that sleep hold up none of the rest. A line cut short is completed by the reader.
#[test]
fn over_stdio_calls_waiting_before_serving_began_are_answered_in_order_and_no_body_runs_on_the_serving_thread()
 {
    use std::io::Write;
    let (input, mut client) = std::io::pipe().unwrap();
    let mut waiting = format!(
        "{}\r\n{}\n",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    for i in 0..MISBEHAVING {
        waiting += &(call(json!(format!("slow-{i}")), "sleepy", json!({})) + "\n");
    }
    waiting += &(call(json!("where"), "whereabouts", json!({})) + "\n");
    waiting += &(call(json!("fast"), "fast", json!({"text": "fast"})) + "\n");
    waiting += r#"{"jsonrpc":"2.0","id":"ping","method":"ping"}"#;
    client.write_all(waiting.as_bytes()).unwrap();
    let mut child = Command::new(SERVER)
        .args(["--log-level", "off"])
        .stdin(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn sync-tools");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut next = || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        parse(&line)
    };
    let init = next();
    assert_eq!(init["id"], json!(0), "initialize is answered first: {init}");
    assert!(init["result"]["serverInfo"]["name"] == json!("sync-tools"), "{init}");
    let (first, second) = (next(), next());
    let mut quick = [first["id"].as_str().unwrap(), second["id"].as_str().unwrap()];
    quick.sort();
    assert_eq!(quick, ["fast", "where"], "answered before any sleeping body: {first} {second}");
    let whereabouts = if first["id"] == json!("where") { &first } else { &second };
    let thread = text_of(whereabouts).0;
    assert_ne!(thread, "main", "a sync body ran on the serving thread");
    client.write_all(b"\n").unwrap();
    assert_eq!(next()["id"], json!("ping"), "the line cut short is read and answered");
    for _ in 0..MISBEHAVING {
        let reply = next();
        assert_eq!(text_of(&reply), ("slept 2 s", false), "{reply}");
    }
    drop(client);
    assert!(child.wait().unwrap().success());
}

/// A short sync body runs on the stdin reader itself; after a body that sleeps has been
/// relieved, the thread that reads (and runs short bodies) is a new stdin reader.
#[test]
fn over_stdio_a_short_sync_body_runs_in_place_on_the_stdin_reader_even_after_a_relief() {
    let mut server = stdio(&[]);
    let whereabouts = |server: &mut StdioChild, id: Value| {
        let reply = parse(&server.ask(&call(id, "whereabouts", json!({}))));
        text_of(&reply).0.to_owned()
    };
    assert_eq!(whereabouts(&mut server, json!(1)), "toolwire-stdin");
    server.send(&call(json!("slow"), "sleepy", json!({})));
    assert_eq!(whereabouts(&mut server, json!(2)), "toolwire-stdin", "a new reader took over");
    assert_eq!(text_of(&parse(&server.recv())), ("slept 2 s", false));
    assert_eq!(whereabouts(&mut server, json!(3)), "toolwire-stdin");
}

/// A relieved body's progress goes out as it is reported, not with its answer: the first
/// report (sent in place, before the relief) and the second (sent 500 ms later, from the
/// relieved thread) each arrive well before the answer, with the client sending nothing.
#[test]
fn over_stdio_a_relieved_sync_bodys_progress_is_written_as_it_is_reported() {
    let mut server = stdio(&[]);
    let started = std::time::Instant::now();
    server.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "reporting", "arguments": {}, "_meta": {"progressToken": "p"}}})
        .to_string(),
    );
    let mut seen = Vec::new();
    loop {
        let message = parse(&server.recv());
        seen.push((started.elapsed(), message.clone()));
        if message.get("id").is_some() {
            break;
        }
    }
    let kinds: Vec<Value> = seen.iter().map(|(_, m)| m["params"]["progress"].clone()).collect::<Vec<_>>();
    assert_eq!(kinds, vec![json!(1), json!(2), Value::Null], "{seen:?}");
    assert_eq!(text_of(&seen[2].1), ("reported", false));
    let (first, second, answer) = (seen[0].0, seen[1].0, seen[2].0);
    assert!(first < std::time::Duration::from_millis(400), "the first report came after {first:?}");
    assert!(
        second < answer.saturating_sub(std::time::Duration::from_millis(300)),
        "the second report ({second:?}) came with the answer ({answer:?})"
    );
}

#[test]
fn over_stdio_a_sync_tool_that_never_returns_is_cut_off_by_the_deadline_and_the_server_serves_on() {
    let mut server = stdio(&["--deadline", "1"]);
    let sent = std::time::Instant::now();
    for i in 0..MISBEHAVING {
        server.send(&call(json!(format!("stuck-{i}")), "stuck", json!({})));
    }
    for _ in 0..MISBEHAVING {
        let reply = parse(&server.recv());
        assert!(reply["id"].as_str().unwrap().starts_with("stuck-"), "{reply}");
        assert_eq!(text_of(&reply), ("tool 'stuck' did not return within 1s and was abandoned", true));
    }
    // On time, wherever the body ran (a relieved one is answered by its rescue).
    let took = sent.elapsed();
    assert!(took < std::time::Duration::from_millis(2500), "the deadline answers came after {took:?}");
    // Every hot worker may now be held by a body that never returns: calls still run.
    for i in 0..20 {
        let reply = parse(&server.ask(&call(json!(i), "fast", json!({"text": "still here"}))));
        assert_eq!((reply["id"].clone(), text_of(&reply)), (json!(i), ("still here", false)));
    }
}

#[test]
fn over_stdio_a_panicking_sync_tool_is_a_tool_error_and_the_server_serves_on() {
    let mut server = stdio(&[]);
    for i in 0..MISBEHAVING {
        let reply = parse(&server.ask(&call(json!(i), "boom", json!({}))));
        assert_eq!(reply["id"], json!(i));
        assert_eq!(text_of(&reply), ("tool 'boom' failed: panicked: the sync body gave up", true));
        let reply = parse(&server.ask(&call(json!(100 + i), "fast", json!({"text": "after"}))));
        assert_eq!(text_of(&reply), ("after", false));
    }
    // A body marked `inline` runs on the stdin reader's thread; its panic is caught there.
    let reply = parse(&server.ask(&call(json!("inline"), "boom_inline", json!({}))));
    assert_eq!(text_of(&reply), ("tool 'boom_inline' failed: panicked: the inline body gave up", true));
    let reply = parse(&server.ask(&call(json!("last"), "fast", json!({"text": "after"}))));
    assert_eq!(text_of(&reply), ("after", false));
}

/// The `sync-tools` server over HTTP.
struct HttpServer {
    child: Child,
    caller: Caller,
}

/// Where the HTTP server listens, and its `Authorization` header.
#[derive(Clone)]
struct Caller {
    addr: SocketAddr,
    auth: String,
}

impl HttpServer {
    fn start(extra: &[&str]) -> HttpServer {
        let mut child = Command::new(SERVER)
            .args(["--http", "--show-token", "--log-level", "off"])
            .args(extra)
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
        let auth = lines[3].strip_prefix("header: Authorization: ").unwrap_or_else(|| panic!("{lines:?}"));
        // The rest of stdout is not read; the pipe stays open so the server can write.
        std::mem::forget(out);
        HttpServer { child, caller: Caller { addr, auth: auth.to_owned() } }
    }
}

impl Caller {
    /// One stateless (2026-07-28) `tools/call`, on a connection of its own; the reply.
    fn call(&self, id: Value, tool: &str, args: Value) -> Value {
        let mut h = mcp_headers(self.addr);
        h.push(("Authorization".into(), self.auth.clone()));
        for (k, v) in
            [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", tool)]
        {
            h.push((k.into(), v.into()));
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": tool, "arguments": args,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        let r = request(self.addr, "POST", "/mcp", &h, &body.to_string());
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        // SIGTERM, so the server deletes its config file.
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

/// On a runtime of one worker (no seat: a worker must be left to serve the rest), every
/// sleeping body runs on the sync workers and the blocking pool.
#[test]
fn over_http_on_1_runtime_worker_sync_tools_sleeping_2_s_hold_up_none_of_100_fast_calls() {
    sleeping_bodies_hold_up_no_fast_call(&["--worker-threads", "1"]);
}

/// On a multi-threaded runtime of 2 workers, one sleeping body runs in place on a runtime
/// worker (its one seat), and the rest on the sync workers and the blocking pool.
#[test]
fn over_http_on_2_runtime_workers_sync_tools_sleeping_2_s_hold_up_none_of_100_fast_calls() {
    sleeping_bodies_hold_up_no_fast_call(&["--worker-threads", "2"]);
}

fn sleeping_bodies_hold_up_no_fast_call(flags: &[&str]) {
    let http = HttpServer::start(flags);
    let server = &http.caller;
    let done = Arc::new(AtomicBool::new(false));
    let sleepers: Vec<_> = (0..MISBEHAVING)
        .map(|i| {
            let (server, done) = (server.clone(), done.clone());
            std::thread::spawn(move || {
                let reply = server.call(json!(format!("slow-{i}")), "sleepy", json!({}));
                done.store(true, Ordering::SeqCst);
                reply
            })
        })
        .collect();
    // Wait until every sleeping call has reached its body: an HTTP server that is serving at
    // all answers a fast call in far less than the 2 s they sleep, so the first fast answer
    // comes while they sleep. The 100 fast calls must all be answered before any of them.
    std::thread::sleep(std::time::Duration::from_millis(200));
    for i in 0..100 {
        let reply = server.call(json!(i), "fast", json!({"text": format!("fast {i}")}));
        assert_eq!(text_of(&reply), (format!("fast {i}").as_str(), false), "{reply}");
    }
    assert!(!done.load(Ordering::SeqCst), "100 fast calls were answered while the sleeping ones ran");
    for (i, t) in sleepers.into_iter().enumerate() {
        let reply = t.join().unwrap();
        assert_eq!(
            (reply["id"].clone(), text_of(&reply)),
            (json!(format!("slow-{i}")), ("slept 2 s", false))
        );
    }
}

#[test]
fn over_http_on_1_runtime_worker_a_stuck_sync_tool_is_cut_off_by_the_deadline_and_a_panicking_one_is_a_tool_error()
 {
    stuck_bodies_are_cut_off_and_panics_are_tool_errors(&["--worker-threads", "1"]);
}

/// On 2 runtime workers the first stuck body holds a worker for good, in place: its call is
/// answered by its rescue at the deadline, and the server serves on with the other worker.
#[test]
fn over_http_on_2_runtime_workers_a_stuck_sync_tool_is_cut_off_by_the_deadline_and_a_panicking_one_is_a_tool_error()
 {
    stuck_bodies_are_cut_off_and_panics_are_tool_errors(&["--worker-threads", "2"]);
}

fn stuck_bodies_are_cut_off_and_panics_are_tool_errors(flags: &[&str]) {
    let http = HttpServer::start(&[&["--deadline", "1"], flags].concat());
    let server = &http.caller;
    let stuck: Vec<_> = (0..MISBEHAVING)
        .map(|i| {
            let server = server.clone();
            std::thread::spawn(move || server.call(json!(i), "stuck", json!({})))
        })
        .collect();
    for t in stuck {
        let reply = t.join().unwrap();
        assert_eq!(text_of(&reply), ("tool 'stuck' did not return within 1s and was abandoned", true));
    }
    for i in 0..MISBEHAVING {
        let reply = server.call(json!(i), "boom", json!({}));
        assert_eq!(text_of(&reply), ("tool 'boom' failed: panicked: the sync body gave up", true));
        let reply = server.call(json!(100 + i), "fast", json!({"text": "after"}));
        assert_eq!(text_of(&reply), ("after", false));
    }
}

/// Where a short sync body runs over HTTP: on a runtime of one worker, on a sync worker (the
/// one worker must not block); on `--http`'s default runtime, one worker per core, in place
/// on a worker when there are two or more cores; on a runtime of 2 workers, in place on the
/// worker that polls the call, unless the one seat is taken (by a body that sleeps), when it
/// goes to a sync worker.
#[test]
fn over_http_a_short_sync_body_runs_in_place_on_a_runtime_worker_while_a_seat_is_free() {
    let http = HttpServer::start(&["--worker-threads", "1"]);
    let reply = http.caller.call(json!(1), "whereabouts", json!({}));
    assert_eq!(text_of(&reply), ("toolwire-sync", false), "{reply}");
    drop(http);

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let http = HttpServer::start(&[]);
    let reply = http.caller.call(json!(1), "whereabouts", json!({}));
    let expected = if cores >= 2 { "tokio-rt-worker" } else { "toolwire-sync" };
    assert_eq!(text_of(&reply), (expected, false), "{cores} cores: {reply}");
    drop(http);

    let http = HttpServer::start(&["--worker-threads", "2"]);
    let server = http.caller.clone();
    for i in 0..3 {
        let reply = server.call(json!(i), "whereabouts", json!({}));
        assert_eq!(text_of(&reply), ("tokio-rt-worker", false), "{reply}");
    }
    let sleeper = std::thread::spawn(move || server.call(json!("slow"), "sleepy", json!({})));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let reply = http.caller.call(json!(10), "whereabouts", json!({}));
    assert_eq!(text_of(&reply), ("toolwire-sync", false), "the seat is taken: {reply}");
    assert_eq!(text_of(&sleeper.join().unwrap()), ("slept 2 s", false));
    let reply = http.caller.call(json!(11), "whereabouts", json!({}));
    assert_eq!(text_of(&reply), ("tokio-rt-worker", false), "the seat is free again: {reply}");
}

/// A sync body in place on a runtime worker that reports progress, then sleeps: each report
/// reaches the client as it is made, not when the body returns (they are sent from the
/// relief watcher, since a task woken on the blocked worker would wait for it).
#[test]
fn over_http_on_2_runtime_workers_a_sync_bodys_progress_arrives_as_it_is_reported() {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let http = HttpServer::start(&["--worker-threads", "2"]);
    let Caller { addr, auth } = http.caller.clone();
    let mut h = mcp_headers(addr);
    h.push(("Authorization".into(), auth));
    for (k, v) in
        [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "reporting")]
    {
        h.push((k.into(), v.into()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "reporting", "arguments": {},
        "_meta": {"progressToken": "p", "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let started = Instant::now();
    let mut stream = toolwire_tests::http::open(addr, "POST", "/mcp", &h, &body.to_string());
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let (mut raw, mut seen, mut arrivals) = (Vec::new(), 0, Vec::new());
    let mut buf = [0u8; 4096];
    while arrivals.len() < 3 {
        let n = stream.read(&mut buf).expect("the answer streams in");
        assert!(n > 0, "the stream ended early: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buf[..n]);
        let events = toolwire_tests::http::sse_events_in(&raw);
        for (_, data) in &events[seen..] {
            arrivals.push((started.elapsed(), parse(data)));
        }
        seen = events.len();
    }
    let methods: Vec<_> = arrivals.iter().map(|(_, m)| m["method"].as_str().unwrap_or("(answer)")).collect();
    assert_eq!(methods, ["notifications/progress", "notifications/progress", "(answer)"], "{arrivals:?}");
    assert_eq!(text_of(&arrivals[2].1), ("reported", false));
    let at: Vec<_> = arrivals.iter().map(|(t, _)| t.as_millis()).collect();
    assert!(at[0] < 400, "the first report arrived {at:?} ms after the call, not at once");
    assert!((400..900).contains(&at[1]), "the second report arrived at {at:?} ms, not at about 500");
    assert!(at[2] >= 900, "{at:?}");
}
