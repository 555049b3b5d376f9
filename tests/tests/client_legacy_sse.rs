//! The client over the 2024-11-05 HTTP+SSE transport, against real servers that speak only it:
//! the Python SDK's `sse` app (2.3.0 `MCPServer` and 1.22 `FastMCP`), server-everything in its
//! `sse` mode, and a TypeScript SDK v1 `SSEServerTransport` server. Each is reached by
//! configuration (`HttpServer::legacy_sse`) and by the spec's fallback (the SSE URL given as
//! if it were Streamable HTTP); lists, adopts and calls; on server-everything, progress and a
//! sampling request on the stream, from a client in the `auto` era. Then the errors a user reads: an SSE
//! endpoint that never sends `endpoint`, a GET answered without a stream, and a stream that
//! dies mid-call (the server killed). Needs the peers: `bash tests/peers/setup.sh`.

mod client_support;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use client_support::{Server, alive_tasks, assert_no_task_left, fixture, free_port, peer, start};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolwire::client::{
    AdoptOptions, Client, ClientError, ClientOptions, CreateMessageResult, EraMode, HttpServer,
    HttpTransportKind,
};
use toolwire::context::Progress;
use toolwire::{Context, Tool};

/// `tests/peers/fixtures/client_sse_server.py` under the venv in `$venv`.
fn python_sse(venv: &str, port: u16) -> Server {
    start(Command::new(peer(venv)).arg(fixture("client_sse_server.py")).arg(port.to_string()), port)
}

fn sse_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/sse")
}

/// Connect to `http`, check the tools, adopt them and call `tool` with `args`: its text.
async fn use_server(
    http: HttpServer,
    name: &str,
    tools: &[&str],
    tool: &str,
    args: serde_json::Value,
) -> String {
    let client = Client::connect(http, ClientOptions::new(name)).await.unwrap();
    let listed: Vec<String> =
        client.list_tools(false).await.unwrap().iter().map(|t| t.name.clone()).collect();
    for t in tools {
        assert!(listed.iter().any(|l| l == t), "{name}: {t} not in {listed:?}");
    }
    let d = client.adopt(AdoptOptions::default().prefix("")).await.unwrap();
    let out = d.get(tool).unwrap().call_json(args, &Context::new()).await.unwrap();
    client.close().await;
    out.joined_text()
}

#[tokio::test]
async fn python_sdk_sse_servers_by_configuration_and_by_fallback() {
    for venv in ["TOOLWIRE_PY_MCP2", "TOOLWIRE_PY_MCP1"] {
        let port = free_port();
        let _server = python_sse(venv, port);
        let tools = ["add", "shout", "wait"];
        for http in [HttpServer::new(sse_url(port)).legacy_sse(), HttpServer::new(sse_url(port))] {
            let kind = http.kind;
            let text = use_server(http, "py", &tools, "add", json!({"a": 2, "b": 3})).await;
            assert!(text.contains("\n5\n"), "{venv} {kind:?}: {text}");
        }
        // Streamable HTTP only: the same URL refuses the POST, and nothing falls back.
        let only = HttpServer::new(sse_url(port)).kind(HttpTransportKind::StreamableHttp);
        let err = Client::connect(only, ClientOptions::new("py")).await.unwrap_err();
        assert_eq!(err.to_string(), "server 'py' answered HTTP 405", "{venv}");
    }
}

#[tokio::test]
async fn server_everything_in_sse_mode() {
    let port = free_port();
    let _server = start(
        Command::new(peer("TOOLWIRE_NODE22"))
            .arg(peer("TOOLWIRE_SERVER_EVERYTHING"))
            .arg("sse")
            .env("PORT", port.to_string()),
        port,
    );
    let tools = ["echo", "get-sum"];
    let text = use_server(
        HttpServer::new(sse_url(port)).legacy_sse(),
        "ev",
        &tools,
        "echo",
        json!({"message": "old"}),
    )
    .await;
    assert!(text.contains("\nEcho: old\n"), "{text}");
    let text =
        use_server(HttpServer::new(sse_url(port)), "ev", &tools, "get-sum", json!({"a": 2, "b": 40})).await;
    assert!(text.contains("42"), "{text}");

    // Talk both ways on the one stream: progress notifications, and a server's request
    // (sampling) answered with a POST, on a client in the `auto` era (its `server/discover`
    // probe refused too, then `initialize` falls back).
    let tasks = alive_tasks();
    let options = ClientOptions::new("ev")
        .era(EraMode::Auto)
        .on_sample(|_| async { Ok(CreateMessageResult::text("fake-model", "sunny")) });
    let client = Client::connect(HttpServer::new(sse_url(port)), options).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    let d = client.adopt(AdoptOptions::default().prefix("")).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let ctx = Context::builder()
        .progress(Arc::new(move |p: Progress| sink.lock().unwrap().push(p.progress)))
        .build();
    let args = json!({"duration": 1, "steps": 2});
    d.get("trigger-long-running-operation").unwrap().call_json(args, &ctx).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0]);
    let args = json!({"prompt": "rain?", "maxTokens": 50});
    let out = d.get("trigger-sampling-request").unwrap().call_json(args, &Context::new()).await.unwrap();
    assert!(out.joined_text().contains(r#""text": "sunny""#), "{}", out.joined_text());
    client.close().await;
    drop(d);
    assert_no_task_left(tasks).await;
}

#[tokio::test]
async fn typescript_v1_sse_server_transport_with_a_bearer() {
    let port = free_port();
    let _server = start(
        Command::new(peer("TOOLWIRE_NODE22"))
            .arg(fixture("client_sse_ts_v1.mjs"))
            .arg(port.to_string())
            .env("TOOLWIRE_NODE_MODULES", peer("TOOLWIRE_NODE_MODULES")),
        port,
    );
    // The fixture refuses every GET and POST without `Authorization: Bearer k1`.
    for http in [HttpServer::new(sse_url(port)).legacy_sse(), HttpServer::new(sse_url(port))] {
        let text = use_server(http.bearer("k1"), "ts", &["reverse"], "reverse", json!({"text": "abc"})).await;
        assert!(text.contains("\ncba\n"), "{text}");
    }
    let wrong = HttpServer::new(sse_url(port)).legacy_sse().bearer("k2");
    let err = Client::connect(wrong, ClientOptions::new("ts")).await.unwrap_err();
    assert_eq!(err, ClientError::Unauthorized { server: "ts".into(), status: 403 });
}

/// A tiny HTTP/1.1 server on 127.0.0.1: `GET` gets `get` (then the connection is held open),
/// anything else 405. Returns its port.
async fn scripted(get: &'static str) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else { return };
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                if head.starts_with(b"GET ") {
                    let _ = sock.write_all(get.as_bytes()).await;
                    tokio::time::sleep(Duration::from_secs(30)).await;
                } else {
                    let reply =
                        "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
                    let _ = sock.write_all(reply.as_bytes()).await;
                }
            });
        }
    });
    port
}

#[tokio::test]
async fn an_sse_stream_without_an_endpoint_event_or_without_sse() {
    let mute = scripted(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n: hello\n\nevent: ping\ndata: x\n\n",
    )
    .await;
    let url = sse_url(mute);
    for http in [HttpServer::new(&url).legacy_sse(), HttpServer::new(&url)] {
        let err = Client::connect(http.timeout(Duration::from_millis(500)), ClientOptions::new("mute"))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("server 'mute' sent no 'endpoint' event on its SSE stream at {url} within 0.5s")
        );
    }

    let json =
        scripted("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}").await;
    let url = sse_url(json);
    let err =
        Client::connect(HttpServer::new(&url).legacy_sse(), ClientOptions::new("plain")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "server 'plain' answered the GET for its SSE stream at {url} with 'application/json', not an SSE stream"
        )
    );
    // Falling back, the GET got no stream either: the POST's own answer is the error.
    let err = Client::connect(HttpServer::new(&url), ClientOptions::new("plain")).await.unwrap_err();
    assert_eq!(err.to_string(), "server 'plain' answered HTTP 405");
}

#[tokio::test]
async fn a_stream_that_dies_mid_call_leaves_the_outcome_unknown() {
    let tasks = alive_tasks();
    let port = free_port();
    let server = python_sse("TOOLWIRE_PY_MCP2", port);
    let client =
        Client::connect(HttpServer::new(sse_url(port)).legacy_sse(), ClientOptions::new("py")).await.unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let wait = d.get("wait").unwrap().clone();
    let call = tokio::spawn(async move { wait.call_json(json!({"seconds": 30}), &Context::new()).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(server);
    let err = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("a dead stream must not hang the call")
        .unwrap()
        .unwrap_err();
    let url = sse_url(port);
    assert_eq!(
        err.to_string(),
        format!(
            "the outcome of tool 'py__wait' is unknown: the call was cut off (server 'py' closed its SSE stream at \
             {url}); it may have run, and it must not be re-run"
        )
    );
    // The connection is over: a later call is not sent.
    let err = d.get("add").unwrap().call_json(json!({"a": 1, "b": 2}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("tool 'py__add' is unavailable: server 'py' closed its SSE stream at {url}")
    );
    client.close().await;
    drop(d);
    assert_no_task_left(tasks).await;
}
