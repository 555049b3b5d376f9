//! Every status-code rule of the loopback HTTP endpoint, on real sockets on 127.0.0.1.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::http::HttpConfig;
use toolwire::http::{Auth, BearerToken};
use toolwire::spec::SpecOptions;
use toolwire::{Context, McpServerSpec, serve_registry, tool, tools};
use toolwire::{Server, ServerOptions};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// Report progress, then finish.
#[tool(read_only)]
async fn progress(steps: u32, ctx: &Context) -> String {
    for i in 1..=steps {
        ctx.report_progress(f64::from(i), Some(f64::from(steps)), None);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    format!("done {steps} steps")
}

/// The spec's own default, said explicitly: a bearer token generated for this server.
fn token() -> Auth {
    Auth::Bearer(BearerToken::generate())
}

fn spec(options: SpecOptions) -> McpServerSpec {
    let server = Server::new(tools![echo, progress].unwrap(), ServerOptions::new("engine", "0.1.0"));
    let mut spec = serve_registry(server, options).unwrap();
    spec.start().unwrap();
    spec
}

async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: Vec<(String, String)>,
    body: &str,
) -> RawResponse {
    let (method, path, body) = (method.to_owned(), path.to_owned(), body.to_owned());
    tokio::task::spawn_blocking(move || request(addr, &method, &path, &headers, &body)).await.unwrap()
}

fn authed(spec: &McpServerSpec) -> Vec<(String, String)> {
    let mut h = mcp_headers(spec.local_addr().unwrap());
    h.extend(spec.auth_headers());
    h
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// `initialize` and `notifications/initialized`; the session id.
async fn open_session(spec: &McpServerSpec) -> String {
    let addr = spec.local_addr().unwrap();
    let r = send(addr, "POST", "/mcp", authed(spec), INIT).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-06-18");
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)), "visible ASCII: {id}");
    let mut h = authed(spec);
    h.push(("Mcp-Session-Id".into(), id.clone()));
    h.push(("MCP-Protocol-Version".into(), "2025-06-18".into()));
    let r = send(addr, "POST", "/mcp", h, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!((r.status, r.body.as_str()), (202, ""));
    id
}

fn with_session(spec: &McpServerSpec, id: &str) -> Vec<(String, String)> {
    let mut h = authed(spec);
    h.push(("Mcp-Session-Id".into(), id.to_owned()));
    h.push(("MCP-Protocol-Version".into(), "2025-06-18".into()));
    h
}

fn error_message(r: &RawResponse) -> String {
    r.json()["error"]["message"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_or_wrong_token_is_401_with_www_authenticate() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    let r = send(addr, "POST", "/mcp", mcp_headers(addr), INIT).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    assert_eq!(error_message(&r), "unauthorized: a valid bearer token is required");
    let mut h = mcp_headers(addr);
    h.push(("Authorization".into(), format!("Bearer {}", "A".repeat(43))));
    assert_eq!(send(addr, "POST", "/mcp", h, INIT).await.status, 401);
    assert_eq!(spec.calls_seen(), 0);
}

/// Host, Origin and the token come before anything else `/mcp` answers, whatever the method:
/// each handler admits the request first, and so does the 405 for a method it does not take.
/// The 404 for another path needs nothing.
#[tokio::test(flavor = "multi_thread")]
async fn every_method_on_mcp_is_guarded_then_authenticated_first() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    for method in ["POST", "GET", "DELETE", "PUT", "PATCH"] {
        let r = send(addr, method, "/mcp", mcp_headers(addr), "").await;
        assert_eq!(r.status, 401, "{method} without a token");
        assert_eq!(r.header("www-authenticate"), Some("Bearer"), "{method}");
        assert_eq!(error_message(&r), "unauthorized: a valid bearer token is required", "{method}");
        let mut h = mcp_headers(addr);
        h[0] = ("Host".into(), "attacker.example".into());
        let r = send(addr, method, "/mcp", h, "").await;
        assert_eq!(r.status, 403, "{method} with a foreign Host, before the token");
        assert_eq!(
            error_message(&r),
            "forbidden: the Host header is not a loopback name or an allowed host",
            "{method}"
        );
    }
    let r = send(addr, "PUT", "/mcp", authed(&spec), "").await;
    assert_eq!(r.status, 405, "admitted, then refused for its method");
    assert_eq!(r.header("allow"), Some("POST, GET, DELETE"));
    let r = send(addr, "GET", "/other", mcp_headers(addr), "").await;
    assert_eq!((r.status, error_message(&r).as_str()), (404, "not found: the MCP endpoint is /mcp"));
    assert_eq!(spec.calls_seen(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn foreign_origin_is_403_and_loopback_origin_passes() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    let mut h = authed(&spec);
    h.push(("Origin".into(), "https://evil.example".into()));
    let r = send(addr, "POST", "/mcp", h, INIT).await;
    assert_eq!(r.status, 403);
    assert_eq!(error_message(&r), "forbidden: the Origin header is not allowed");
    // Refused before auth: no token needed to learn nothing.
    let mut h = mcp_headers(addr);
    h.push(("Origin".into(), "https://evil.example".into()));
    assert_eq!(send(addr, "POST", "/mcp", h, INIT).await.status, 403);
    let mut h = authed(&spec);
    h.push(("Origin".into(), format!("http://localhost:{}", addr.port())));
    assert_eq!(send(addr, "POST", "/mcp", h, INIT).await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn host_must_be_loopback_or_allowed() {
    let spec = spec(SpecOptions::http().http_config(HttpConfig::new(token()).allow_host("tools.internal")));
    let addr = spec.local_addr().unwrap();
    let mut h = authed(&spec);
    h[0] = ("Host".into(), "attacker.example".into());
    let r = send(addr, "POST", "/mcp", h.clone(), INIT).await;
    assert_eq!(r.status, 403);
    assert_eq!(error_message(&r), "forbidden: the Host header is not a loopback name or an allowed host");
    h[0] = ("Host".into(), format!("localhost:{}", addr.port()));
    assert_eq!(send(addr, "POST", "/mcp", h.clone(), INIT).await.status, 200);
    h[0] = ("Host".into(), "tools.internal".into());
    assert_eq!(send(addr, "POST", "/mcp", h, INIT).await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn accept_content_type_path_method_and_size_rules() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    let mut h = authed(&spec);
    h[1] = ("Accept".into(), "application/json".into());
    let r = send(addr, "POST", "/mcp", h, INIT).await;
    assert_eq!(r.status, 406);
    assert_eq!(
        error_message(&r),
        "not acceptable: the Accept header must name both application/json and text/event-stream"
    );
    let mut h = authed(&spec);
    h[2] = ("Content-Type".into(), "text/plain".into());
    assert_eq!(send(addr, "POST", "/mcp", h, INIT).await.status, 415);
    let r = send(addr, "POST", "/other", authed(&spec), INIT).await;
    assert_eq!((r.status, error_message(&r).as_str()), (404, "not found: the MCP endpoint is /mcp"));
    // GET is a legacy session's stream (tests/tests/live_registry.rs): without a session it
    // is refused as a POST is; in 2026-07-28 there is no GET stream at all.
    let r = send(addr, "GET", "/mcp", authed(&spec), "").await;
    assert_eq!(r.status, 400);
    assert_eq!(error_message(&r), "bad request: missing Mcp-Session-Id header; send initialize first");
    let mut h = authed(&spec);
    h.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    let r = send(addr, "GET", "/mcp", h, "").await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST, DELETE"));
    assert_eq!(
        error_message(&r),
        "method not allowed: 2026-07-28 has no GET stream; send subscriptions/listen"
    );
    let big =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(5 << 20));
    let r = send(addr, "POST", "/mcp", authed(&spec), &big).await;
    assert_eq!(r.status, 413);
    assert_eq!(error_message(&r), "payload too large: the body is over the 4194304-byte limit");
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_sessions_400_404_delete_and_calls() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    let r = send(addr, "POST", "/mcp", authed(&spec), call).await;
    assert_eq!(r.status, 400);
    assert_eq!(error_message(&r), "bad request: missing Mcp-Session-Id header; send initialize first");
    let mut h = authed(&spec);
    h.push(("Mcp-Session-Id".into(), "nope".into()));
    let r = send(addr, "POST", "/mcp", h, call).await;
    assert_eq!(r.status, 404);

    let id = open_session(&spec).await;
    let r = send(addr, "POST", "/mcp", with_session(&spec, &id), call).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json(),
        json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}})
    );
    let mut h = with_session(&spec, &id);
    h.retain(|(k, _)| k != "MCP-Protocol-Version");
    h.push(("MCP-Protocol-Version".into(), "1999-01-01".into()));
    let r = send(addr, "POST", "/mcp", h, call).await;
    assert_eq!(r.status, 400);
    assert!(
        error_message(&r).starts_with("bad request: unsupported MCP-Protocol-Version; supported: "),
        "{}",
        r.body
    );

    let r = send(addr, "DELETE", "/mcp", with_session(&spec, &id), "").await;
    assert_eq!(r.status, 204);
    let r = send(addr, "POST", "/mcp", with_session(&spec, &id), call).await;
    assert_eq!(r.status, 404, "an ended session is gone");
    assert_eq!(send(addr, "DELETE", "/mcp", with_session(&spec, &id), "").await.status, 404);
    assert_eq!(send(addr, "DELETE", "/mcp", authed(&spec), "").await.status, 400);
    assert_eq!(spec.calls_seen(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_streams_as_sse_and_ends_with_the_response() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    let id = open_session(&spec).await;
    let call = r#"{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":"tok"}}}"#;
    let r = send(addr, "POST", "/mcp", with_session(&spec, &id), call).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = r.sse_events();
    assert_eq!(events.len(), 4, "{}", r.body);
    for (i, e) in events[..3].iter().enumerate() {
        assert_eq!(e["method"], "notifications/progress");
        assert_eq!(e["params"]["progressToken"], "tok");
        assert_eq!(e["params"]["progress"].as_f64(), Some((i + 1) as f64));
    }
    assert_eq!(events[3]["id"], "p");
    assert_eq!(events[3]["result"]["content"][0]["text"], "done 3 steps");
    // Without a progress token the same call is plain JSON.
    let call = r#"{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"progress","arguments":{"steps":2}}}"#;
    let r = send(addr, "POST", "/mcp", with_session(&spec, &id), call).await;
    assert_eq!(r.header("content-type"), Some("application/json"));
}

fn modern_headers(spec: &McpServerSpec, method: &str, name: Option<&str>) -> Vec<(String, String)> {
    let mut h = authed(spec);
    h.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    h.push(("Mcp-Method".into(), method.into()));
    if let Some(n) = name {
        h.push(("Mcp-Name".into(), n.into()));
    }
    h
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[tokio::test(flavor = "multi_thread")]
async fn modern_stateless_requests_and_header_checks() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    let discover = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#);
    let r = send(addr, "POST", "/mcp", modern_headers(&spec, "server/discover", None), &discover).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.header("mcp-session-id").is_none(), "the modern era has no sessions");
    assert_eq!(r.json()["result"]["resultType"], "complete");

    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"m"}},{META}}}}}"#
    );
    let r = send(addr, "POST", "/mcp", modern_headers(&spec, "tools/call", Some("echo")), &call).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "m");

    let r = send(addr, "POST", "/mcp", modern_headers(&spec, "tools/call", Some("other")), &call).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], json!(-32020));
    assert_eq!(error_message(&r), "header mismatch: Mcp-Name is 'other' but the body names 'echo'");
    let r = send(addr, "POST", "/mcp", modern_headers(&spec, "tools/list", None), &call).await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32020)));
    let mut h = modern_headers(&spec, "x", None);
    h.retain(|(k, _)| k != "Mcp-Method");
    let r = send(addr, "POST", "/mcp", h, &call).await;
    assert_eq!(
        error_message(&r),
        "header mismatch: the Mcp-Method header is missing; the body's method is 'tools/call'"
    );

    let unknown = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"no/such","params":{{{META}}}}}"#);
    let r = send(addr, "POST", "/mcp", modern_headers(&spec, "no/such", None), &unknown).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["code"], json!(-32601));
}

#[tokio::test(flavor = "multi_thread")]
async fn notifications_and_responses_get_202_and_bad_json_400() {
    let spec = spec(SpecOptions::http());
    let addr = spec.local_addr().unwrap();
    let id = open_session(&spec).await;
    let r =
        send(addr, "POST", "/mcp", with_session(&spec, &id), r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#)
            .await;
    assert_eq!((r.status, r.body.as_str()), (202, ""));
    let r = send(addr, "POST", "/mcp", with_session(&spec, &id), "{not json").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], json!(-32700));
}

#[tokio::test(flavor = "multi_thread")]
async fn stateless_mode_issues_no_session_and_serves_each_request() {
    let spec = spec(SpecOptions::http().http_config(HttpConfig::new(token()).stateless(true)));
    let addr = spec.local_addr().unwrap();
    let r = send(addr, "POST", "/mcp", authed(&spec), INIT).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_none());
    let call =
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"s"}}}"#;
    let mut h = authed(&spec);
    h.push(("MCP-Protocol-Version".into(), "2025-06-18".into()));
    let r = send(addr, "POST", "/mcp", h, call).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "s");
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_none_must_be_asked_for_and_then_needs_no_header() {
    let spec = spec(SpecOptions::http().http_config(HttpConfig::new(Auth::None)));
    assert!(spec.auth_headers().is_empty());
    let addr = spec.local_addr().unwrap();
    let r = send(addr, "POST", "/mcp", mcp_headers(addr), INIT).await;
    assert_eq!(r.status, 200);
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(spec.config_path()).unwrap()).unwrap();
    assert!(cfg["mcpServers"]["engine"].get("headers").is_none());
}
