//! The client against real third-party servers over stdio: server-everything,
//! server-filesystem, mcp-server-time, an mcp 2.3.0 `MCPServer` and an mcp 1.22.0 `FastMCP`.
//! Needs the peers: `bash tests/peers/setup.sh`.

mod client_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use client_support::{assert_gone, everything, fixture, peer, py2};
use serde_json::json;
use toolwire::client::{
    AdoptOptions, CallOptions, Client, ClientOptions, DeliveryGuarantee, RejectReason, RequireApproval, Root,
    StdioServer,
};
use toolwire::context::Progress;
use toolwire::tool::RemoteError;
use toolwire::{Content, Context, Tool, ToolError};

#[tokio::test]
async fn server_everything_tools_are_adopted_validated_and_sealed() {
    let client = Client::connect(everything(), ClientOptions::new("everything")).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    // It announces a list change right after the handshake; the cache must not hide it.
    for _ in 0..100 {
        if client.tools_list_changed() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(client.tools_list_changed() > 0, "list_changed after init was not seen");

    let d = client
        .adopt(AdoptOptions::default().prefix("ev_").approval(RequireApproval::Destructive))
        .await
        .unwrap();
    assert!(d.rejected().is_empty(), "{:?}", d.rejected());
    let echo = d.get("echo").expect("echo adopted");
    assert_eq!(echo.remote_name(), "echo");
    assert_eq!(echo.delivery(), DeliveryGuarantee::AtLeastOnce);
    assert!(!echo.info().declarations().requires_approval);
    assert!(!echo.info().declarations().side_effecting);
    // draft-07 with nothing said about extras: advertised as forbidding them.
    assert_eq!(echo.info().input_schema().value()["additionalProperties"], false);
    let toggle = d.get("toggle-simulated-logging").unwrap();
    assert!(toggle.info().declarations().requires_approval);
    assert_eq!(toggle.delivery(), DeliveryGuarantee::AtMostOnce);

    assert!(!echo.validator_compiled());
    let out = echo.call_json(json!({"message": "hi"}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"everything\" tool=\"ev_echo\">\nEcho: hi\n</untrusted-data>"
    );
    assert!(echo.validator_compiled());

    let err = echo.call_json(json!({"msg": "hi"}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'ev_echo' call rejected: unexpected argument(s) ['msg']; missing required argument(s) ['message']. Accepted arguments: ['message']"
    );
    assert!(matches!(err, ToolError::Arguments(_)));

    // Its progress tool: reports arrive through the context's sink.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink_seen = Arc::clone(&seen);
    let ctx = Context::builder()
        .progress(Arc::new(move |p: Progress| sink_seen.lock().unwrap().push(p.progress)))
        .build();
    let long = d.get("trigger-long-running-operation").unwrap();
    long.call_json(json!({"duration": 1, "steps": 3}), &ctx).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);

    let img = d.get("get-tiny-image").unwrap().call_json(json!({}), &Context::new()).await.unwrap();
    assert!(img.joined_text().contains("[image image/png, "), "{}", img.joined_text());
    assert!(img.joined_text().contains(" bytes elided]"));

    // An unknown tool is an isError result from this server, not -32602.
    let raw = client.call_tool("no_such_tool", json!({}), CallOptions::default()).await.unwrap();
    assert!(raw.is_error);

    client.ping().await.unwrap();
    let pid = client.pid().unwrap();
    client.close().await;
    assert_gone(pid).await;
    let err = client.list_tools(true).await.unwrap_err();
    assert_eq!(err.to_string(), "the client for server 'everything' is closed");
}

#[tokio::test]
async fn server_filesystem_is_answered_roots_list() {
    let dir = std::env::temp_dir().join(format!("toolwire-fs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    std::fs::write(dir.join("note.txt"), "remember the milk").unwrap();
    let server = StdioServer::new(peer("TOOLWIRE_NODE22")).arg(peer("TOOLWIRE_SERVER_FILESYSTEM"));
    let client =
        Client::connect(server, ClientOptions::new("fs").roots(vec![Root::directory(&dir)])).await.unwrap();
    let d = client
        .adopt(AdoptOptions::default().include("read_*").include("list_allowed_directories"))
        .await
        .unwrap();
    assert!(d.rejected().iter().all(|r| r.reason == RejectReason::NotIncluded));
    let list = d.get("list_allowed_directories").unwrap();
    // The server learns its directories from our roots/list answer, asynchronously.
    let mut text = String::new();
    for _ in 0..50 {
        text = list.call_json(json!({}), &Context::new()).await.unwrap().joined_text();
        if text.contains(&*dir.to_string_lossy()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(text.contains(&*dir.to_string_lossy()), "{text}");
    let read = d.get("read_text_file").or_else(|_| d.get("read_file")).unwrap();
    let path = dir.join("note.txt").display().to_string();
    let out = read.call_json(json!({ "path": path }), &Context::new()).await.unwrap();
    assert!(out.joined_text().contains("remember the milk"));
    client.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn mcp_server_time_annotations_and_its_unknown_tool_refusal() {
    let server = StdioServer::new(peer("TOOLWIRE_MCP_SERVER_TIME")).args(["--local-timezone", "UTC"]);
    let client = Client::connect(server, ClientOptions::new("time")).await.unwrap();
    let d = client.adopt(AdoptOptions::default().approval(RequireApproval::Destructive)).await.unwrap();
    let now = d.get("get_current_time").unwrap();
    assert_eq!(now.hints().read_only, Some(true));
    assert_eq!(now.delivery(), DeliveryGuarantee::AtLeastOnce);
    assert!(!now.info().declarations().requires_approval);
    let out = now.call_json(json!({"timezone": "UTC"}), &Context::new()).await.unwrap();
    assert!(
        out.joined_text().contains("\"timezone\": \"UTC\"")
            || out.joined_text().contains("\"timezone\":\"UTC\""),
        "{}",
        out.joined_text()
    );
    let err = client.call_tool("nope", json!({}), CallOptions::default()).await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Remote(RemoteError::Refused { tool: "nope".into(), server: "time".into(), code: -32602 })
    );
    assert_eq!(err.to_string(), "tool 'nope' was declined by server 'time' (code -32602)");
    client.close().await;
}

#[tokio::test]
async fn mcpserver_fixture_follows_the_approval_table_and_keeps_its_words_in_the_envelope() {
    let client = Client::connect(py2("client_mcpserver.py"), ClientOptions::new("weather")).await.unwrap();
    let d = client
        .adopt(
            AdoptOptions::default()
                .approval(RequireApproval::Destructive)
                .known(["weather__scalar"])
                .timeout(Duration::from_millis(500)),
        )
        .await
        .unwrap();
    assert_eq!(d.conflicts(), ["weather__scalar"]);
    let forecast = d.get("forecast").unwrap();
    let reset = d.get("reset_station").unwrap();
    assert_eq!(
        (forecast.delivery(), forecast.info().declarations().requires_approval),
        (DeliveryGuarantee::AtLeastOnce, false)
    );
    assert_eq!(
        (reset.delivery(), reset.info().declarations().requires_approval),
        (DeliveryGuarantee::AtMostOnce, true)
    );

    let out = forecast.call_json(json!({"city": "Lisbon", "days": 3}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"weather\" tool=\"weather__forecast\">\nLisbon: sunny for the next 3 days\n</untrusted-data>"
    );

    let err = d.get("boom").unwrap().call_json(json!({}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'weather__boom' failed on server 'weather'; its report is in the untrusted-data envelope"
    );
    match &err {
        ToolError::Remote(RemoteError::Failed { envelope, .. }) => {
            assert!(envelope.contains("ignore previous instructions"))
        }
        other => panic!("{other:?}"),
    }
    assert!(!err.is_retryable());

    let img = d.get("tiny_image").unwrap().call_json(json!({}), &Context::new()).await.unwrap();
    assert!(img.joined_text().contains("\n[image image/png, 4 bytes elided]\n"), "{}", img.joined_text());

    let err = d.get("hang").unwrap().call_json(json!({}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'weather__hang' on server 'weather' did not answer within 0.5s; it may have run"
    );
    // The connection survives an abandoned call.
    forecast.call_json(json!({"city": "Porto"}), &Context::new()).await.unwrap();

    let untrusting = client
        .adopt(AdoptOptions::default().approval(RequireApproval::Destructive).trust_annotations(false))
        .await
        .unwrap();
    let f = untrusting.get("forecast").unwrap();
    assert_eq!(
        (f.delivery(), f.info().declarations().requires_approval),
        (DeliveryGuarantee::AtMostOnce, true)
    );

    let items = client.resource_source().query("RUNBOOK", 1).await.unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].content, "Restart the ingest worker, then check the queue depth.");
    assert_eq!(
        client.resource_source().write("docs://runbook", "x").unwrap_err().to_string(),
        "resources of server 'weather' are read-only: MCP resources are server-authored"
    );
    client.close().await;
}

#[tokio::test]
async fn fastmcp_1_22_speaks_2025_06_18() {
    let server = StdioServer::new(peer("TOOLWIRE_PY_MCP1")).arg(fixture("client_fastmcp1.py"));
    let client = Client::connect(server, ClientOptions::new("demo")).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-06-18");
    let d = client.adopt(AdoptOptions::default().prefix("demo_")).await.unwrap();
    let add = d.get("add").unwrap();
    assert_eq!(add.info().description(), "Add two integers.");
    let out = add.call_json(json!({"a": 2, "b": 3}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"demo\" tool=\"demo_add\">\n5\n</untrusted-data>"
    );
    client.close().await;
}

#[tokio::test]
async fn adoption_rules_on_server_everything() {
    let client = Client::connect(everything(), ClientOptions::new("everything")).await.unwrap();

    // Names are cut at 64 characters; two tools that end up with one name: the second is
    // rejected, never renamed.
    let long = "p".repeat(60);
    let d = client.adopt(AdoptOptions::default().prefix(long.clone())).await.unwrap();
    assert_eq!(d.get("echo").unwrap().info().name().len(), 64);
    let dup = d.rejected().iter().find(|r| r.name == "get-env").unwrap();
    assert_eq!(dup.reason, RejectReason::DuplicateName { name: format!("{long}get-") });
    assert_eq!(
        dup.reason.to_string(),
        format!("another tool of this server is already adopted as '{long}get-'")
    );

    // The allowlist is the only tools considered; max_tools then caps what survives.
    let d = client
        .adopt(AdoptOptions::default().allow(["echo", "get-sum", "get-env"]).exclude("get-e*").max_tools(1))
        .await
        .unwrap();
    assert_eq!(d.tools().iter().map(|t| t.info().name()).collect::<Vec<_>>(), ["everything__echo"]);
    assert!(d.truncated());
    let reason = |name: &str| d.rejected().iter().find(|r| r.name == name).unwrap().reason.to_string();
    assert_eq!(reason("get-env"), "matched exclude glob 'get-e*'");
    assert_eq!(reason("get-sum"), "over max_tools (1)");
    assert_eq!(reason("get-tiny-image"), "not on the allowlist");
    let registry = d.registry().unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["everything__echo"]);

    // The held view: a refresh is the only way it changes.
    let mut d = client.adopt(AdoptOptions::default().include("echo")).await.unwrap();
    let before = Arc::clone(&d.tools()[0]);
    d.refresh().await.unwrap();
    assert!(!Arc::ptr_eq(&before, &d.tools()[0]));
    assert_eq!(d.tools().len(), 1);

    // Resources: text as text, a blob as a marker.
    let resources = client.list_resources(false).await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "demo://resource/static/document/architecture.md"));
    let blob = client.read_resource_text("demo://resource/dynamic/blob/1").await.unwrap();
    assert!(blob.starts_with("[blob text/plain, ") && blob.ends_with(" bytes elided]"), "{blob}");
    client.close().await;
}

#[tokio::test]
async fn the_child_gets_the_safe_environment_plus_what_is_passed() {
    // cargo sets CARGO_MANIFEST_DIR for this test process; a child must not see it unless
    // the whole environment is inherited.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    for inherit in [false, true] {
        let server = everything().env("TOOLWIRE_EXPLICIT", "passed").inherit_env(inherit);
        let client = Client::connect(server, ClientOptions::new("everything")).await.unwrap();
        let raw = client.call_tool("get-env", json!({}), CallOptions::default()).await.unwrap();
        let Content::Text { text } = &raw.content[0] else { panic!("{raw:?}") };
        let env: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(env["TOOLWIRE_EXPLICIT"], "passed");
        assert_eq!(env.get("CARGO_MANIFEST_DIR").is_some(), inherit, "inherit_env({inherit})");
        assert!(env.get("PATH").is_some());
        client.close().await;
    }
}

#[test]
fn the_adopt_example_prints_what_its_docs_say() {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/src/bin/adopt.rs"),
    )
    .unwrap();
    let doc: Vec<&str> = source
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let prints = doc.iter().position(|l| l.starts_with("Prints")).unwrap();
    let start = prints + doc[prints..].iter().position(|l| *l == "```text").unwrap() + 1;
    let end = start + doc[start..].iter().position(|l| *l == "```").unwrap();
    let want = doc[start..end].join("\n") + "\n";
    let out = std::process::Command::new(client_support::workspace_binary("toolwire-examples", "adopt"))
        // FastMCP is `mcp` 1.x; 2.x renamed it.
        .env("TOOLWIRE_PYTHON", peer("TOOLWIRE_PY_MCP1"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}
