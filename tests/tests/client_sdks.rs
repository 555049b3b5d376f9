//! The client against servers built on the other official SDKs: a TypeScript v2
//! `serveStdio` server (dual-era) and an rmcp server. Needs the peers:
//! `bash tests/peers/setup.sh`.

mod client_support;

use client_support::{assert_gone, fixture, peer, workspace_binary};
use serde_json::json;
use toolwire::client::{AdoptOptions, Client, ClientOptions, DeliveryGuarantee, EraMode, StdioServer};
use toolwire::{Context, Tool};

fn ts_v2() -> StdioServer {
    StdioServer::new(peer("TOOLWIRE_NODE22"))
        .arg(fixture("client_ts_v2.mjs"))
        .env("TOOLWIRE_NODE_MODULES", peer("TOOLWIRE_NODE_MODULES"))
}

#[tokio::test]
async fn typescript_v2_serve_stdio_in_both_eras() {
    for (era, version) in
        [(EraMode::Legacy, "2025-11-25"), (EraMode::Auto, "2026-07-28"), (EraMode::Modern, "2026-07-28")]
    {
        let client = Client::connect(ts_v2(), ClientOptions::new("ts").era(era)).await.unwrap();
        assert_eq!(client.server_info().protocol_version, version, "{era:?}");
        let d = client.adopt(AdoptOptions::default()).await.unwrap();
        let greet = d.get("greet").unwrap();
        assert_eq!(greet.delivery(), DeliveryGuarantee::AtLeastOnce);
        let out = greet.call_json(json!({"name": "Ada"}), &Context::new()).await.unwrap();
        assert_eq!(
            out.joined_text(),
            "<untrusted-data source=\"mcp\" server=\"ts\" tool=\"ts__greet\">\nhello, Ada\n</untrusted-data>"
        );
        let pid = client.pid().unwrap();
        client.close().await;
        assert_gone(pid).await;
    }
}

#[tokio::test]
async fn an_rmcp_server() {
    let server = StdioServer::new(workspace_binary("toolwire-bench", "rmcp-echo"));
    let client = Client::connect(server, ClientOptions::new("rmcp")).await.unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let echo = d.get("echo").unwrap();
    assert_eq!(echo.info().description(), "Echo the text back.");
    let out = echo.call_json(json!({"text": "from rust"}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"rmcp\" tool=\"rmcp__echo\">\nfrom rust\n</untrusted-data>"
    );
    let err = echo.call_json(json!({"txt": "x"}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'rmcp__echo' call rejected: unexpected argument(s) ['txt']; missing required argument(s) ['text']. Accepted arguments: ['text']"
    );
    client.close().await;
}
