//! rmcp 3.11.0, the official Rust SDK, as a client of the example server over stdio, in
//! both eras: it lists the tools, checks each schema against the golden file, makes good
//! and bad calls, and checks the exact texts and that the session survives them.

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{Value, json};
use tokio::process::Command;
use toolwire_tests::example_server::example_server;

type Client = RunningService<RoleClient, ()>;

fn transport() -> TokioChildProcess {
    let mut command = Command::new(example_server());
    command.arg("--log-level").arg("warn");
    // The `panic` tool's report goes to the server's stderr; keep it out of the test output.
    let (child, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn the example server");
    child
}

/// A tool call's outcome reduced to (isError, the one text block, structuredContent).
async fn call(
    client: &Client,
    tool: &str,
    args: Value,
) -> Result<(bool, String, Option<Value>), ServiceError> {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    let result = client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args)).await?;
    assert_eq!(result.content.len(), 1, "one content block from {tool}");
    let text = result.content[0].as_text().expect("a text block").text.clone();
    Ok((result.is_error.unwrap_or(false), text, result.structured_content))
}

async fn exercise(client: &Client) {
    let info = client.peer_info().expect("the server identified itself");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!((server.name.as_str(), server.version.as_str()), ("toolwire-example", "0.1.0"));

    let tools = client.list_all_tools().await.expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        ["add", "create_ticket", "deploy", "echo", "fail", "panic", "progress", "run_check", "slow"]
    );
    for tool in &tools {
        let golden = std::fs::read_to_string(
            toolwire_tests::tests_dir().join(format!("golden/example/{}.json", tool.name)),
        )
        .expect("golden file");
        let golden: Value = serde_json::from_str(&golden).unwrap();
        assert_eq!(Value::Object((*tool.input_schema).clone()), golden, "schema of {}", tool.name);
    }

    let ok = |text: &str| (false, text.to_owned(), None);
    let err = |text: &str| (true, text.to_owned(), None);
    assert_eq!(call(client, "echo", json!({"text": "hi"})).await.unwrap(), ok("hi"));
    assert_eq!(
        call(client, "add", json!({"a": 2, "b": 3})).await.unwrap(),
        (false, r#"{"sum":5}"#.to_owned(), Some(json!({"sum": 5})))
    );
    assert_eq!(
        call(client, "run_check", json!({"name": "lint", "verbose": true})).await.unwrap(),
        err(
            "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"
        )
    );
    assert_eq!(
        call(client, "run_check", json!({"name": "lint", "strict": "yes"})).await.unwrap(),
        err("tool 'run_check' call rejected: argument 'strict' must be a boolean, got a string")
    );
    assert_eq!(
        call(client, "run_check", json!({"name": "lint", "strict": true})).await.unwrap(),
        ok("lint:strict:ok")
    );
    assert_eq!(
        call(client, "fail", json!({"message": "the database is on fire"})).await.unwrap(),
        err("tool 'fail' failed: the database is on fire")
    );
    assert_eq!(
        call(client, "panic", json!({"message": "boom"})).await.unwrap(),
        err("tool 'panic' failed: panicked: boom")
    );
    assert_eq!(call(client, "echo", json!({"text": "survived"})).await.unwrap(), ok("survived"));
    assert_eq!(
        call(client, "create_ticket", json!({"ticket": {"title": "t", "priority": "high", "labels": ["a"]}}))
            .await
            .unwrap(),
        ok("created ticket 't' (high, 1 labels)")
    );
    match call(client, "nope", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602);
            assert_eq!(
                e.message,
                "unknown tool 'nope'; available tools: ['add', 'create_ticket', 'deploy', 'echo', 'fail', 'panic', 'progress', 'run_check', 'slow']"
            );
        }
        other => panic!("unknown tool gave {other:?}"),
    }
    assert_eq!(call(client, "echo", json!({"text": "still"})).await.unwrap(), ok("still"));
}

#[tokio::test]
async fn rmcp_legacy_client_drives_the_example_server() {
    let client = ().serve(transport()).await.expect("initialize");
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2025_11_25);
    exercise(&client).await;
    client.cancel().await.expect("close the session");
}

#[tokio::test]
async fn rmcp_modern_client_drives_the_example_server() {
    let client = ()
        .serve_with_lifecycle(
            transport(),
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
        )
        .await
        .expect("server/discover");
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    exercise(&client).await;
    client.cancel().await.expect("close the session");
}
