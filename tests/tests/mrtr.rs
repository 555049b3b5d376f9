//! Multi round-trip requests (2026-07-28 `input_required`), the server's half, proven with
//! real clients and with every way a retry can be wrong:
//!
//! - the Python SDK 2.3.0 client (`tests/peers/clients/py_talk_client.py --mode
//!   2026-07-28`), whose `Client` drives the rounds itself through its
//!   `elicitation_callback`, `sampling_callback` and `list_roots_callback`, against the
//!   `talk-back` example server as a stdio child and over loopback streamable HTTP: the same
//!   tool bodies `talk_back.rs` proves in a legacy session give the same answers, and
//!   `log_level` gets their logs;
//! - `resources/read` asks in rounds as `tools/call` and `prompts/get` do (the conformance
//!   suite covers `prompts/get`), its state bound to the URI;
//! - the TypeScript SDK v2 client (`tests/peers/clients/ts_v2_mrtr.mjs`) over HTTP: its
//!   `callTool` follows the rounds with its elicitation and sampling handlers;
//! - bad retries, on the wire of an in-process session, each with its exact text: a forged,
//!   a tampered, an expired, a cross-tool, a cross-argument `requestState`; a state from
//!   another server, and one from a replica sharing the key (accepted); too many rounds; a
//!   client without the capability; a tool that requires one (-32021); an answer that is not
//!   an object, or does not fit the form;
//! - stateless legacy HTTP, where no answer could ever reach the call: the ask is refused up
//!   front instead of timing out.

mod peer_support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use peer_support::peer;
use serde_json::{Value, json};
use toolwire::context::AskError;
use toolwire::protocol::{ClientCapability, Outbound};
use toolwire::server::Sink;
use toolwire::spec::SpecOptions;
use toolwire::{
    Context, Schema, Server, ServerOptions, Tool, ToolInfo, ToolOutput, serve_registry, tool, tools,
};
use toolwire_tests::example_server::example_binary;

fn talk_back() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| example_binary("talk-back"))
}

/// One peer run at a time: each starts an interpreter and a server on a 2-core machine.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Run `command` to completion (killed after two minutes) and return its stdout.
fn run(mut command: Command) -> String {
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
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{command:?} failed:\n{stdout}\n{stderr}");
    stdout
}

/// The Python driver's JSON lines, by case.
fn cases(command: Command) -> BTreeMap<String, Value> {
    run(command)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .map(|v| (v["case"].as_str().expect("a case name").to_owned(), v))
        .collect()
}

fn py_driver() -> Command {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/py_talk_client.py"));
    command.args(["--mode", "2026-07-28"]);
    command
}

fn over_stdio(driver_args: &[&str]) -> BTreeMap<String, Value> {
    let mut command = py_driver();
    command.arg("--stdio").args(driver_args).arg("--").arg(talk_back());
    cases(command)
}

/// The talking tools over loopback streamable HTTP with a bearer token, and `command`
/// pointed at them (the token in `TOOLWIRE_TEST_BEARER`, the URL as given by `url_args`).
fn over_http<T>(
    url_args: impl Fn(&str) -> Vec<String>,
    mut command: Command,
    read: impl Fn(Command) -> T,
) -> T {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let _entered = runtime.enter();
    let registry = toolwire_examples::talk_tools::registry().expect("unique names");
    let options = ServerOptions::new("toolwire-talk-back", "0.1.0");
    let mut spec = serve_registry(Server::new(registry, options), SpecOptions::http()).expect("serve");
    spec.start().expect("start");
    let header = spec.auth_headers().remove("Authorization").expect("bearer auth is on");
    let token = header.strip_prefix("Bearer ").expect("a bearer header").to_owned();
    command.args(url_args(spec.url().unwrap())).env("TOOLWIRE_TEST_BEARER", token);
    let out = read(command);
    drop(spec);
    out
}

fn text(cases: &BTreeMap<String, Value>, case: &str) -> (String, bool) {
    let c = cases.get(case).unwrap_or_else(|| panic!("no case {case} in {cases:#?}"));
    (c["text"].as_str().unwrap_or_else(|| panic!("{case}: {c}")).to_owned(), c["is_error"] == true)
}

/// What `talk_back.rs` asserts of the same tools in a legacy session, here in rounds.
fn check_the_same_answers_as_legacy(cases: &BTreeMap<String, Value>) {
    // Logs: opted into per request with `logLevel: info`, so info and above arrive.
    let log = |step: u64, level: &str| json!({"level": level, "logger": "chatty", "data": {"step": step, "level": level}});
    assert_eq!(text(cases, "log_default"), ("logged".to_owned(), false));
    assert_eq!(cases["logs"]["default"], json!([log(2, "info"), log(3, "warning"), log(4, "error")]));

    assert_eq!(text(cases, "elicit"), ("contact Ada (age 36)".to_owned(), false));
    assert_eq!(
        text(cases, "elicit_url"),
        ("the user agreed to visit https://example.com/login".to_owned(), false)
    );
    // The nested form is refused before anything is asked: two input requests reached the
    // client, each once (the retry is answered from `inputResponses`, not asked again).
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

    assert_eq!(
        text(cases, "sample"),
        ("py-test-model said \"echo: Name a colour.\" (stop: endTurn)".to_owned(), false)
    );
    assert_eq!(cases["sample_seen"]["requests"][0]["systemPrompt"], "Be brief.");

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
    // No session, so no cache: each call asks for the roots in its own round.
    assert_eq!(cases["roots_asked"]["count"], 2);
}

#[test]
fn python_sdk_on_2026_07_28_over_stdio_answers_each_round_and_gets_the_legacy_answers() {
    check_the_same_answers_as_legacy(&over_stdio(&[]));
}

#[test]
fn python_sdk_on_2026_07_28_over_http_answers_each_round_and_gets_the_legacy_answers() {
    let args = |url: &str| {
        vec!["--url".to_owned(), url.to_owned(), "--token-env".into(), "TOOLWIRE_TEST_BEARER".into()]
    };
    check_the_same_answers_as_legacy(&over_http(args, py_driver(), cases));
}

#[test]
fn python_sdk_on_2026_07_28_a_declined_a_mistyped_and_an_undeclared_ask_read_as_in_legacy() {
    let declined = over_stdio(&["--only", "elicit", "--answers", "decline"]);
    assert_eq!(
        text(&declined, "elicit"),
        ("tool 'ask_contact' failed: the user declined to answer: Who should we contact?".to_owned(), true)
    );
    let bad = over_stdio(&["--only", "elicit", "--answers", "bad"]);
    assert_eq!(
        text(&bad, "elicit"),
        (
            "tool 'ask_contact' failed: the client's answer to elicitation/create does not match what was asked: invalid type: integer `7`, expected a string".to_owned(),
            true
        )
    );
    let bare = over_stdio(&["--only", "sample", "--bare"]);
    assert_eq!(
        text(&bare, "sample"),
        (
            "tool 'ask_model' failed: the client did not declare the `sampling` capability, so it cannot be asked for sampling/createMessage; nothing was sent".to_owned(),
            true
        )
    );
    assert_eq!(bare["sample_seen"]["requests"], json!([]));
}

#[test]
fn typescript_sdk_v2_over_http_follows_the_rounds_with_its_handlers() {
    let mut command = Command::new(peer("TOOLWIRE_NODE22"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/ts_v2_mrtr.mjs"));
    command.env("TOOLWIRE_NODE_MODULES", peer("TOOLWIRE_NODE_MODULES"));
    let args = |url: &str| vec![url.to_owned()];
    let out = over_http(args, command, run);
    let lines: BTreeMap<String, Value> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .map(|v| (v["case"].as_str().expect("a case").to_owned(), v))
        .collect();
    assert_eq!(lines["elicit"]["text"], "contact Grace (age 85)", "{out}");
    assert_eq!(lines["elicit"]["isError"], false);
    assert_eq!(lines["sample"]["text"], "ts-model said \"echo: Name a colour.\" (stop: endTurn)", "{out}");
    assert_eq!(lines["seen"]["elicit"], 1);
    assert_eq!(lines["seen"]["sample"], 1);
}

// ---------------------------------------------------------------------------------------
// Bad retries, on the wire of an in-process session.

/// The lines a session sent, in order.
struct Wire {
    session: toolwire::server::Session,
    sink: Arc<dyn Sink>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Wire {
    fn new(server: &Server) -> Wire {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink: Arc<dyn Sink> = {
            let seen = seen.clone();
            Arc::new(move |m: Outbound| seen.lock().unwrap().push(m.into_string()))
        };
        Wire { session: server.session(), sink, seen }
    }

    /// Send `method` with `params` (a modern request, `_meta` added with `caps`) and wait for
    /// its response.
    async fn call(&self, id: u64, method: &str, mut params: Value, caps: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.session.handle(&line, &self.sink);
        for _ in 0..500 {
            let found = self.seen.lock().unwrap().iter().find_map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (v["id"] == id).then_some(v)
            });
            if let Some(v) = found {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no answer to {id}: {:?}", self.seen.lock().unwrap());
    }

    async fn tool(&self, id: u64, name: &str, extra: Value, caps: Value) -> Value {
        let mut params = json!({"name": name, "arguments": {"question": "Who?"}});
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        self.call(id, "tools/call", params, caps).await
    }
}

fn elicits() -> Value {
    json!({"elicitation": {}})
}

fn accept(name: &str) -> Value {
    json!({"action": "accept", "content": {"name": name}})
}

/// The talking tools, plus `insistent` (asks one more question every round) and `counted`
/// (acts before it asks: it runs once per round).
fn server(options: ServerOptions) -> Server {
    let mut registry =
        tools![toolwire_examples::talk_tools::ask_contact, insistent, counted].expect("unique names");
    registry.register(NeedsSampling::new()).expect("unique names");
    Server::new(registry, options)
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    #[allow(dead_code)]
    name: String,
}

/// Ask `question` again and again, each time under a new key.
#[tool(read_only)]
async fn insistent(ctx: &Context, question: String) -> Result<String, AskError> {
    for i in 1..=100 {
        let _: Answer = ctx.elicit_as(&format!("q{i}"), &question).await?;
    }
    Ok("done".to_owned())
}

static COUNTED_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Count a run, then ask `question`: in rounds, the count goes up once per round.
#[tool(read_only)]
async fn counted(ctx: &Context, question: String) -> Result<String, AskError> {
    let run = COUNTED_RUNS.fetch_add(1, Ordering::SeqCst) + 1;
    let a: Answer = ctx.elicit_as("who", &question).await?;
    Ok(format!("{} on run {run}", a.name))
}

/// A tool that cannot work without the client's model.
struct NeedsSampling(ToolInfo);

impl NeedsSampling {
    fn new() -> NeedsSampling {
        NeedsSampling(
            ToolInfo::new("needs_sampling", "Needs the client's model.", Schema::empty_object())
                .requires_client(ClientCapability::Sampling)
                .requires_client(ClientCapability::Roots),
        )
    }
}

impl Tool for NeedsSampling {
    fn info(&self) -> &ToolInfo {
        &self.0
    }

    fn call<'a>(
        &'a self,
        _arguments: &'a serde_json::value::RawValue,
        _ctx: &'a Context,
    ) -> toolwire::tool::ToolFuture<'a> {
        Box::pin(async { Ok(ToolOutput::text("ran")) })
    }
}

fn options() -> ServerOptions {
    ServerOptions::new("mrtr", "0.1.0")
}

/// The first round's `requestState`.
async fn first_state(wire: &Wire, id: u64, tool: &str) -> String {
    let first = wire.tool(id, tool, json!({}), elicits()).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    first["result"]["requestState"].as_str().expect("a state").to_owned()
}

fn error(answer: &Value) -> (i64, String) {
    let e = &answer["error"];
    (
        e["code"].as_i64().unwrap_or_else(|| panic!("not an error: {answer}")),
        e["message"].as_str().unwrap().to_owned(),
    )
}

const FORGED: &str = "invalid params: requestState failed its integrity check (it was altered, or issued by another server); retry without requestState and inputResponses to start over";

#[tokio::test]
async fn forged_tampered_and_foreign_states_are_refused_and_a_replica_with_the_key_accepts() {
    let key = b"replicas share this 32-byte key!";
    let one = Wire::new(&server(options().request_state_key(key)));
    let state = first_state(&one, 1, "ask_contact").await;
    let retry = |state: &str| json!({"inputResponses": {"ask-1": accept("Ada")}, "requestState": state});

    for bad in [format!("{state}-TAMPERED"), "eyJ0b29sIjoieCJ9.c2ln".to_owned(), "x".to_owned()] {
        assert_eq!(
            error(&one.tool(2, "ask_contact", retry(&bad), elicits()).await),
            (-32602, FORGED.to_owned())
        );
    }
    // Another process (its own random key) did not issue it.
    let other = Wire::new(&server(options()));
    assert_eq!(
        error(&other.tool(3, "ask_contact", retry(&state), elicits()).await),
        (-32602, FORGED.to_owned())
    );
    // A replica given the same key takes the retry: nothing was kept on the first server.
    let replica = Wire::new(&server(options().request_state_key(key)));
    let done = replica.tool(4, "ask_contact", retry(&state), elicits()).await;
    assert_eq!(done["result"]["content"][0]["text"], "contact Ada (age not given)", "{done}");
    assert_eq!(
        error(
            &replica
                .tool(
                    5,
                    "ask_contact",
                    json!({"inputResponses": {"ask-1": accept("Ada")}, "requestState": 7}),
                    elicits()
                )
                .await
        ),
        (-32602, "invalid params: requestState must be a string, got a number".to_owned())
    );
}

#[tokio::test]
async fn a_state_replayed_on_another_tool_or_with_other_arguments_is_refused() {
    let wire = Wire::new(&server(options()));
    let state = first_state(&wire, 1, "ask_contact").await;
    let replay = json!({"inputResponses": {"who": accept("Ada")}, "requestState": state});
    assert_eq!(
        error(&wire.tool(2, "counted", replay, elicits()).await),
        (
            -32602,
            "invalid params: requestState was issued for tool 'ask_contact', not for tool 'counted'"
                .to_owned()
        )
    );
    let other_args = json!({
        "name": "ask_contact",
        "arguments": {"question": "Whom else?"},
        "inputResponses": {"ask-1": accept("Ada")},
        "requestState": state,
    });
    assert_eq!(
        error(&wire.call(3, "tools/call", other_args, elicits()).await),
        (-32602, "invalid params: requestState was issued for a call of tool 'ask_contact' with other arguments; retry with the arguments of the first call, or without requestState to start over".to_owned())
    );
}

#[tokio::test]
async fn an_expired_state_is_refused_saying_when() {
    let wire = Wire::new(&server(options().request_state_ttl(Duration::from_secs(1))));
    let state = first_state(&wire, 1, "ask_contact").await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (code, message) = error(
        &wire
            .tool(
                2,
                "ask_contact",
                json!({"inputResponses": {"ask-1": accept("Ada")}, "requestState": state}),
                elicits(),
            )
            .await,
    );
    assert_eq!(code, -32602);
    // Issued at second s with expiry s+1, refused at s+2 or s+3 (the clock ticks on).
    let ok = [1, 2].map(|ago| {
        format!("invalid params: requestState expired {ago}s ago (states last 1s); retry without requestState and inputResponses to start over")
    });
    assert!(ok.contains(&message), "{message}");
}

#[tokio::test]
async fn a_body_still_asking_after_the_round_limit_is_stopped_with_an_error() {
    let wire = Wire::new(&server(options().max_input_rounds(2)));
    let mut extra = json!({});
    for (id, key) in [(1, "q1"), (2, "q2")] {
        let r = wire.tool(id, "insistent", extra, elicits()).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        assert_eq!(r["result"]["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), [key]);
        extra = json!({"inputResponses": {key: accept("x")}, "requestState": r["result"]["requestState"]});
    }
    let stopped = wire.tool(3, "insistent", extra, elicits()).await;
    assert_eq!(stopped["result"]["isError"], true, "{stopped}");
    assert_eq!(
        stopped["result"]["content"][0]["text"],
        "tool 'insistent' failed: still asked the client for input after 2 rounds of input_required, the most this server allows (ServerOptions::max_input_rounds); it was stopped"
    );
}

/// A prompt that asks again and again, each time under a new key.
#[toolwire::prompt]
async fn insistent_prompt(ctx: &Context) -> Result<String, AskError> {
    for i in 1..=100 {
        let _: Answer = ctx.elicit_as(&format!("q{i}"), "Who is asking?").await?;
    }
    Ok("done".to_owned())
}

/// A resource that asks again and again, each time under a new key.
#[toolwire::resource(uri = "test://insistent", name = "insistent", mime_type = "text/plain")]
async fn insistent_resource(ctx: &Context) -> Result<String, AskError> {
    for i in 1..=100 {
        let _: Answer = ctx.elicit_as(&format!("q{i}"), "Who is reading?").await?;
    }
    Ok("done".to_owned())
}

/// The round limit is the request path's, for every capability: a prompt or a resource still
/// asking past it is stopped, and reads as that capability's failure (a JSON-RPC error).
#[tokio::test]
async fn a_prompt_or_a_resource_still_asking_after_the_round_limit_is_stopped_with_its_error() {
    let server = Server::builder(options().max_input_rounds(1))
        .prompts(toolwire::prompts![insistent_prompt].expect("one prompt"))
        .resources(toolwire::resources![insistent_resource].expect("one resource"))
        .build();
    let wire = Wire::new(&server);
    let limit = "still asked the client for input after 1 rounds of input_required, the most this server allows (ServerOptions::max_input_rounds); it was stopped";
    let cases = [
        (
            "prompts/get",
            json!({"name": "insistent_prompt"}),
            format!("prompt 'insistent_prompt' failed: {limit}"),
        ),
        (
            "resources/read",
            json!({"uri": "test://insistent"}),
            format!("resource 'test://insistent' could not be read: {limit}"),
        ),
    ];
    for (n, (method, params, expected)) in (0..).zip(cases) {
        let first = wire.call(10 * n + 1, method, params.clone(), elicits()).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let mut retry = params;
        retry["inputResponses"] = json!({"q1": accept("x")});
        retry["requestState"] = first["result"]["requestState"].clone();
        let stopped = wire.call(10 * n + 2, method, retry, elicits()).await;
        assert_eq!(error(&stopped), (-32603, expected), "{method}");
    }
}

#[tokio::test]
async fn missing_answers_are_asked_again_and_answers_not_asked_for_are_ignored() {
    let wire = Wire::new(&server(options()));
    // No state, only a stray answer: the question is asked (again).
    let r =
        wire.tool(1, "ask_contact", json!({"inputResponses": {"wrong_key": accept("x")}}), elicits()).await;
    assert_eq!(r["result"]["resultType"], "input_required");
    assert!(r["result"]["inputRequests"]["ask-1"].is_object(), "{r}");
    // The right answer beside strays (even malformed ones) completes.
    let extra = json!({"inputResponses": {"ask-1": accept("Ada"), "stray": 12, "other": {"x": 1}}});
    let done = wire.tool(2, "ask_contact", extra, elicits()).await;
    assert_eq!(done["result"]["content"][0]["text"], "contact Ada (age not given)", "{done}");
    assert_eq!(done["result"]["resultType"], "complete");
}

#[tokio::test]
async fn malformed_answers_are_protocol_errors_and_a_misfit_one_is_the_tools_error() {
    let wire = Wire::new(&server(options()));
    assert_eq!(
        error(&wire.tool(1, "ask_contact", json!({"inputResponses": {"ask-1": 12345}}), elicits()).await),
        (-32602, "invalid params: inputResponses['ask-1'] must be an object (the client's result for the elicitation/create it answers), got a number".to_owned())
    );
    assert_eq!(
        error(&wire.tool(2, "ask_contact", json!({"inputResponses": null}), elicits()).await),
        (
            -32602,
            "invalid params: inputResponses must be an object of the client's results by key, got null"
                .to_owned()
        )
    );
    let misfit = json!({"inputResponses": {"ask-1": {"action": "accept", "content": {"name": 7}}}});
    let r = wire.tool(3, "ask_contact", misfit, elicits()).await;
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(
        r["result"]["content"][0]["text"],
        "tool 'ask_contact' failed: the client's answer to elicitation/create does not match what was asked: invalid type: integer `7`, expected a string"
    );
}

#[tokio::test]
async fn a_client_without_the_capability_is_asked_nothing_and_a_required_one_is_minus_32021() {
    let wire = Wire::new(&server(options()));
    let r = wire.tool(1, "ask_contact", json!({}), json!({"sampling": {}})).await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(
        r["result"]["content"][0]["text"],
        "tool 'ask_contact' failed: the client did not declare the `elicitation` capability, so it cannot be asked for elicitation/create; nothing was sent"
    );
    let r = wire.tool(2, "needs_sampling", json!({}), json!({"roots": {}})).await;
    assert_eq!(
        r["error"],
        json!({"code": -32021, "message": "tool 'needs_sampling' needs the client's `sampling` capability, and this client did not declare it; the tool was not run", "data": {"requiredCapabilities": {"sampling": {}}}})
    );
    let r = wire.tool(3, "needs_sampling", json!({}), json!({})).await;
    assert_eq!(
        r["error"],
        json!({"code": -32021, "message": "tool 'needs_sampling' needs the client's `sampling` and `roots` capabilities, and this client did not declare them; the tool was not run", "data": {"requiredCapabilities": {"sampling": {}, "roots": {}}}})
    );
    let r = wire.tool(4, "needs_sampling", json!({}), json!({"sampling": {}, "roots": {}})).await;
    assert_eq!(r["result"]["content"][0]["text"], "ran");
}

#[tokio::test]
async fn the_body_runs_again_from_the_start_each_round() {
    let wire = Wire::new(&server(options()));
    let before = COUNTED_RUNS.load(Ordering::SeqCst);
    let state = first_state(&wire, 1, "counted").await;
    let done = wire
        .tool(
            2,
            "counted",
            json!({"inputResponses": {"who": accept("Ada")}, "requestState": state}),
            elicits(),
        )
        .await;
    assert_eq!(done["result"]["content"][0]["text"], format!("Ada on run {}", before + 2));
    assert_eq!(COUNTED_RUNS.load(Ordering::SeqCst), before + 2);
}

/// A resource that asks who is reading before it answers.
#[toolwire::resource(uri = "test://greeting", name = "greeting", mime_type = "text/plain")]
async fn greeting(ctx: &Context) -> Result<String, AskError> {
    let a: Answer = ctx.elicit_as("reader", "Who is reading?").await?;
    Ok(format!("hello, {}", a.name))
}

#[tokio::test]
async fn a_resource_read_asks_in_rounds_too_and_its_state_is_bound_to_the_uri() {
    let registry = toolwire::resources![greeting].expect("one resource");
    let server =
        Server::builder(options()).tools(tools![counted].expect("one tool")).resources(registry).build();
    let wire = Wire::new(&server);
    let first = wire.call(1, "resources/read", json!({"uri": "test://greeting"}), elicits()).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(first["result"]["inputRequests"]["reader"]["params"]["message"], "Who is reading?");
    let state = first["result"]["requestState"].clone();
    let retry =
        json!({"uri": "test://greeting", "inputResponses": {"reader": accept("Ada")}, "requestState": state});
    let done = wire.call(2, "resources/read", retry, elicits()).await;
    assert_eq!(done["result"]["contents"][0]["text"], "hello, Ada", "{done}");
    assert_eq!(done["result"]["resultType"], "complete");
    // The same state on a tool call is refused, naming the resource it was issued for.
    let replay = json!({"name": "counted", "arguments": {"question": "Who?"}, "inputResponses": {"who": accept("Ada")}, "requestState": state});
    assert_eq!(
        error(&wire.call(3, "tools/call", replay, elicits()).await),
        (
            -32602,
            "invalid params: requestState was issued for resource 'test://greeting', not for tool 'counted'"
                .to_owned()
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stateless_legacy_http_refuses_an_ask_up_front_instead_of_timing_out() {
    use toolwire::http::{Auth, HttpConfig};
    use toolwire_tests::http::{mcp_headers, request};
    let registry = toolwire_examples::talk_tools::registry().expect("unique names");
    let options = ServerOptions::new("stateless", "0.1.0").client_request_timeout(Duration::from_secs(60));
    let mut spec = serve_registry(
        Server::new(registry, options),
        SpecOptions::http().http_config(HttpConfig::new(Auth::None).stateless(true)),
    )
    .expect("serve");
    spec.start().expect("start");
    let addr = spec.local_addr().unwrap();
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_contact","arguments":{"question":"Who?"}}}"#;
    let mut headers = mcp_headers(addr);
    headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    let started = std::time::Instant::now();
    let r = tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &headers, call)).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "it waited {:?}", started.elapsed());
    let answer = if r.header("content-type").is_some_and(|c| c.starts_with("text/event-stream")) {
        r.sse_events().pop().expect("an event")
    } else {
        r.json()
    };
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "tool 'ask_contact' failed: cannot ask the client for elicitation/create: this server serves HTTP statelessly (each request on a fresh session), so the client's answer would reach another session; nothing was sent",
        "{}",
        r.body
    );
}
