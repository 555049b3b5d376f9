//! Tools that talk back to their client (logging, elicitation, sampling, roots), legacy era,
//! against real peers in real processes:
//!
//! - the Python SDK 2.3.0 client (`tests/peers/clients/py_talk_client.py`) with
//!   `logging_callback`, `elicitation_callback`, `sampling_callback` and
//!   `list_roots_callback`, driving the `talk-back` example server as a stdio child, and the
//!   same tools served in-process over loopback streamable HTTP;
//! - what goes wrong, with the exact text the tool reports: a declined, a dismissed, a
//!   mistyped and a refused answer, no answer at all (the timeout), a client without the
//!   capabilities, a form type that nests a struct;
//! - on the wire (a raw newline-JSON client against the stdio child): a request that times
//!   out is withdrawn with `notifications/cancelled`, a cancelled call withdraws its request
//!   and never answers, and nothing is sent to a client that lacks the capability.

mod peer_support;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use peer_support::peer;
use serde_json::{Value, json};
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::spec::SpecOptions;
use toolwire::{McpServerSpec, serve_registry};
use toolwire_tests::example_server::{StdioChild, example_binary};

fn talk_back() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| example_binary("talk-back"))
}

fn driver() -> PathBuf {
    toolwire_tests::tests_dir().join("peers/clients/py_talk_client.py")
}

/// One Python run at a time: each starts an interpreter and a server on a 2-core machine.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Run `command` to completion (killed after two minutes) and return its JSON lines by case.
fn cases(mut command: Command) -> std::collections::BTreeMap<String, Value> {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let child = child.unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out: Output = match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out.expect("wait for the driver"),
        Err(_) => {
            // Kill only the child we started, by its id.
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("{command:?} ran over two minutes");
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{command:?} failed:\n{stdout}\n{stderr}");
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}\n{stderr}")))
        .map(|v| (v["case"].as_str().expect("a case name").to_owned(), v))
        .collect()
}

/// The driver against the `talk-back` stdio child, with `driver_args` and `server_args`.
fn over_stdio(driver_args: &[&str], server_args: &[&str]) -> std::collections::BTreeMap<String, Value> {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command.arg(driver()).arg("--stdio").args(driver_args).arg("--").arg(talk_back()).args(server_args);
    cases(command)
}

/// The talking tools over loopback streamable HTTP, with a bearer token.
fn http_spec() -> McpServerSpec {
    let registry = toolwire_examples::talk_tools::registry().expect("unique names");
    let options = ServerOptions::new("toolwire-talk-back", "0.1.0");
    let mut spec = serve_registry(Server::new(registry, options), SpecOptions::http()).expect("serve");
    spec.start().expect("start");
    spec
}

fn over_http(driver_args: &[&str]) -> std::collections::BTreeMap<String, Value> {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let _entered = runtime.enter();
    let spec = http_spec();
    let header = spec.auth_headers().remove("Authorization").expect("bearer auth is on");
    let token = header.strip_prefix("Bearer ").expect("a bearer header").to_owned();
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command
        .arg(driver())
        .args(["--url", spec.url().unwrap(), "--token-env", "TOOLWIRE_TEST_BEARER"])
        .args(driver_args)
        .env("TOOLWIRE_TEST_BEARER", token);
    let out = cases(command);
    drop(spec);
    out
}

fn text(cases: &std::collections::BTreeMap<String, Value>, case: &str) -> (String, bool) {
    let c = cases.get(case).unwrap_or_else(|| panic!("no case {case} in {cases:#?}"));
    (c["text"].as_str().unwrap_or_else(|| panic!("{case}: {c}")).to_owned(), c["is_error"] == true)
}

const NESTED: &str = "tool 'ask_nested' failed: cannot elicit `toolwire_examples::talk_tools::Nested`: field `contact` is an object (a nested struct or a map); an elicitation form is a flat object of strings, numbers, integers, booleans and enums";

/// Everything the Python client's callbacks see and answer, over one transport.
fn check_every_callback(cases: &std::collections::BTreeMap<String, Value>) {
    // Logging: `info` until the client sets a level, then only what is at least `warning`.
    let log = |step: u64, level: &str| json!({"level": level, "logger": "chatty", "data": {"step": step, "level": level}});
    assert_eq!(text(cases, "log_default"), ("logged".to_owned(), false));
    assert_eq!(cases["logs"]["default"], json!([log(2, "info"), log(3, "warning"), log(4, "error")]));
    assert_eq!(cases["logs"]["warning"], json!([log(3, "warning"), log(4, "error")]));

    // Elicitation: a form made from the Rust type, the URL mode, and a nested type refused
    // before anything was sent (two requests reached the client, not three).
    assert_eq!(text(cases, "elicit"), ("contact Ada (age 36)".to_owned(), false));
    assert_eq!(text(cases, "elicit_nested"), (NESTED.to_owned(), true));
    assert_eq!(
        text(cases, "elicit_url"),
        ("the user agreed to visit https://example.com/login".to_owned(), false)
    );
    let seen = cases["elicit_seen"]["requests"].as_array().expect("requests");
    assert_eq!(seen.len(), 2, "{seen:#?}");
    assert_eq!(seen[0]["message"], "Who should we contact?");
    assert_eq!(
        seen[0]["requestedSchema"],
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Your name."},
                "age": {"type": "integer", "minimum": 0, "maximum": 4294967295u64, "description": "Your age, if you want to say."}
            },
            "required": ["name"]
        })
    );
    assert_eq!(seen[1]["mode"], "url");
    assert_eq!(seen[1]["url"], "https://example.com/login");
    assert_eq!(seen[1]["message"], "Please sign in");
    assert!(seen[1]["elicitationId"].as_str().is_some_and(|id| id.starts_with("toolwire-")), "{}", seen[1]);

    // Sampling.
    assert_eq!(
        text(cases, "sample"),
        ("py-test-model said \"echo: Name a colour.\" (stop: endTurn)".to_owned(), false)
    );
    let sampled = &cases["sample_seen"]["requests"][0];
    assert_eq!(sampled["maxTokens"], 50);
    assert_eq!(sampled["systemPrompt"], "Be brief.");
    assert_eq!(
        sampled["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Name a colour."}}])
    );

    // Roots: asked once, cached, asked again after `notifications/roots/list_changed`.
    let roots = "roots: file:///tmp, file:///work/my%20project";
    assert_eq!(
        text(cases, "roots"),
        (
            format!(
                "{roots}; /work/my project/src/lib.rs within a root: true; notes.txt resolves to /tmp/notes.txt"
            ),
            false
        )
    );
    assert_eq!(
        text(cases, "roots_cached"),
        (format!("{roots}; /etc/passwd within a root: false; ../x resolves to nothing"), false)
    );
    assert_eq!(cases["roots_asked"]["count"], 1);
    assert_eq!(cases["roots_asked_after_change"]["count"], 2);
    assert!(!text(cases, "roots_after_change").1);
}

#[test]
fn python_sdk_over_stdio_gets_logs_and_answers_elicitation_sampling_and_roots() {
    check_every_callback(&over_stdio(&[], &[]));
}

#[test]
fn python_sdk_over_http_gets_logs_and_answers_elicitation_sampling_and_roots() {
    check_every_callback(&over_http(&[]));
}

#[test]
fn each_way_an_answer_goes_wrong_has_its_own_error() {
    let contact = "tool 'ask_contact' failed: ";
    for (answers, want) in [
        ("decline", "the user declined to answer: Who should we contact?".to_owned()),
        ("cancel", "the user dismissed the question without answering: Who should we contact?".to_owned()),
        (
            "bad",
            "the client's answer to elicitation/create does not match what was asked: invalid type: integer `7`, expected a string".to_owned(),
        ),
        ("error", "the client refused elicitation/create: error -32000: no user here".to_owned()),
        ("hang", "the client did not answer elicitation/create within 0.5s".to_owned()),
    ] {
        let cases = over_stdio(&["--only", "elicit", "--answers", answers], &["--ask-timeout-ms", "500"]);
        assert_eq!(text(&cases, "elicit"), (format!("{contact}{want}"), true), "answers: {answers}");
    }
}

#[test]
fn a_client_without_the_capabilities_is_never_asked() {
    let cases = over_stdio(&["--bare"], &[]);
    let not_declared = |tool: &str, capability: &str, what: &str| {
        (
            format!(
                "tool '{tool}' failed: the client did not declare the `{capability}` capability, so it cannot be asked for {what}; nothing was sent"
            ),
            true,
        )
    };
    assert_eq!(text(&cases, "elicit"), not_declared("ask_contact", "elicitation", "elicitation/create"));
    assert_eq!(text(&cases, "elicit_url"), not_declared("ask_url", "elicitation.url", "elicitation/create"));
    assert_eq!(text(&cases, "sample"), not_declared("ask_model", "sampling", "sampling/createMessage"));
    assert_eq!(text(&cases, "roots"), not_declared("show_roots", "roots", "roots/list"));
    // A client that did not set up logging still gets the log messages (logging is the
    // server's capability); the SDK drops them without a callback, so nothing to count here.
    assert_eq!(text(&cases, "log_default"), ("logged".to_owned(), false));
}

// --- on the wire -------------------------------------------------------------------------

const CALL_CONTACT: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_contact","arguments":{"question":"Who?"}}}"#;

fn probe(capabilities: &str, server_args: &[&str]) -> StdioChild {
    let mut child = StdioChild::spawn(Command::new(talk_back()).args(server_args));
    child.ask(&format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"clientInfo":{{"name":"probe","version":"1.0"}}}}}}"#
    ));
    child.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    child
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

#[test]
fn an_unanswered_request_is_withdrawn_and_a_late_answer_ignored() {
    let mut child = probe(r#"{"elicitation":{}}"#, &["--ask-timeout-ms", "300"]);
    child.send(CALL_CONTACT);
    let request = parse(&child.recv());
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["id"], "toolwire-1");
    assert_eq!(request["params"]["message"], "Who?");
    assert_eq!(
        parse(&child.recv()),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "toolwire-1", "reason": "the server stopped waiting for elicitation/create"}})
    );
    let result = parse(&child.recv());
    assert_eq!(result["id"], 5);
    assert_eq!(result["result"]["isError"], true);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "tool 'ask_contact' failed: the client did not answer elicitation/create within 0.3s"
    );
    // The answer that comes too late finds no one waiting, and gets nothing back.
    child
        .send(r#"{"jsonrpc":"2.0","id":"toolwire-1","result":{"action":"accept","content":{"name":"Ada"}}}"#);
    child.expect_silence(Duration::from_millis(300));
    assert_eq!(parse(&child.ask(r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#))["id"], 6);
}

#[test]
fn a_cancelled_call_withdraws_its_request_and_never_answers() {
    let mut child = probe(r#"{"elicitation":{}}"#, &[]);
    child.send(CALL_CONTACT);
    let request = parse(&child.recv());
    assert_eq!(request["method"], "elicitation/create");
    child.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user gave up"}}"#);
    assert_eq!(
        parse(&child.recv()),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request["id"], "reason": "the server stopped waiting for elicitation/create"}})
    );
    child.expect_silence(Duration::from_millis(300));
}

#[test]
fn an_answer_in_time_completes_the_call_with_it() {
    let mut child = probe(r#"{"elicitation":{"form":{}}}"#, &[]);
    child.send(CALL_CONTACT);
    let request = parse(&child.recv());
    let id = request["id"].to_string();
    child.send(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"action":"accept","content":{{"name":"Grace"}}}}}}"#
    ));
    let result = parse(&child.recv());
    assert_eq!(result["id"], 5);
    assert_eq!(result["result"]["content"][0]["text"], "contact Grace (age not given)");
}

#[test]
fn nothing_is_sent_to_a_client_without_the_capability() {
    let mut child = probe("{}", &[]);
    child.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask_model","arguments":{"prompt":"hi"}}}"#);
    // The very next line is the call's result: no request went out before it.
    let result = parse(&child.recv());
    assert_eq!(result["id"], 7);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "tool 'ask_model' failed: the client did not declare the `sampling` capability, so it cannot be asked for sampling/createMessage; nothing was sent"
    );
}

#[test]
fn set_level_filters_and_refuses_an_unknown_level_with_the_accepted_names() {
    let mut child = probe("{}", &[]);
    let refused = parse(
        &child.ask(r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}"#),
    );
    assert_eq!(
        refused["error"],
        json!({"code": -32602, "message": "invalid params for 'logging/setLevel': unknown level \"loud\"; expected one of debug, info, notice, warning, error, critical, alert, emergency"})
    );
    assert_eq!(
        child.ask(r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}"#),
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#
    );
    child.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"chatty","arguments":{}}}"#);
    assert_eq!(
        parse(&child.recv()),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "logger": "chatty", "data": {"step": 4, "level": "error"}}})
    );
    assert_eq!(parse(&child.recv())["id"], 3);
}

/// The same tool body as the legacy cases above, in a 2026-07-28 call: its ask becomes an
/// `input_required` round (key `ask-1`, the first ask without a key of its own), and the
/// retry with the answer and the sealed state runs the body again to the same result.
#[test]
fn a_modern_call_asks_in_an_input_required_round_and_finishes_on_the_retry() {
    let mut child = StdioChild::spawn(&mut Command::new(talk_back()));
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
    let first = parse(&child.ask(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ask_contact","arguments":{{"question":"Who?"}},{meta}}}}}"#
    )));
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"],
        json!({"ask-1": {"method": "elicitation/create", "params": {"message": "Who?", "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Your name."},
                "age": {"type": "integer", "description": "Your age, if you want to say.", "minimum": 0, "maximum": 4294967295u64}
            },
            "required": ["name"]
        }}}})
    );
    let state = result["requestState"].as_str().expect("a requestState");
    let retry = parse(&child.ask(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"ask_contact","arguments":{{"question":"Who?"}},"inputResponses":{{"ask-1":{{"action":"accept","content":{{"name":"Ada"}}}}}},"requestState":"{state}",{meta}}}}}"#
    )));
    assert_eq!(retry["result"]["resultType"], "complete");
    assert_eq!(retry["result"]["content"][0]["text"], "contact Ada (age not given)");
}

#[test]
fn tracing_events_of_a_call_reach_its_client_when_the_server_forwards_them() {
    let mut child = probe("{}", &["--forward-tracing"]);
    child.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"traced","arguments":{}}}"#);
    // `debug!` is below the default level (info); `warn!` is forwarded.
    assert_eq!(
        parse(&child.recv()),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "warning", "logger": "toolwire_examples::talk_tools", "data": {"message": "found it", "step": 2, "found": true}}})
    );
    assert_eq!(parse(&child.recv())["result"]["content"][0]["text"], "traced");
    // Without the option nothing is forwarded.
    let mut child = probe("{}", &[]);
    child.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"traced","arguments":{}}}"#);
    assert_eq!(parse(&child.recv())["result"]["content"][0]["text"], "traced");
}
