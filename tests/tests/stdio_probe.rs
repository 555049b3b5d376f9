//! A raw newline-JSON probe of the example server as a real child process: every negative
//! case of the stdio contract, each with the exact reply it must get, or the absence of one.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use toolwire_tests::example_server::{StdioChild, example_server};

const TOOLS: &str =
    "['add', 'create_ticket', 'deploy', 'echo', 'fail', 'panic', 'progress', 'run_check', 'slow']";
const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"probe","version":"1.0"}}"#;
const SERVER_META: &str =
    r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"toolwire-example","version":"0.1.0"}}"#;
const QUIET: Duration = Duration::from_millis(300);

fn call(id: &str, tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
    )
}

fn text(id: &str, text: &str, is_error: bool) -> String {
    let text = serde_json::to_string(text).unwrap();
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{text}}}],"isError":{is_error}}}}}"#
    )
}

fn legacy() -> StdioChild {
    let mut child = StdioChild::example(&[]);
    child.initialize("2025-11-25");
    child
}

#[test]
fn initialize_negotiates_and_names_the_users_server() {
    for (asked, served) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("1999-01-01", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let mut child = StdioChild::example(&[]);
        assert_eq!(
            child.initialize(asked),
            format!(
                r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{served}","capabilities":{{"tools":{{"listChanged":false}},"logging":{{}}}},"serverInfo":{{"name":"toolwire-example","version":"0.1.0"}}}}}}"#
            ),
            "asked for {asked}"
        );
        // notifications/initialized got no answer: the next line answers the ping.
        assert_eq!(
            child.ask(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#),
            r#"{"jsonrpc":"2.0","id":"p","result":{}}"#
        );
    }
}

#[test]
fn the_modern_era_discovers_and_refuses_unknown_versions() {
    let mut child = StdioChild::example(&[]);
    assert_eq!(
        child.ask(&format!(
            r#"{{"jsonrpc":"2.0","id":"discover-1","method":"server/discover","params":{{{MODERN_META}}}}}"#
        )),
        format!(
            r#"{{"jsonrpc":"2.0","id":"discover-1","result":{{{SERVER_META},"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{"listChanged":false}},"logging":{{}}}},"ttlMs":300000,"cacheScope":"public"}}}}"#
        )
    );
    assert_eq!(
        child.ask(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version '2099-01-01': this server takes 2026-07-28 in `_meta`, and 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 through `initialize`","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}"#
    );
    assert_eq!(
        child.ask(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid params: `_meta` is missing the required key io.modelcontextprotocol/clientCapabilities"}}"#
    );
    // A modern tools/call needs no handshake and carries resultType and serverInfo.
    child.send(&format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{MODERN_META}}}}}"#
    ));
    assert_eq!(
        child.recv(),
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"result":{{{SERVER_META},"resultType":"complete","content":[{{"type":"text","text":"hi"}}],"isError":false}}}}"#
        )
    );
}

#[test]
fn both_eras_are_served_by_one_process() {
    let mut child = legacy();
    child.send(&call("1", "echo", r#"{"text":"legacy"}"#));
    assert_eq!(child.recv(), text("1", "legacy", false));
    child.send(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"modern"}},{MODERN_META}}}}}"#
    ));
    let modern: Value = serde_json::from_str(&child.recv()).unwrap();
    assert_eq!(modern["result"]["resultType"], "complete");
    assert_eq!(modern["result"]["content"][0]["text"], "modern");
    child.send(&call("3", "echo", r#"{"text":"legacy again"}"#));
    assert_eq!(child.recv(), text("3", "legacy again", false));
}

#[derive(Deserialize)]
struct ListLine<'a> {
    #[serde(borrow)]
    result: ListResult<'a>,
}

#[derive(Deserialize)]
struct ListResult<'a> {
    #[serde(borrow)]
    tools: Vec<WireTool<'a>>,
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct WireTool<'a> {
    name: String,
    #[serde(rename = "inputSchema", borrow)]
    input_schema: &'a RawValue,
}

#[test]
fn advertised_schemas_are_the_golden_bytes_on_the_raw_line() {
    let mut child = legacy();
    let line = child.ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let list: ListLine<'_> = serde_json::from_str(&line).unwrap();
    assert_eq!(list.result.next_cursor, None);
    assert_eq!(list.result.tools.len(), 9);
    for tool in &list.result.tools {
        toolwire_tests::assert_golden(format!("example/{}.json", tool.name), tool.input_schema.get());
    }
}

#[test]
fn listing_pages_follow_the_cursor_and_a_bad_cursor_is_refused() {
    let mut child = StdioChild::example(&["--page-size", "4"]);
    child.initialize("2025-11-25");
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => format!(r#"{{"cursor":{}}}"#, serde_json::to_string(c).unwrap()),
            None => "{}".to_owned(),
        };
        let line = child
            .ask(&format!(r#"{{"jsonrpc":"2.0","id":{pages},"method":"tools/list","params":{params}}}"#));
        let list: ListLine<'_> = serde_json::from_str(&line).unwrap();
        names.extend(list.result.tools.iter().map(|t| t.name.clone()));
        pages += 1;
        match list.result.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(
        names,
        ["add", "create_ticket", "deploy", "echo", "fail", "panic", "progress", "run_check", "slow"]
    );
    assert_eq!(
        child.ask(r#"{"jsonrpc":"2.0","id":"c","method":"tools/list","params":{"cursor":"page-2"}}"#),
        r#"{"jsonrpc":"2.0","id":"c","error":{"code":-32602,"message":"invalid cursor \"page-2\": it is not one this server issued; list again without a cursor"}}"#
    );
}

#[test]
fn tool_calls_follow_the_error_contract_and_the_session_survives() {
    let mut child = legacy();
    let cases = [
        (call("1", "echo", r#"{"text":"hi"}"#), text("1", "hi", false)),
        (
            call("2", "add", r#"{"a":2,"b":3}"#),
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"sum\":5}"}],"structuredContent":{"sum":5},"isError":false}}"#.to_owned(),
        ),
        (
            call("3", "run_check", r#"{"name":"lint","verbose":true}"#),
            text("3", "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']", true),
        ),
        (
            call("4", "run_check", "{}"),
            text("4", "tool 'run_check' call rejected: missing required argument(s) ['name']. Accepted arguments: ['name', 'strict']", true),
        ),
        (
            call("5", "run_check", r#"{"name":"lint","strict":"yes"}"#),
            text("5", "tool 'run_check' call rejected: argument 'strict' must be a boolean, got a string", true),
        ),
        (call("6", "run_check", r#"{"name":"lint"}"#), text("6", "lint:lax:ok", false)),
        (call("7", "run_check", r#"{"name":"lint","strict":true}"#), text("7", "lint:strict:ok", false)),
        (call("8", "fail", r#"{"message":"the database is on fire"}"#), text("8", "tool 'fail' failed: the database is on fire", true)),
        (call("9", "panic", r#"{"message":"boom"}"#), text("9", "tool 'panic' failed: panicked: boom", true)),
        (call("10", "echo", r#"{"text":"still here"}"#), text("10", "still here", false)),
        (
            call("11", "create_ticket", r#"{"ticket":{"title":"t","priority":"high","labels":["a"]}}"#),
            text("11", "created ticket 't' (high, 1 labels)", false),
        ),
        (call("12", "deploy", r#"{"target":"staging"}"#), text("12", "deployed to staging", false)),
        (
            call("\"u\"", "nope", "{}"),
            format!(r#"{{"jsonrpc":"2.0","id":"u","error":{{"code":-32602,"message":"unknown tool 'nope'; available tools: {TOOLS}"}}}}"#),
        ),
        (call("13", "echo", r#"{"text":"after"}"#), text("13", "after", false)),
    ];
    for (sent, want) in cases {
        assert_eq!(child.ask(&sent), want, "for {sent}");
    }
}

#[test]
fn progress_needs_a_token_increases_and_precedes_the_response() {
    let mut child = legacy();
    child.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":42}}}"#);
    for step in 1..=3 {
        assert_eq!(
            child.recv(),
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":42,"progress":{step},"total":3,"message":"step {step} of 3"}}}}"#
            )
        );
    }
    assert_eq!(child.recv(), text("1", "done 3 steps", false));
    // No token, no progress: the first line is the response.
    assert_eq!(child.ask(&call("2", "progress", r#"{"steps":3}"#)), text("2", "done 3 steps", false));
}

#[test]
fn a_slow_call_holds_up_neither_ping_nor_other_calls() {
    let mut child = legacy();
    let start = Instant::now();
    child.send(&call("1", "slow", r#"{"ms":800}"#));
    child.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    child.send(&call("3", "echo", r#"{"text":"quick"}"#));
    assert_eq!(child.recv(), r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    assert_eq!(child.recv(), text("3", "quick", false));
    assert!(
        start.elapsed() < Duration::from_millis(600),
        "ping and echo waited for slow: {:?}",
        start.elapsed()
    );
    assert_eq!(child.recv(), text("1", "slept 800ms", false));
}

#[test]
fn cancellation_drops_the_call_and_races_are_ignored() {
    let mut child = legacy();
    // Cancelled while running: no response, ever.
    child.send(&call("1", "slow", r#"{"ms":600}"#));
    child.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"changed my mind"}}"#);
    // The request and its cancellation in one write: still no response.
    child.send_raw(
        format!(
            "{}\n{}\n",
            call("2", "slow", r#"{"ms":600}"#),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#
        )
        .as_bytes(),
    );
    // Unknown, malformed and late cancellations are ignored.
    child.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never-sent"}}"#);
    child.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"no id"}}"#);
    assert_eq!(child.ask(&call("3", "echo", r#"{"text":"done"}"#)), text("3", "done", false));
    child.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#);
    // A cancellation for an id before that id's request arrives does not stop the request.
    child.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#);
    assert_eq!(child.ask(&call("4", "echo", r#"{"text":"runs"}"#)), text("4", "runs", false));
    child.expect_silence(Duration::from_millis(900));
}

#[test]
fn bad_messages_get_exact_errors_and_notifications_get_none() {
    let mut child = legacy();
    let cases = [
        (
            "{\"jsonrpc\":",
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: EOF while parsing a value at column 11"}}"#,
        ),
        (
            "not json",
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: expected ident at column 2"}}"#,
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not part of MCP 2025-11-25; send each message on its own"}}"#,
        ),
        (
            "\"ping\"",
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: a message must be a JSON object, got a string"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the request id must not be null"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the request id must be a string or an integer, got a number with a fraction or an exponent"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the request id must be a string or an integer, got a boolean"}}"#,
        ),
        (
            r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: `jsonrpc` must be \"2.0\", got \"1.0\""}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"m","method":"prompts/list"}"#,
            r#"{"jsonrpc":"2.0","id":"m","error":{"code":-32601,"message":"method 'prompts/list' not found"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"invalid params for 'tools/call': missing field `name`"}}"#,
        ),
    ];
    for (sent, want) in cases {
        assert_eq!(child.ask(sent), want, "for {sent}");
    }
    // Notifications, known or not, blank lines and stray responses are never answered.
    for quiet in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/made_up","params":{"x":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":77,"result":{}}"#,
        "",
        "   ",
    ] {
        child.send(quiet);
    }
    child.expect_silence(QUIET);
    child.send_raw(b"\xff\xfe{}\n");
    assert_eq!(
        child.recv(),
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: the message is not UTF-8 (invalid utf-8 sequence of 1 bytes from index 0)"}}"#
    );
    // A CRLF line is one message.
    child.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\r\n");
    assert_eq!(child.recv(), r#"{"jsonrpc":"2.0","id":5,"result":{}}"#);
}

#[test]
fn batches_are_accepted_only_in_a_2025_03_26_session() {
    let mut child = StdioChild::example(&[]);
    assert_eq!(
        child.ask("[]"),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: JSON-RPC batches are only allowed in a session that negotiated 2025-03-26; send each message on its own"}}"#
    );
    child.initialize("2025-03-26");
    assert_eq!(
        child.ask(&format!(
            r#"[{{"jsonrpc":"2.0","id":1,"method":"ping"}},{}]"#,
            call("2", "echo", r#"{"text":"b"}"#)
        )),
        format!(r#"[{{"jsonrpc":"2.0","id":1,"result":{{}}}},{}]"#, text("2", "b", false))
    );
}

#[test]
fn an_oversized_line_is_refused_and_the_server_serves_on() {
    let mut child = StdioChild::example(&["--max-message-bytes", "1024"]);
    child.initialize("2025-11-25");
    let big = call("1", "echo", &format!(r#"{{"text":"{}"}}"#, "x".repeat(100_000)));
    assert_eq!(
        child.ask(&big),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the message is over the 1024-byte limit and was discarded"}}"#
    );
    assert_eq!(child.ask(&call("2", "echo", r#"{"text":"small"}"#)), text("2", "small", false));
}

#[test]
fn the_deadline_flag_abandons_a_slow_call() {
    let mut child = StdioChild::example(&["--deadline", "0.05"]);
    child.initialize("2025-11-25");
    assert_eq!(
        child.ask(&call("1", "slow", r#"{"ms":2000}"#)),
        text("1", "tool 'slow' did not return within 0.05s and was abandoned", true)
    );
}

#[test]
fn stdin_closing_mid_call_still_answers_then_exits_zero() {
    let mut child = legacy();
    child.send(&call("1", "slow", r#"{"ms":300}"#));
    child.close_stdin();
    assert_eq!(child.recv(), text("1", "slept 300ms", false));
    let status = child.wait_exit(Duration::from_secs(5)).expect("the server exits once stdin closes");
    assert_eq!(status.code(), Some(0));
    assert_eq!(child.recv_within(Duration::from_millis(100)), None);
}

#[test]
fn stdin_closing_with_a_hung_call_exits_zero_after_the_grace_period() {
    let mut child = legacy();
    child.send(&call("1", "slow", r#"{"ms":60000}"#));
    std::thread::sleep(Duration::from_millis(50));
    let start = Instant::now();
    child.close_stdin();
    let status = child.wait_exit(Duration::from_secs(10)).expect("the server exits once stdin closes");
    assert_eq!(status.code(), Some(0));
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    assert_eq!(child.recv_within(Duration::from_millis(100)), None, "the dropped call never answers");
}

#[test]
fn help_lists_the_flags_and_an_unknown_flag_exits_2() {
    let out = std::process::Command::new(toolwire_tests::example_server::example_server())
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.starts_with("toolwire-example 0.1.0: an MCP server."), "{help}");
    for flag in [
        "--stdio",
        "--deadline <SECONDS>",
        "--max-in-flight <N>",
        "--max-message-bytes <N>",
        "--page-size <N>",
        "--help",
        "--version",
    ] {
        assert!(help.contains(flag), "--help does not list {flag}:\n{help}");
    }
    let out = std::process::Command::new(toolwire_tests::example_server::example_server())
        .arg("--frobnicate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "a usage error writes nothing to stdout");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: unknown flag '--frobnicate'\n\nRun with --help to see the flags that exist.\n"
    );
}

#[test]
fn stdout_carries_nothing_but_json_rpc() {
    let mut child = legacy();
    child.send(&call("1", "panic", r#"{"message":"loud"}"#));
    child.send(&call("2", "echo", r#"{"text":"x"}"#));
    child.send(&call("3", "fail", r#"{"message":"y"}"#));
    let mut lines = vec![child.recv(), child.recv(), child.recv()];
    child.close_stdin();
    assert!(child.wait_exit(Duration::from_secs(5)).is_some());
    while let Some(l) = child.recv_within(Duration::from_millis(50)) {
        lines.push(l);
    }
    assert_eq!(lines.len(), 3, "{lines:?}");
    for line in &lines {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON on stdout: {line}: {e}"));
        assert_eq!(v["jsonrpc"], "2.0");
    }
    // The panic's report went to stderr, and so did the logs.
    assert!(child.stderr().contains("loud"), "stderr: {}", child.stderr());
}

/// A client that writes every request before it reads any answer fills the server's stdout
/// pipe long before it is done writing: the server keeps reading stdin all the same (its
/// runtime never blocks on stdout), and once the client reads, every answer is there, whole,
/// one per line.
#[test]
fn a_client_that_reads_only_after_writing_everything_gets_every_answer_whole() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    let mut child = Command::new(example_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the example server");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    // About 900 KB each way: many times what a pipe holds.
    let (count, payload) = (400, "y".repeat(2000));
    let requests = {
        let payload = payload.clone();
        std::thread::spawn(move || {
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"probe","version":"1.0"}}}}}}"#
            )?;
            writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#)?;
            for id in 1..=count {
                writeln!(stdin, "{}", call(&id.to_string(), "echo", &format!(r#"{{"text":"{payload}"}}"#)))?;
            }
            stdin.flush()
            // stdin closes here: the server answers what is in flight, then exits.
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !requests.is_finished() {
        assert!(Instant::now() < deadline, "the server stopped reading stdin while its stdout was full");
        std::thread::sleep(Duration::from_millis(10));
    }
    requests.join().unwrap().expect("write the requests");

    let mut lines = BufReader::new(stdout).lines();
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 0);
    let mut ids = Vec::new();
    for line in lines {
        let line = line.unwrap();
        let v: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("a broken line: {e}: {line:.200}"));
        assert_eq!(v["result"]["content"][0]["text"], payload.as_str());
        ids.push(v["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (1..=count).collect::<Vec<u64>>());
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_client_that_closes_stdin_and_never_reads_does_not_keep_the_server_alive() {
    use std::io::{Read as _, Write as _};
    use std::process::{Command, Stdio};
    let mut child = Command::new(toolwire_tests::example_server::example_server())
        .args(["--log-level", "error"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Far more answers than a pipe holds (64 KiB), and nobody reads them.
    let mut input = String::from(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    input.push('\n');
    for i in 1..=5000 {
        input.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"));
    }
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let _stdout = child.stdout.take().unwrap(); // held open, never read
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "the server is still waiting for its reader");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "stdout took nothing for 1s after stdin closed: the client stopped reading, so the answers still queued were not delivered"
        ),
        "{stderr}"
    );
}
