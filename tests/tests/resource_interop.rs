//! Resources, templates, prompts and completion of a toolwire server (the `conformance`
//! example, `examples/src/bin/conformance.rs`: the conformance suite's fixtures) driven by
//! clients nobody on this team wrote, over stdio (a real child process) AND loopback HTTP:
//!
//! - the TypeScript SDK v2 client (`tests/peers/clients/ts_v2_resources.mjs`), in the legacy
//!   era (2025-11-25) and in auto mode (settles on 2026-07-28): list and read resources (text
//!   and blob, with MIME types), list templates and read one, list prompts, get them with and
//!   without arguments, complete a prompt argument, and the exact texts of an unknown URI, a
//!   missing prompt argument and completion for an unknown prompt;
//! - rmcp 3.11.0's client, in both eras: list resources and read them;
//! - the Inspector CLI over HTTP (`tests/tests/resources.rs` and `prompts.rs` cover stdio):
//!   `--method resources/list`, `resources/read`, `prompts/get`, in both eras.
//!
//! Needs the peers: `bash tests/peers/setup.sh`.

mod peer_support;

use std::process::{Command, Stdio};

use peer_support::{TempDir, peer, peer_command};
use serde_json::{Value, json};
use toolwire_tests::example_server::{HttpChild, example_binary};

/// The 1x1 red PNG the fixtures serve (`test://static-binary`).
const RED_PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// One peer at a time: each starts a Node runtime (or a client) plus the server.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn conformance_bin() -> String {
    static BIN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BIN.get_or_init(|| example_binary("conformance").display().to_string()).clone()
}

/// The conformance example over loopback HTTP, on an ephemeral port; stopped on drop.
/// How the client reaches the server.
enum Via<'a> {
    Stdio,
    Http(&'a str),
}

/// Run the TypeScript SDK v2 driver; its JSON report.
fn ts_v2(mode: &str, via: Via<'_>) -> Value {
    let mut command = Command::new(peer("TOOLWIRE_NODE22"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/ts_v2_resources.mjs")).args(["--mode", mode]);
    match via {
        Via::Stdio => command.args(["--", &conformance_bin(), "--stdio"]),
        Via::Http(url) => command.args(["--url", url]),
    };
    let out = command
        .env("TOOLWIRE_NODE_MODULES", peer("TOOLWIRE_NODE_MODULES"))
        .stdin(Stdio::null())
        .output()
        .expect("run the TypeScript driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ts_v2_resources.mjs --mode {mode} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not one JSON report ({e}):\n{stdout}"))
}

/// Everything the TypeScript SDK got back, compared with exact values.
fn assert_ts_report(r: &Value, version: &str, what: &str) {
    assert_eq!(r["protocolVersion"], version, "{what}: {r}");
    let caps = &r["capabilities"];
    assert_eq!(caps["resources"]["subscribe"], true, "{what}: {caps}");
    assert!(caps["prompts"].is_object() && caps["completions"].is_object(), "{what}: {caps}");
    assert_eq!(
        r["resources"],
        json!([
            // The Skills extension's `SKILL.md`, listed beside the fixtures (issue 49).
            {"uri": "skill://test-skill/SKILL.md", "name": "test-skill", "description": "A skill the conformance suite reads", "mimeType": "text/markdown", "size": 107},
            {"uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource (a 1x1 red PNG) for testing.", "mimeType": "image/png"},
            {"uri": "test://static-text", "name": "static-text", "description": "A static text resource for testing.", "mimeType": "text/plain"},
            {"uri": "test://watched-resource", "name": "watched-resource", "description": "A resource that can be subscribed to.", "mimeType": "text/plain"}
        ]),
        "{what}"
    );
    assert_eq!(
        r["templates"],
        json!([
            {"uriTemplate": "test://template/{id}/data", "name": "template", "description": "A resource template with parameter substitution.", "mimeType": "application/json"},
            {"uriTemplate": "skill://{+path}", "name": "skill-files", "description": "A file of one of the skills this server serves (skills/list names them)"}
        ]),
        "{what}"
    );
    assert_eq!(
        r["readText"],
        json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource."}]),
        "{what}"
    );
    assert_eq!(
        r["readBinary"],
        json!([{"uri": "test://static-binary", "mimeType": "image/png", "blob": RED_PIXEL_PNG}]),
        "{what}"
    );
    assert_eq!(
        r["readTemplate"],
        json!([{"uri": "test://template/123/data", "mimeType": "application/json", "text": r#"{"id":"123","templateTest":true,"data":"Data for ID: 123"}"#}]),
        "{what}"
    );
    // The wire says -32002 up to 2025-11-25 and -32602 from 2026-07-28 (rmcp_client below
    // checks both); the TypeScript SDK v2 hands either to its caller as -32602 (its
    // `ResourceNotFound` is "receive-tolerated only"; SEP-2164 standardises -32602).
    assert_eq!(
        r["readUnknown"],
        json!({"error": {"code": -32602, "message": "resource 'test://no-such-resource' not found"}}),
        "{what}"
    );

    let names: Vec<&str> =
        r["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "test_input_required_result_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_simple_prompt"
        ],
        "{what}"
    );
    let with_args =
        r["prompts"].as_array().unwrap().iter().find(|p| p["name"] == "test_prompt_with_arguments").unwrap();
    assert_eq!(
        with_args["arguments"],
        json!([
            {"name": "arg1", "description": "First test argument.", "required": true},
            {"name": "arg2", "description": "Second test argument.", "required": true}
        ]),
        "{what}"
    );
    assert_eq!(
        r["getSimple"],
        json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}]),
        "{what}"
    );
    assert_eq!(
        r["getWithArgs"],
        json!([{"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='paris', arg2='london'"}}]),
        "{what}"
    );
    assert_eq!(
        r["getMissingArg"],
        json!({"error": {"code": -32602, "message": "prompt 'test_prompt_with_arguments' get rejected: missing required argument(s) ['arg2']. Accepted arguments: ['arg1', 'arg2']"}}),
        "{what}"
    );
    assert_eq!(
        r["complete"],
        json!({"values": ["paris", "park", "party"], "total": 3, "hasMore": false}),
        "{what}"
    );
    assert_eq!(
        r["completeUnknown"],
        json!({"error": {"code": -32602, "message": "completion for unknown prompt 'no_such_prompt'; available prompts: ['test_input_required_result_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image', 'test_simple_prompt']"}}),
        "{what}"
    );
}

#[test]
fn typescript_v2_client_over_stdio_in_both_eras() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let report = ts_v2(mode, Via::Stdio);
        assert_ts_report(&report, version, &format!("stdio {mode}"));
    }
}

#[test]
fn typescript_v2_client_over_http_in_both_eras() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let server = HttpChild::example("conformance", &["--port", "0"]);
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let report = ts_v2(mode, Via::Http(&server.url));
        assert_ts_report(&report, version, &format!("http {mode}"));
    }
}

/// rmcp's client: list the resources, then read the text, the blob and a template.
mod rmcp_client {
    use rmcp::model::{ProtocolVersion, ReadResourceRequestParams};
    use rmcp::service::{RoleClient, RunningService, ServiceError};
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
    use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
    use serde_json::{Value, json};

    use super::{HttpChild, ONE_AT_A_TIME, RED_PIXEL_PNG, conformance_bin};

    type Client = RunningService<RoleClient, ()>;

    fn stdio() -> TokioChildProcess {
        let mut command = tokio::process::Command::new(conformance_bin());
        command.arg("--stdio");
        let (child, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("spawn the conformance example");
        child
    }

    /// Connect in `era` ("legacy": initialize; "modern": server/discover at 2026-07-28).
    async fn connect<T, E, A>(transport: T, era: &str) -> Client
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let client = match era {
            "legacy" => ().serve(transport).await.expect("initialize"),
            _ => ()
                .serve_with_lifecycle(
                    transport,
                    ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
                )
                .await
                .expect("server/discover"),
        };
        let want =
            if era == "legacy" { ProtocolVersion::V_2025_11_25 } else { ProtocolVersion::V_2026_07_28 };
        assert_eq!(client.peer_info().unwrap().protocol_version, want, "{era}");
        client
    }

    async fn read(client: &Client, uri: &str) -> Result<Value, ServiceError> {
        let result = client.read_resource(ReadResourceRequestParams::new(uri)).await?;
        Ok(serde_json::to_value(&result.contents).unwrap())
    }

    async fn exercise(client: &Client, what: &str) {
        let listed = client.list_all_resources().await.expect("resources/list");
        let listed: Vec<(String, String, Option<String>)> =
            listed.iter().map(|r| (r.uri.clone(), r.name.clone(), r.mime_type.clone())).collect();
        let row = |u: &str, n: &str, m: &str| (u.to_owned(), n.to_owned(), Some(m.to_owned()));
        assert_eq!(
            listed,
            [
                row("skill://test-skill/SKILL.md", "test-skill", "text/markdown"),
                row("test://static-binary", "static-binary", "image/png"),
                row("test://static-text", "static-text", "text/plain"),
                row("test://watched-resource", "watched-resource", "text/plain"),
            ],
            "{what}"
        );
        assert_eq!(
            read(client, "test://static-text").await.unwrap(),
            json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource."}]),
            "{what}"
        );
        assert_eq!(
            read(client, "test://static-binary").await.unwrap(),
            json!([{"uri": "test://static-binary", "mimeType": "image/png", "blob": RED_PIXEL_PNG}]),
            "{what}"
        );
        assert_eq!(
            read(client, "test://template/7/data").await.unwrap(),
            json!([{"uri": "test://template/7/data", "mimeType": "application/json", "text": r#"{"id":"7","templateTest":true,"data":"Data for ID: 7"}"#}]),
            "{what}"
        );
        match read(client, "test://no-such-resource").await {
            Err(ServiceError::McpError(e)) => {
                // -32002 up to 2025-11-25; SEP-2164's -32602 from 2026-07-28.
                let code = if what.ends_with("legacy") { -32002 } else { -32602 };
                assert_eq!(e.code.0, code, "{what}");
                assert_eq!(e.message, "resource 'test://no-such-resource' not found", "{what}");
                assert_eq!(e.data, Some(json!({"uri": "test://no-such-resource"})), "{what}");
            }
            other => panic!("{what}: an unknown URI gave {other:?}"),
        }
    }

    /// Run `f` on a fresh runtime while holding the one-peer-at-a-time turn.
    fn in_turn<F: std::future::Future<Output = ()>>(f: F) {
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        tokio::runtime::Runtime::new().expect("a tokio runtime").block_on(f);
    }

    #[test]
    fn rmcp_client_lists_and_reads_over_stdio_in_both_eras() {
        in_turn(async {
            for era in ["legacy", "modern"] {
                let client = connect(stdio(), era).await;
                exercise(&client, &format!("stdio {era}")).await;
                client.cancel().await.expect("close the session");
            }
        });
    }

    #[test]
    fn rmcp_client_lists_and_reads_over_http_in_both_eras() {
        in_turn(async {
            let server = HttpChild::example("conformance", &["--port", "0"]);
            for era in ["legacy", "modern"] {
                let config = StreamableHttpClientTransportConfig::with_uri(server.url.clone());
                let client = connect(StreamableHttpClientTransport::from_config(config), era).await;
                exercise(&client, &format!("http {era}")).await;
                client.cancel().await.expect("close the session");
            }
        });
    }
}

/// One Inspector CLI run over HTTP (`--transport http`) in `era`; (exit code, stdout, stderr).
fn inspector_http(url: &str, era: &str, args: &[&str]) -> Value {
    let home = TempDir::new("resource-interop-inspector");
    let out = peer_command("TOOLWIRE_INSPECTOR")
        .args(["--cli", url, "--transport", "http", "--protocol-era", era])
        .args(["--format", "json", "-q", "--connect-timeout", "20000"])
        .args(args)
        .env("HOME", &home.0)
        .env("MCP_CATALOG_PATH", home.0.join("catalog.json"))
        .env("MCP_CLIENT_CONFIG_PATH", home.0.join("client.json"))
        .stdin(Stdio::null())
        .output()
        .expect("run the Inspector");
    assert!(
        out.status.success(),
        "inspector {args:?} ({era}) failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    v["result"].clone()
}

#[test]
fn inspector_cli_over_http_lists_reads_and_gets_in_both_eras() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let server = HttpChild::example("conformance", &["--port", "0"]);
    for era in ["legacy", "modern"] {
        let listed = inspector_http(&server.url, era, &["--method", "resources/list"]);
        let uris: Vec<&str> =
            listed["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "skill://test-skill/SKILL.md",
                "test://static-binary",
                "test://static-text",
                "test://watched-resource"
            ],
            "{era}: {listed}"
        );
        let read = inspector_http(
            &server.url,
            era,
            &["--method", "resources/read", "--uri", "test://static-binary"],
        );
        assert_eq!(
            read["contents"],
            json!([{"uri": "test://static-binary", "mimeType": "image/png", "blob": RED_PIXEL_PNG}]),
            "{era}: {read}"
        );
        let got = inspector_http(
            &server.url,
            era,
            &[
                "--method",
                "prompts/get",
                "--prompt-name",
                "test_prompt_with_arguments",
                "--prompt-args",
                "arg1=a",
                "arg2=b",
            ],
        );
        assert_eq!(
            got["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='a', arg2='b'"}}]),
            "{era}: {got}"
        );
    }
}
