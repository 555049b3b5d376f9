//! Real clients over loopback streamable HTTP, against the example server's tools served
//! in-process by `serve_registry()` with a generated bearer token:
//!
//! - Python `mcp` 2.3.0 (`tests/peers/clients/py_http_client.py`) in legacy mode (the
//!   `initialize` handshake at 2025-11-25, with `Mcp-Session-Id`) and in auto mode (settles
//!   on 2026-07-28: `server/discover`, no session), checking tools/list and the golden
//!   schemas, good calls, the exact error texts, progress, JSON and SSE answers, and a 401
//!   without the token;
//! - Python `mcp` 1.22.0 (`tests/peers/clients/py1_http_client.py`), a real 2025-06-18 client;
//! - the MCP Inspector CLI 2.12.0 (`--transport http`, `--header "Authorization: Bearer …"`),
//!   in the legacy and the modern era: tools/list, a call, a tool error (exit 5), an unknown
//!   tool (exit 5), a missing token (exit 3, `auth_required`);
//! - the TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.4.0,
//!   `tests/peers/clients/ts_v2_http_client.mjs`) in legacy and auto (2026-07-28) mode;
//! - rmcp 3.11.0's streamable HTTP client: list and call with the bearer header.

mod peer_support;

use std::process::Command;
use std::time::{Duration, Instant};

use peer_support::{TempDir, peer, peer_command, run_bounded};
use serde_json::Value;
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::spec::SpecOptions;
use toolwire::{McpServerSpec, serve_registry};

/// The example server's tools on 127.0.0.1, with a bearer token.
fn example_spec() -> McpServerSpec {
    let registry = toolwire_examples::example_tools::registry().expect("the example tools have unique names");
    let mut spec = serve_registry(
        Server::new(registry, ServerOptions::new("toolwire-example", "0.1.0")),
        SpecOptions::http(),
    )
    .expect("serve");
    spec.start().expect("start");
    spec
}

fn token(spec: &McpServerSpec) -> String {
    let header = spec.auth_headers().remove("Authorization").expect("bearer auth is on");
    header.strip_prefix("Bearer ").expect("a bearer header").to_owned()
}

fn python_driver(spec: &McpServerSpec, mode: &str) {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command
        .arg(toolwire_tests::tests_dir().join("peers/clients/py_http_client.py"))
        .args(["--mode", mode, "--url", spec.url().unwrap(), "--token-env", "TOOLWIRE_TEST_BEARER", "-v"])
        .env("TOOLWIRE_TEST_BEARER", token(spec));
    let out = run_bounded(command, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("py_http_client --mode {mode}:\n{stdout}");
    assert!(out.status.success(), "py_http_client --mode {mode} failed:\n{stdout}\n{stderr}");
    // The driver's own verdict line, and the checks that matter here by name.
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    for check in [
        "connect",
        "protocol_version",
        "wire_handshake",
        "tools_list",
        "echo",
        "run_check_unexpected_arg",
        "fail",
        "panic",
        "progress",
        "unknown_tool",
        "slow_concurrent",
        "wire_bearer_on_every_request",
        "wire_json_and_sse",
        "wire_era_headers",
        "no_token_refused",
    ] {
        assert!(stdout.lines().any(|l| l == format!("ok {check}")), "no `ok {check}` in:\n{stdout}");
    }
}

/// Python `mcp` 1.22.0: a real 2025-06-18 client over HTTP.
#[tokio::test(flavor = "multi_thread")]
async fn python_mcp_1_22_0_at_2025_06_18_over_http() {
    let spec = example_spec();
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP1"));
    command
        .arg(toolwire_tests::tests_dir().join("peers/clients/py1_http_client.py"))
        .args(["--url", spec.url().unwrap(), "--token-env", "TOOLWIRE_TEST_BEARER"])
        .env("TOOLWIRE_TEST_BEARER", token(&spec));
    let out = tokio::task::block_in_place(|| run_bounded(command, Duration::from_secs(120)));
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("py1_http_client:\n{stdout}");
    assert!(
        out.status.success(),
        "py1_http_client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for check in [
        "protocol_version",
        "tools_list",
        "run_check_wrong_type",
        "panic_session_survives",
        "progress",
        "unknown_tool",
        "slow_concurrent",
        "wire_session_headers",
        "wire_json_and_sse",
        "wire_bearer_on_every_request",
        "no_token_refused",
    ] {
        assert!(stdout.lines().any(|l| l == format!("ok {check}")), "no `ok {check}` in:\n{stdout}");
    }
    assert!(stdout.lines().last().is_some_and(|l| l.ends_with(" passed, 0 failed")), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn python_mcp_2_3_0_legacy_over_http() {
    let spec = example_spec();
    tokio::task::block_in_place(|| python_driver(&spec, "legacy"));
    assert!(spec.calls_seen() >= 13, "calls_seen {}", spec.calls_seen());
}

#[tokio::test(flavor = "multi_thread")]
async fn python_mcp_2_3_0_modern_over_http() {
    let spec = example_spec();
    tokio::task::block_in_place(|| python_driver(&spec, "auto"));
    assert!(spec.calls_seen() >= 13, "calls_seen {}", spec.calls_seen());
}

fn ts_v2_driver(spec: &McpServerSpec, mode: &str) {
    let mut command = Command::new(peer("TOOLWIRE_NODE22"));
    command
        .arg(toolwire_tests::tests_dir().join("peers/clients/ts_v2_http_client.mjs"))
        .args(["--mode", mode, "--url", spec.url().unwrap(), "--token-env", "TOOLWIRE_TEST_BEARER"])
        .env("TOOLWIRE_TEST_BEARER", token(spec))
        .env("TOOLWIRE_NODE_MODULES", peer("TOOLWIRE_NODE_MODULES"));
    let out = run_bounded(command, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("ts_v2_http_client --mode {mode}:\n{stdout}");
    assert!(
        out.status.success(),
        "ts_v2_http_client --mode {mode} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for check in [
        "connect",
        "protocol_version",
        "tools_list",
        "echo",
        "fail",
        "panic",
        "progress",
        "unknown_tool",
        "no_token_refused",
    ] {
        assert!(stdout.lines().any(|l| l == format!("ok {check}")), "no `ok {check}` in:\n{stdout}");
    }
    assert!(stdout.lines().last().is_some_and(|l| l.ends_with(" passed, 0 failed")), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_client_2_4_0_legacy_and_modern_over_http() {
    let spec = example_spec();
    tokio::task::block_in_place(|| {
        ts_v2_driver(&spec, "legacy");
        ts_v2_driver(&spec, "auto");
    });
    assert_eq!(spec.calls_seen(), 2 * 12, "10 contract calls, progress and the unknown tool, per era");
}

/// One Inspector CLI run against the spec: `--transport http`, the bearer header, the era,
/// JSON out; its catalog and state go to a private HOME. Returns (exit code, stdout, stderr).
fn inspector(spec: &McpServerSpec, era: &str, bearer: Option<&str>, args: &[&str]) -> (i32, String, String) {
    let home = TempDir::new("inspector-home");
    let mut command = peer_command("TOOLWIRE_INSPECTOR");
    command
        .args(["--cli", spec.url().unwrap(), "--transport", "http", "--protocol-era", era])
        .args(["--format", "json", "-q", "--connect-timeout", "20000"])
        .env("HOME", &home.0)
        .env("MCP_CATALOG_PATH", home.0.join("mcp.json"));
    if let Some(t) = bearer {
        command.args(["--header", &format!("Authorization: Bearer {t}")]);
    }
    command.args(args);
    let out = run_bounded(command, Duration::from_secs(90));
    let code = out.status.code().unwrap_or(-1);
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The Inspector's JSON envelope: `{"result": …}` on stdout, `{"error": …}` on stderr.
fn json_of(text: &str) -> Value {
    serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("Inspector output is not JSON ({e}):\n{text}"))
}

fn inspector_session(era: &str) {
    let spec = example_spec();
    let t = token(&spec);
    let (code, out, err) = inspector(&spec, era, Some(&t), &["--method", "tools/list"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let names: Vec<String> = json_of(&out)["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tools array in {out}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        ["add", "create_ticket", "deploy", "echo", "fail", "panic", "progress", "run_check", "slow"]
    );

    let call = ["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi"];
    let (code, out, err) = inspector(&spec, era, Some(&t), &call);
    assert_eq!(code, 0, "{out}\n{err}");
    let result = json_of(&out)["result"].clone();
    assert_eq!(result["content"], serde_json::json!([{"type": "text", "text": "hi"}]), "{out}");
    assert_eq!(result["isError"], false, "{out}");
    // Which era it spoke: modern results identify the server in `_meta`, legacy ones do not.
    let server_name = &result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"];
    match era {
        "modern" => assert_eq!(server_name, "toolwire-example", "{out}"),
        _ => assert!(result.get("_meta").is_none(), "{out}"),
    }

    // A tool error is exit 5: the result on stdout, the error envelope on stderr.
    let call =
        ["--method", "tools/call", "--tool-name", "fail", "--tool-arg", "message=the database is on fire"];
    let (code, out, err) = inspector(&spec, era, Some(&t), &call);
    assert_eq!(code, 5, "{out}\n{err}");
    let result = json_of(&out)["result"].clone();
    assert_eq!(
        result["content"],
        serde_json::json!([{"type": "text", "text": "tool 'fail' failed: the database is on fire"}]),
        "{out}"
    );
    assert_eq!(result["isError"], true, "{out}");
    assert_eq!(json_of(&err)["error"]["code"], "tool_is_error");

    // An unknown tool is exit 5 as well; the Inspector finds it missing from tools/list and
    // never sends the call.
    let (code, out, err) =
        inspector(&spec, era, Some(&t), &["--method", "tools/call", "--tool-name", "nope"]);
    assert_eq!(code, 5, "{out}\n{err}");
    assert_eq!(json_of(&err)["error"]["code"], "tool_not_found");

    // Without the token it cannot connect: the 401's `WWW-Authenticate: Bearer` sends it to
    // OAuth, which needs a terminal: exit 3, `auth_required`, and nothing listed.
    let (code, out, err) = inspector(&spec, era, None, &["--method", "tools/list"]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert_eq!(json_of(&err)["error"]["code"], "auth_required");
    assert!(!out.contains("\"tools\""), "listed tools without a token:\n{out}");
    assert_eq!(spec.calls_seen(), 2, "echo and fail reached the server, nothing else did");
}

#[tokio::test(flavor = "multi_thread")]
async fn inspector_cli_over_http_legacy() {
    tokio::task::block_in_place(|| inspector_session("legacy"));
}

#[tokio::test(flavor = "multi_thread")]
async fn inspector_cli_over_http_modern() {
    tokio::task::block_in_place(|| inspector_session("modern"));
}

#[tokio::test(flavor = "multi_thread")]
async fn rmcp_streamable_http_client_with_bearer() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let spec = example_spec();
    let config = StreamableHttpClientTransportConfig::with_uri(spec.url().unwrap()).auth_header(token(&spec));
    let transport = StreamableHttpClientTransport::from_config(config);
    let start = Instant::now();
    let client = ().serve(transport).await.expect("rmcp connects with the bearer header");
    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("toolwire-example"));

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["add", "create_ticket", "deploy", "echo", "fail", "panic", "progress", "run_check", "slow"]
    );

    let args = serde_json::json!({"text": "over http"}).as_object().unwrap().clone();
    let result =
        client.call_tool(CallToolRequestParams::new("echo").with_arguments(args)).await.expect("tools/call");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "over http");

    let args = serde_json::json!({"name": "lint", "verbose": true}).as_object().unwrap().clone();
    let result = client
        .call_tool(CallToolRequestParams::new("run_check").with_arguments(args))
        .await
        .expect("tools/call");
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        serde_json::to_value(&result.content).unwrap()[0]["text"],
        "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"
    );
    client.cancel().await.expect("close the rmcp client");
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(spec.calls_seen(), 2);
}
