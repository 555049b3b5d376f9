//! Sampling with tools (2025-11-25, SEP-1577), the server's half: a `#[tool]` samples with a
//! registered tool offered (`tools`, `toolChoice`), reads the model's `tool_use`, runs the
//! tool the model chose, samples again with the assistant turn and a `tool_result` turn, and
//! returns the final text. Proven against real clients over loopback streamable HTTP:
//!
//! - the TypeScript SDK v1 client (`@modelcontextprotocol/sdk` 1.32.2, a legacy session) and
//!   v2 client (`@modelcontextprotocol/client` 2.4.0 on 2026-07-28, the asks arriving as
//!   `input_required` rounds), driven by `tests/peers/clients/ts_sampling_tools.mjs`; the
//!   test checks what each client's handler received;
//! - toolwire's own client with `ClientOptions::sampling_with_tools`, in both eras;
//! - a client that declared `sampling` without `sampling.tools`: the tool is refused with
//!   the text below and the client's handler never runs.
//!
//! Needs the peers: `bash tests/peers/setup.sh`.

mod peer_support;

use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use peer_support::peer;
use serde_json::{Value, json};
use toolwire::client::{CallOptions, Client, ClientOptions, CreateMessageResult, EraMode};
use toolwire::context::{AskError, SamplingRequest, SamplingToolResult, ToolChoice};
use toolwire::spec::{McpServerSpec, SpecOptions};
use toolwire::{Context, Server, ServerOptions, serve_registry, tool, tools};

/// The temperature in a city.
#[tool(read_only)]
fn get_temperature(city: String) -> String {
    format!("21C in {city}")
}

/// Ask the client's model how warm a city is, offering it `get_temperature`.
#[tool(read_only)]
async fn weather_agent(ctx: &Context, city: String) -> Result<String, AskError> {
    let offered = tools![get_temperature].expect("one tool");
    let info = offered.get("get_temperature").expect("registered").info();
    let mut request = SamplingRequest::new(200)
        .system_prompt("Use the tools.")
        .user(format!("How warm is {city}?"))
        .offer(info)
        .tool_choice(ToolChoice::Auto);
    for round in 0..3 {
        let answer = ctx.sample(request.clone()).await?;
        let calls = answer.tool_uses();
        if calls.is_empty() {
            let stop = answer.stop_reason.as_deref().unwrap_or("none");
            return Ok(format!(
                "final after {round} tool round(s): {} ({stop})",
                answer.text().unwrap_or("-")
            ));
        }
        let results: Vec<SamplingToolResult> = calls
            .iter()
            .map(|call| match (call.name.as_str(), call.input["city"].as_str()) {
                ("get_temperature", Some(city)) => {
                    SamplingToolResult::text(&call.id, get_temperature(city.into()))
                }
                (name, _) => SamplingToolResult::error(&call.id, format!("no tool {name} with a city")),
            })
            .collect();
        request = request.assistant_turn(&answer).tool_results(results);
    }
    Ok("the model kept calling tools".to_owned())
}

const REFUSED: &str = "tool 'weather_agent' failed: the client did not declare the `sampling.tools` capability, so it cannot be asked for sampling/createMessage with tools; nothing was sent";

/// The tools over loopback streamable HTTP with a bearer token, on a runtime of their own.
fn serve() -> (tokio::runtime::Runtime, McpServerSpec) {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let spec = {
        let _entered = runtime.enter();
        let registry = tools![weather_agent, get_temperature].expect("unique names");
        let server = Server::new(registry, ServerOptions::new("toolwire-sampling-tools", "0.1.0"));
        let mut spec = serve_registry(server, SpecOptions::http()).expect("serve");
        spec.start().expect("start");
        spec
    };
    (runtime, spec)
}

/// Run the TypeScript driver with `sdk` (`v1`, `v2`) against `spec`; its one JSON line.
fn typescript(spec: &McpServerSpec, sdk: &str, extra: &[&str]) -> Value {
    let token = spec.bearer_token().expect("bearer auth is on").to_owned();
    let mut command = Command::new(peer("TOOLWIRE_NODE22"));
    command
        .arg(toolwire_tests::tests_dir().join("peers/clients/ts_sampling_tools.mjs"))
        .args([sdk, spec.url().expect("a url")])
        .args(extra)
        .env("TOOLWIRE_NODE_MODULES", peer("TOOLWIRE_NODE_MODULES"))
        .env("TOOLWIRE_TEST_BEARER", token)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
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
    assert!(out.status.success(), "{command:?} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// What every client's model must have been sent: the tool offered with its schema and
/// `toolChoice` in the first request; in the second, the assistant turn as the model said it
/// and a user turn of one `tool_result` carrying the tool's output.
fn check_requests(requests: &Value, first_answer: &Value) {
    let requests = requests.as_array().expect("requests");
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let first = &requests[0];
    assert_eq!(first["tools"].as_array().map(Vec::len), Some(1), "{first}");
    assert_eq!(first["tools"][0]["name"], "get_temperature");
    assert_eq!(first["tools"][0]["description"], "The temperature in a city.");
    assert_eq!(first["tools"][0]["inputSchema"]["properties"]["city"]["type"], "string");
    assert_eq!(first["tools"][0]["inputSchema"]["required"], json!(["city"]));
    assert_eq!(first["toolChoice"], json!({"mode": "auto"}));
    assert_eq!(
        first["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "How warm is Paris?"}}])
    );
    let second = &requests[1];
    assert_eq!(second["tools"], first["tools"]);
    let messages = second["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(messages[1], json!({"role": "assistant", "content": first_answer}));
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [{"type": "tool_result", "toolUseId": "call-1",
            "content": [{"type": "text", "text": "21C in Paris"}]}]})
    );
}

fn ts_first_answer() -> Value {
    json!([{"type": "text", "text": "Let me check."},
           {"type": "tool_use", "id": "call-1", "name": "get_temperature", "input": {"city": "Paris"}}])
}

#[test]
fn typescript_sdk_v1_in_a_legacy_session_is_offered_the_tool_and_sent_its_result() {
    let (_runtime, spec) = serve();
    let out = typescript(&spec, "v1", &[]);
    assert_eq!(out["version"], "2025-11-25", "{out}");
    assert_eq!(
        out["result"],
        json!({"text": "final after 1 tool round(s): It is 21C in Paris. (endTurn)", "isError": false})
    );
    check_requests(&out["requests"], &ts_first_answer());
}

#[test]
fn typescript_sdk_v2_on_2026_07_28_is_offered_the_tool_in_rounds_and_sent_its_result() {
    let (_runtime, spec) = serve();
    let out = typescript(&spec, "v2", &[]);
    assert_eq!(out["version"], "2026-07-28", "{out}");
    assert_eq!(
        out["result"],
        json!({"text": "final after 1 tool round(s): It is 21C in Paris. (endTurn)", "isError": false})
    );
    check_requests(&out["requests"], &ts_first_answer());
}

#[test]
fn a_typescript_client_without_sampling_tools_is_refused_and_never_asked() {
    let (_runtime, spec) = serve();
    for sdk in ["v1", "v2"] {
        let out = typescript(&spec, sdk, &["--no-tools"]);
        assert_eq!(out["result"], json!({"text": REFUSED, "isError": true}), "{sdk}: {out}");
        assert_eq!(out["requests"], json!([]), "{sdk}");
    }
}

/// Toolwire's own client, its model played by `on_sample`; what the handler saw, and the
/// tool's result.
async fn toolwire_client(spec: &McpServerSpec, era: EraMode, with_tools: bool) -> (Value, Vec<Value>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = Arc::clone(&seen);
    let mut options = ClientOptions::new("agent").era(era).request_timeout(Duration::from_secs(10));
    if with_tools {
        options = options.sampling_with_tools();
    }
    let options = options.on_sample(move |request| {
        let seen = Arc::clone(&s);
        async move {
            seen.lock().unwrap().push(serde_json::to_value(&request.params).unwrap());
            let last = request.messages.last().unwrap();
            Ok(match last.tool_results().first() {
                None => CreateMessageResult::tool_use(
                    "tw-model",
                    "call-1",
                    &request.tools[0].name,
                    json!({"city": "Paris"}),
                ),
                Some(r) => CreateMessageResult::text(
                    "tw-model",
                    format!("It is {}.", r.content[0]["text"].as_str().unwrap()),
                ),
            })
        }
    });
    let client = Client::connect_spec_with(spec, options).await.expect("connect");
    let result =
        client.call_tool("weather_agent", json!({"city": "Paris"}), CallOptions::new()).await.expect("call");
    client.close().await;
    let seen = seen.lock().unwrap().clone();
    (json!({"text": result.text(), "isError": result.is_error}), seen)
}

#[test]
fn toolwire_client_with_sampling_with_tools_in_both_eras_and_refused_without() {
    let (runtime, spec) = serve();
    let tool_use =
        json!({"type": "tool_use", "id": "call-1", "name": "get_temperature", "input": {"city": "Paris"}});
    for era in [EraMode::Legacy, EraMode::Auto] {
        let (result, seen) = runtime.block_on(toolwire_client(&spec, era, true));
        assert_eq!(
            result,
            json!({"text": "final after 1 tool round(s): It is 21C in Paris. (endTurn)", "isError": false}),
            "{era:?}"
        );
        check_requests(&Value::Array(seen), &tool_use);
        let (result, seen) = runtime.block_on(toolwire_client(&spec, era, false));
        assert_eq!(result, json!({"text": REFUSED, "isError": true}), "{era:?}");
        assert!(seen.is_empty(), "{era:?}: {seen:?}");
    }
}
