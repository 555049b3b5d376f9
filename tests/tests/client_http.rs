//! The client over Streamable HTTP against real servers: server-everything (sessions, SSE,
//! a lost session re-initialised), a Python `MCPServer` with JSON responses, the default
//! SSE and stateless mode, a server dropping the connection mid-SSE; and the `auto` era.
//! Needs the peers: `bash tests/peers/setup.sh`.

mod client_support;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use client_support::{Server, alive_tasks, assert_no_task_left, fixture, free_port, peer, start};
use serde_json::json;
use toolwire::client::{AdoptOptions, Client, ClientOptions, EraMode, HttpServer, StdioServer};
use toolwire::context::Progress;
use toolwire::tool::RemoteError;
use toolwire::{Context, Tool, ToolError};

fn everything_http(port: u16) -> Server {
    start(
        Command::new(peer("TOOLWIRE_NODE22"))
            .arg(peer("TOOLWIRE_SERVER_EVERYTHING"))
            .arg("streamableHttp")
            .env("PORT", port.to_string()),
        port,
    )
}

fn python_http(port: u16, flavour: &str) -> Server {
    start(
        Command::new(peer("TOOLWIRE_PY_MCP2")).arg(fixture("client_mcpserver.py")).args([
            "http",
            &port.to_string(),
            flavour,
        ]),
        port,
    )
}

fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/mcp")
}

#[tokio::test]
async fn server_everything_over_http_with_sse_progress_and_a_lost_session() {
    let port = free_port();
    let server = everything_http(port);
    let client = Client::connect(HttpServer::new(url(port)), ClientOptions::new("ev")).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    let d = client.adopt(AdoptOptions::default().prefix("")).await.unwrap();
    let echo = d.get("echo").unwrap();
    let out = echo.call_json(json!({"message": "over http"}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"ev\" tool=\"echo\">\nEcho: over http\n</untrusted-data>"
    );

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink_seen = Arc::clone(&seen);
    let ctx = Context::builder()
        .progress(Arc::new(move |p: Progress| sink_seen.lock().unwrap().push(p.progress)))
        .build();
    d.get("trigger-long-running-operation")
        .unwrap()
        .call_json(json!({"duration": 1, "steps": 2}), &ctx)
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0]);

    // Restart the server: our session id is now unknown to it, and the client must
    // initialise again and resend.
    drop(server);
    let _server = everything_http(port);
    let out = echo.call_json(json!({"message": "again"}), &Context::new()).await.unwrap();
    assert!(out.joined_text().contains("\nEcho: again\n"));
    client.close().await;
}

#[tokio::test]
async fn python_mcpserver_over_http_in_json_sse_and_stateless_modes() {
    for flavour in ["json", "sse", "stateless"] {
        let port = free_port();
        let _server = python_http(port, flavour);
        let client =
            Client::connect(HttpServer::new(url(port)), ClientOptions::new("weather")).await.unwrap();
        let d = client.adopt(AdoptOptions::default()).await.unwrap();
        let out =
            d.get("forecast").unwrap().call_json(json!({"city": "Oslo"}), &Context::new()).await.unwrap();
        assert!(
            out.joined_text().contains("\nOslo: sunny for the next 2 days\n"),
            "{flavour}: {}",
            out.joined_text()
        );
        let err = d.get("boom").unwrap().call_json(json!({}), &Context::new()).await.unwrap_err();
        assert!(matches!(err, ToolError::Remote(RemoteError::Failed { .. })), "{flavour}: {err:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_server_dropping_the_connection_mid_sse_is_unavailable() {
    let tasks = alive_tasks();
    let port = free_port();
    let _server = start(
        Command::new(peer("TOOLWIRE_PY_MCP2")).arg(fixture("client_sse_drop.py")).arg(port.to_string()),
        port,
    );
    let client = Client::connect(HttpServer::new(url(port)), ClientOptions::new("dropper")).await.unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let ctx = Context::builder().progress(Arc::new(|_p: Progress| {})).build();
    let err =
        tokio::time::timeout(Duration::from_secs(10), d.get("work").unwrap().call_json(json!({}), &ctx))
            .await
            .expect("a dropped stream must not hang the call")
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the outcome of tool 'dropper__work' is unknown: the call was cut off (server 'dropper' closed the \
         SSE stream before answering); it may have run, and it must not be re-run"
    );
    client.close().await;
    drop(d);
    assert_no_task_left(tasks).await;
}

#[tokio::test]
async fn an_unreachable_endpoint_is_unavailable() {
    let port = free_port();
    let err = Client::connect(HttpServer::new(url(port)), ClientOptions::new("nobody")).await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("server 'nobody' could not be reached at http://127.0.0.1:{port}/mcp")),
        "{err}"
    );
    assert!(err.is_retryable());
}

#[tokio::test]
async fn auto_mode_probes_server_discover_and_falls_back() {
    // mcp-server-time speaks both eras over stdio: auto picks the modern one.
    let time = StdioServer::new(peer("TOOLWIRE_MCP_SERVER_TIME"));
    let client = Client::connect(time, ClientOptions::new("time").era(EraMode::Auto)).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2026-07-28");
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let out = d
        .get("get_current_time")
        .unwrap()
        .call_json(json!({"timezone": "UTC"}), &Context::new())
        .await
        .unwrap();
    assert!(out.joined_text().contains("UTC"));
    client.ping().await.unwrap();
    client.close().await;

    // server-everything is legacy only: auto falls back to initialize.
    let client = Client::connect(client_support::everything(), ClientOptions::new("ev").era(EraMode::Auto))
        .await
        .unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    client.close().await;

    // server-everything over HTTP answers the probe with a 400 whose error body has
    // `"id": null`: that is a legacy server, and auto falls back.
    let port = free_port();
    let _everything = everything_http(port);
    let client = Client::connect(HttpServer::new(url(port)), ClientOptions::new("ev").era(EraMode::Auto))
        .await
        .unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    // Its list_changed after init arrives on the session's GET stream.
    for _ in 0..100 {
        if client.tools_list_changed() > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(client.tools_list_changed() > 0, "list_changed over HTTP was not seen");
    client.close().await;

    // A Python MCPServer over HTTP answers server/discover.
    let port = free_port();
    let _server = python_http(port, "sse");
    let client =
        Client::connect(HttpServer::new(url(port)), ClientOptions::new("weather").era(EraMode::Auto))
            .await
            .unwrap();
    assert_eq!(client.server_info().protocol_version, "2026-07-28");
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let out = d.get("forecast").unwrap().call_json(json!({"city": "Rome"}), &Context::new()).await.unwrap();
    assert!(out.joined_text().contains("\nRome: sunny for the next 2 days\n"), "{}", out.joined_text());
    client.close().await;
}
