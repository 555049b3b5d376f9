//! What the client refuses, over real sockets on 127.0.0.1: credentials a server refuses
//! (401 from toolwire's own server with a wrong token, 403 from a tiny axum server), an
//! endpoint that is not there (404), and tools adoption cannot hold (no name, no
//! `inputSchema`, a `pattern` that is not a regex, a huge description). Each error's exact
//! text is asserted, and that it is not retryable.

use std::net::SocketAddr;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::client::{AdoptOptions, Client, ClientError, ClientOptions, HttpServer, RejectReason};
use toolwire::spec::SpecOptions;
use toolwire::{Tool, serve_registry};

/// Serve `router` on a free loopback port.
async fn serve(router: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

#[tokio::test]
async fn a_wrong_token_is_refused_credentials_not_a_dead_server() {
    let registry = toolwire_examples::example_tools::registry().unwrap();
    let mut spec =
        serve_registry(Server::new(registry, ServerOptions::new("engine", "0.1.0")), SpecOptions::http())
            .unwrap();
    spec.start().unwrap();
    let url = spec.url().unwrap().to_owned();
    let http = HttpServer::new(&url).header("Authorization", "Bearer not-the-token");
    let err = Client::connect(http, ClientOptions::new("engine")).await.unwrap_err();
    assert_eq!(err, ClientError::Unauthorized { server: "engine".into(), status: 401 });
    assert_eq!(err.to_string(), "server 'engine' answered HTTP 401: the credentials were refused");
    assert!(!err.is_retryable());
    spec.stop();
}

#[tokio::test]
async fn a_forbidding_server_is_refused_credentials() {
    let addr = serve(Router::new().route("/mcp", post(|| async { StatusCode::FORBIDDEN }))).await;
    let err = Client::connect(HttpServer::new(format!("http://{addr}/mcp")), ClientOptions::new("walled"))
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::Unauthorized { server: "walled".into(), status: 403 });
    assert_eq!(err.to_string(), "server 'walled' answered HTTP 403: the credentials were refused");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn an_endpoint_that_is_not_there_says_http_404() {
    let addr = serve(Router::new().route("/mcp", post(|| async { StatusCode::OK }))).await;
    let err = Client::connect(HttpServer::new(format!("http://{addr}/not-mcp")), ClientOptions::new("lost"))
        .await
        .unwrap_err();
    assert_eq!(err, ClientError::HttpStatus { server: "lost".into(), status: 404 });
    assert_eq!(err.to_string(), "server 'lost' answered HTTP 404");
    assert!(!err.is_retryable());
}

const JSON: [(axum::http::header::HeaderName, &str); 1] =
    [(axum::http::header::CONTENT_TYPE, "application/json")];

/// A legacy server listing `tools`, answering nothing else.
async fn listing(tools: Value) -> SocketAddr {
    let answer = move |body: String| {
        let tools = tools.clone();
        async move {
            let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let id = body.get("id").cloned();
            let result = match body.get("method").and_then(Value::as_str) {
                Some("initialize") => json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "odd", "version": "0"},
                }),
                Some("tools/list") => json!({ "tools": tools }),
                _ if id.is_none() => return (StatusCode::ACCEPTED, JSON, String::new()),
                _ => json!({}),
            };
            (StatusCode::OK, JSON, json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
        }
    };
    serve(Router::new().route("/mcp", post(answer))).await
}

#[tokio::test]
async fn adoption_refuses_what_it_cannot_hold_and_accounts_for_every_tool() {
    let object = json!({"type": "object"});
    let tools = json!([
        {"name": "", "inputSchema": object},
        {"inputSchema": object},
        {"name": "schemaless"},
        {"name": "bad_pattern", "inputSchema":
            {"type": "object", "properties": {"id": {"type": "string", "pattern": "([0-9]"}}}},
        {"name": "wordy", "description": "x".repeat(1_000_000), "inputSchema": object},
        {"name": "fine", "description": "Fine.", "inputSchema": object},
        {"name": "local", "inputSchema": object},
        "not even an object",
    ]);
    let listed = tools.as_array().unwrap().len();
    let addr = listing(tools).await;
    let client = Client::connect(HttpServer::new(format!("http://{addr}/mcp")), ClientOptions::new("odd"))
        .await
        .unwrap();
    let d = client.adopt(AdoptOptions::new().prefix("").known(["local"])).await.unwrap();
    assert_eq!(d.tools().len() + d.rejected().len(), listed, "{:?}", d.rejected());
    let adopted: Vec<_> = d.tools().iter().map(|t| t.info().name().to_owned()).collect();
    assert_eq!(adopted, ["wordy", "fine"]);
    let report: Vec<String> = d.rejected().iter().map(ToString::to_string).collect();
    assert_eq!(
        report,
        [
            "'': the server gave it no name",
            "'': the server gave it no name",
            "'schemaless': the server gave it no inputSchema",
            "'bad_pattern': server 'odd' tool 'bad_pattern': input schema refused: the pattern at \
             '/properties/id/pattern' is not a valid regex",
            "'local': a local tool is already named 'local'",
            "'': the server gave it no name",
        ]
    );
    assert!(matches!(d.rejected()[2].reason, RejectReason::NoInputSchema));
    assert_eq!(d.conflicts(), ["local"]);
    // The adopted set makes a registry (a nameless tool would have broken it).
    assert_eq!(d.registry().unwrap().len(), 2);
    // The description is bounded, with a marker, as results are.
    let wordy = d.get("wordy").unwrap().info().description().to_owned();
    assert_eq!(
        wordy.len(),
        toolwire::client::DEFAULT_MAX_DESCRIPTION_BYTES + "\n[truncated: 8192 of 1000000 bytes shown]".len()
    );
    assert!(wordy.ends_with("\n[truncated: 8192 of 1000000 bytes shown]"), "{}", &wordy[8000..]);
    let d = client.adopt(AdoptOptions::new().prefix("").max_description_bytes(10)).await.unwrap();
    assert_eq!(
        d.get("wordy").unwrap().info().description(),
        "xxxxxxxxxx\n[truncated: 10 of 1000000 bytes shown]"
    );
    assert_eq!(d.get("fine").unwrap().info().description(), "Fine.");
    client.close().await;
}
