//! SEP-2243 in the client (2026-07-28): an adopted tool's `x-mcp-header` parameters travel as
//! `Mcp-Param-*` headers on its calls, and a tool whose declarations are invalid is not
//! adopted, with the reason in the report. Against two servers that refuse a call whose
//! headers disagree with its body (400, -32020): toolwire's own, the Python SDK 2.3.0's
//! `MCPServer` and the TypeScript SDK 2.4.0's `createMcpHandler`, all on real sockets on
//! 127.0.0.1. The conformance suite's
//! `http-custom-headers` and `http-invalid-tool-headers` are in `client_conformance.rs`.
//! Needs the peers: `bash tests/peers/setup.sh`.

mod client_support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use client_support::{fixture, peer};
use serde_json::json;
use toolwire::client::{AdoptOptions, CallOptions, Client, ClientOptions, EraMode, HttpServer};
use toolwire::spec::SpecOptions;
use toolwire::{Context, ServerOptions, Tool, serve_registry};

/// A tool that answers with its arguments, as JSON.
struct Echo(toolwire::ToolInfo);

impl toolwire::Tool for Echo {
    fn info(&self) -> &toolwire::ToolInfo {
        &self.0
    }

    fn call<'a>(
        &'a self,
        arguments: &'a serde_json::value::RawValue,
        _ctx: &'a toolwire::Context,
    ) -> toolwire::tool::ToolFuture<'a> {
        Box::pin(async move { Ok(toolwire::ToolOutput::text(arguments.get().to_owned())) })
    }
}

fn echo(name: &'static str, schema: serde_json::Value) -> Echo {
    Echo(toolwire::ToolInfo::new(name, "Echo the arguments.", toolwire::Schema::from_value(schema)))
}

/// The sealed text of a result from server `server`'s tool `tool`.
fn sealed(server: &str, tool: &str, text: &str) -> String {
    format!("<untrusted-data source=\"mcp\" server=\"{server}\" tool=\"{tool}\">\n{text}\n</untrusted-data>")
}

#[tokio::test]
async fn toolwire_server_takes_the_mirrored_headers_and_the_invalid_tool_is_reported() {
    let mut registry = toolwire::ToolRegistry::new();
    registry
        .register(echo(
            "locate",
            json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "zone": {"type": "integer", "x-mcp-header": "Zone"},
                "where": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
                "note": {"type": ["string", "null"], "x-mcp-header": "Note"}
            }, "required": ["region", "zone"]}),
        ))
        .unwrap();
    registry
        .register(echo(
            "score",
            json!({"type": "object", "properties": {"score": {"type": "number", "x-mcp-header": "Score"}}}),
        ))
        .unwrap();
    registry
        .register(echo(
            "twice",
            json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}
            }}),
        ))
        .unwrap();
    let mut spec = serve_registry(
        toolwire::Server::new(registry, ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap();
    spec.start().unwrap();
    let client =
        Client::connect_spec_with(&spec, ClientOptions::new("engine").era(EraMode::Auto)).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2026-07-28");
    let d = client.adopt(AdoptOptions::default().prefix("")).await.unwrap();
    let mut reasons: Vec<String> = d.rejected().iter().map(ToString::to_string).collect();
    reasons.sort();
    assert_eq!(
        reasons,
        [
            "'score': its x-mcp-header declarations are invalid: x-mcp-header 'Score' on arguments.score is on a parameter of type number; only string, integer and boolean parameters can be headers",
            "'twice': its x-mcp-header declarations are invalid: x-mcp-header 'myfield' on arguments.b repeats 'MyField' of arguments.a (names must differ ignoring case)",
        ]
    );
    assert!(
        d.get("score")
            .unwrap_err()
            .to_string()
            .contains("it was rejected: its x-mcp-header declarations are invalid")
    );
    let locate = d.get("locate").unwrap();
    // A value that is not plain ASCII travels Base64-encoded, a nested one by its path, a
    // null one not at all: the server decodes and compares each (else 400, -32020).
    for args in [
        json!({"region": "Hello, 世界", "zone": -3, "where": {"dry": true}, "note": " padded "}),
        json!({"region": "us-west1", "zone": 7, "note": null}),
    ] {
        let out = locate.call_json(args.clone(), &Context::new()).await.unwrap();
        let text = out.joined_text();
        let body = text.lines().nth(1).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(body).unwrap(), args, "{text}");
    }
    client.close().await;
    spec.stop();
}

/// A child killed when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `command` with a free port as its last argument; the server and its port once it
/// listens.
fn start(mut command: Command) -> (Server, u16) {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = command.arg(port.to_string()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let server = Server(child);
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "{command:?} did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

#[tokio::test]
async fn typescript_sdk_server_takes_the_mirrored_headers() {
    let mut command = Command::new(peer("TOOLWIRE_NODE22"));
    command
        .arg(fixture("param_headers_ts_v2.mjs"))
        .env("TOOLWIRE_NODE_MODULES", peer("TOOLWIRE_NODE_MODULES"));
    let (_server, port) = start(command);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client =
        Client::connect(HttpServer::new(url), ClientOptions::new("ts").era(EraMode::Auto)).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2026-07-28");
    let d = client.adopt(AdoptOptions::default().prefix("")).await.unwrap();
    let locate = d.get("locate").unwrap();
    for (args, echoed) in [
        (json!({"region": "São Paulo", "zone": 9}), r#"{"region":"São Paulo","zone":9}"#),
        (json!({"region": "\tus-east1"}), r#"{"region":"\tus-east1"}"#),
    ] {
        let out = locate.call_json(args, &Context::new()).await.unwrap();
        assert_eq!(out.joined_text(), sealed("ts", "locate", echoed));
    }
    client.close().await;
}

#[tokio::test]
async fn python_sdk_server_takes_the_mirrored_headers() {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command.arg(fixture("param_headers_mcpserver.py"));
    let (_server, port) = start(command);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::connect(HttpServer::new(url), ClientOptions::new("regions").era(EraMode::Auto))
        .await
        .unwrap();
    assert_eq!(client.server_info().protocol_version, "2026-07-28");
    let d = client.adopt(AdoptOptions::default().prefix("")).await.unwrap();
    assert!(d.rejected().is_empty(), "{:?}", d.rejected());
    let locate = d.get("locate").unwrap();
    let out = locate
        .call_json(json!({"region": "Zürich ", "zone": 42, "dry": true, "note": "n"}), &Context::new())
        .await
        .unwrap();
    assert_eq!(
        out.joined_text(),
        sealed("regions", "locate", r#"{"region": "Zürich ", "zone": 42, "dry": true, "note": "n"}"#)
    );
    // Without the optional one: no header for it.
    let out = locate.call_json(json!({"region": "eu", "zone": 1}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        sealed("regions", "locate", r#"{"region": "eu", "zone": 1, "dry": false, "note": ""}"#)
    );
    // A call by name, past the adopted tool, carries them too: adoption read the list.
    let raw = client
        .call_tool("locate", json!({"region": "Zürich ", "zone": 42, "dry": true}), CallOptions::new())
        .await
        .unwrap();
    assert!(!raw.is_error, "{raw:?}");
    assert_eq!(raw.text(), r#"{"region": "Zürich ", "zone": 42, "dry": true, "note": ""}"#);
    client.close().await;
}
