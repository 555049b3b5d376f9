//! The client against toolwire's own server: the example server binary over stdio, and
//! `serve_registry()` over loopback HTTP with its bearer token. A remote toolwire tool keeps
//! its declarations, and the client's local validation says exactly what the server would.

mod client_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use client_support::assert_gone;
use serde_json::json;
use toolwire::ServerOptions;
use toolwire::client::{
    AdoptOptions, Approval, CallOptions, Client, ClientOptions, Delivery, HttpServer, StdioServer,
};
use toolwire::context::Progress;
use toolwire::spec::SpecOptions;
use toolwire::tool::RemoteError;
use toolwire::{Content, Context, Tool, ToolError, serve_registry};
use toolwire_tests::example_server::example_server;

#[tokio::test]
async fn the_example_server_over_stdio() {
    let server = StdioServer::new(example_server());
    let client = Client::connect(server, ClientOptions::new("example").era(toolwire::client::EraMode::Auto))
        .await
        .unwrap();
    // toolwire serves both eras on one stdio process: auto picks the modern one.
    assert_eq!(client.server_info().protocol_version, "2026-07-28");
    let d = client.adopt(AdoptOptions::default().prefix("").approval(Approval::Destructive)).await.unwrap();
    assert!(d.rejected().is_empty(), "{:?}", d.rejected());
    let run_check = d.get("run_check").unwrap();
    assert_eq!(
        (run_check.delivery(), run_check.info().declarations().requires_approval),
        (Delivery::AtLeastOnce, false)
    );
    let deploy = d.get("deploy").unwrap();
    assert_eq!(
        (deploy.delivery(), deploy.info().declarations().requires_approval),
        (Delivery::AtMostOnce, true)
    );

    // The local rejection is the server's own rejection, word for word.
    let local =
        run_check.call_json(json!({"name": "lint", "verbose": true}), &Context::new()).await.unwrap_err();
    let remote = client
        .call_tool("run_check", json!({"name": "lint", "verbose": true}), CallOptions::default())
        .await
        .unwrap();
    assert!(remote.is_error);
    assert_eq!(remote.content, [Content::text(local.to_string())]);
    assert_eq!(
        local.to_string(),
        "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"
    );

    let sum = d.get("add").unwrap().call_json(json!({"a": 2, "b": 3}), &Context::new()).await.unwrap();
    assert_eq!(
        sum.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"example\" tool=\"add\">\n{\"sum\":5}\n</untrusted-data>"
    );

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink_seen = Arc::clone(&seen);
    let ctx = Context::builder()
        .progress(Arc::new(move |p: Progress| sink_seen.lock().unwrap().push(p.progress)))
        .build();
    d.get("progress").unwrap().call_json(json!({"steps": 3}), &ctx).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);

    let err =
        d.get("fail").unwrap().call_json(json!({"message": "boom"}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'fail' failed on server 'example'; its report is in the untrusted-data envelope"
    );

    let timed =
        client.adopt(AdoptOptions::default().prefix("").timeout(Duration::from_millis(100))).await.unwrap();
    let err = timed.get("slow").unwrap().call_json(json!({"ms": 5000}), &Context::new()).await.unwrap_err();
    assert!(matches!(err, ToolError::Remote(RemoteError::TimedOut { .. })), "{err:?}");
    // The server dropped the cancelled call and keeps serving.
    let out =
        timed.get("echo").unwrap().call_json(json!({"text": "still here"}), &Context::new()).await.unwrap();
    assert!(out.joined_text().contains("\nstill here\n"));

    let pid = client.pid().unwrap();
    client.close().await;
    assert_gone(pid).await;
}

#[tokio::test]
async fn serve_registry_over_loopback_http_with_its_bearer_token() {
    let registry = toolwire_examples::example_tools::registry().unwrap();
    let mut spec =
        serve_registry(registry, SpecOptions::http(ServerOptions::new("engine", "0.1.0"))).unwrap();
    spec.start().unwrap();
    let url = spec.url().unwrap().to_owned();

    // Without the token: refused, and reported as unreachable-by-status, not as a tool error.
    let err = Client::connect(HttpServer::new(&url), ClientOptions::new("engine")).await.unwrap_err();
    assert_eq!(err.to_string(), "server 'engine' answered HTTP 401: the credentials were refused");

    let mut http = HttpServer::new(&url);
    for (k, v) in spec.auth_headers() {
        http = http.header(k, v);
    }
    for era in [toolwire::client::EraMode::Legacy, toolwire::client::EraMode::Auto] {
        let client = Client::connect(http.clone(), ClientOptions::new("engine").era(era)).await.unwrap();
        let want = if era == toolwire::client::EraMode::Legacy { "2025-11-25" } else { "2026-07-28" };
        assert_eq!(client.server_info().protocol_version, want);
        let d = client.adopt(AdoptOptions::default()).await.unwrap();
        let out =
            d.get("engine__echo").unwrap().call_json(json!({"text": "hi"}), &Context::new()).await.unwrap();
        assert_eq!(
            out.joined_text(),
            "<untrusted-data source=\"mcp\" server=\"engine\" tool=\"engine__echo\">\nhi\n</untrusted-data>"
        );
        client.close().await;
    }
    spec.stop();
}
