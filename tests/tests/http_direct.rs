//! toolwire's own listener answers `POST /mcp` without axum's router (`transport::http`'s
//! `direct`): the same bytes as the router gives, on real sockets. Every kind of POST the
//! endpoint answers (a legacy session's start, a modern call, each refusal before the
//! engine) goes to both, `mcp_router` on `axum::serve` and `serve_registry`'s listener, and
//! the answers must match in status, headers and body (the date and a new session's id
//! aside, and the headers' order); so must what the router alone answers on the listener
//! (another path or method).

use std::net::SocketAddr;

use toolwire::http::{Auth, HttpConfig, mcp_router};
use toolwire::spec::SpecOptions;
use toolwire::{Server, ServerOptions, ToolRegistry, serve_registry, tool, tools};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn registry() -> ToolRegistry {
    tools![echo].unwrap()
}

fn config() -> HttpConfig {
    HttpConfig::new(Auth::None).max_body(512)
}

const OPTIONS: (&str, &str) = ("direct", "1.0.0");

/// A response as compared: status, headers (the date and a session id's value masked;
/// sorted, as the order of different fields means nothing, RFC 9110 §5.3, and hyper writes
/// `Content-Length` last where the router puts it among the others), body.
fn seen(r: &RawResponse) -> (u16, Vec<(String, String)>, String) {
    let mut headers: Vec<(String, String)> = r
        .headers
        .iter()
        .map(|(k, v)| match k.as_str() {
            "date" | "mcp-session-id" => (k.clone(), "…".to_owned()),
            _ => (k.clone(), v.clone()),
        })
        .collect();
    headers.sort();
    (r.status, headers, r.body.clone())
}

/// A modern request's headers, for `method` (and the tool or other item it names).
fn modern(
    method: &'static str,
    name: Option<&'static str>,
) -> impl Fn(SocketAddr) -> Vec<(String, String)> + Send {
    move |addr| {
        let mut h = mcp_headers(addr);
        h.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
        h.push(("Mcp-Method".into(), method.into()));
        if let Some(name) = name {
            h.push(("Mcp-Name".into(), name.into()));
        }
        h
    }
}

/// A well-behaved client's headers with `name` set to `value` instead.
fn with(name: &'static str, value: &'static str) -> impl Fn(SocketAddr) -> Vec<(String, String)> + Send {
    move |addr| {
        let mut h: Vec<(String, String)> =
            mcp_headers(addr).into_iter().filter(|(k, _)| !k.eq_ignore_ascii_case(name)).collect();
        h.push((name.into(), value.into()));
        h
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listener_answers_every_post_as_the_router_does() {
    let (name, version) = OPTIONS;
    let routed = {
        let app = mcp_router(Server::new(registry(), ServerOptions::new(name, version)), config());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        addr
    };
    let options = SpecOptions::http().http_config(config());
    let mut spec = serve_registry(Server::new(registry(), ServerOptions::new(name, version)), options)
        .expect("serve_registry");
    spec.start().expect("the listener starts");
    let direct = spec.local_addr().expect("an HTTP listener");

    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}}"#
    );
    let bad_call = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":3}},{meta}}}}}"#
    );
    let list = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{{{meta}}}}}"#);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let legacy_call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    type Headers = Box<dyn Fn(SocketAddr) -> Vec<(String, String)> + Send>;
    let big = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","pad":"{}"}}"#, "x".repeat(600));
    let cases: Vec<(&str, &str, &str, Headers, String)> = vec![
        ("a modern tools/call", "POST", "/mcp", Box::new(modern("tools/call", Some("echo"))), call.clone()),
        (
            "a modern call with a bad argument",
            "POST",
            "/mcp",
            Box::new(modern("tools/call", Some("echo"))),
            bad_call,
        ),
        (
            "a modern tools/list, a query after the path",
            "POST",
            "/mcp?x=1",
            Box::new(modern("tools/list", None)),
            list,
        ),
        (
            "a modern call whose Mcp-Name is another tool's",
            "POST",
            "/mcp",
            Box::new(modern("tools/call", Some("other"))),
            call,
        ),
        ("a legacy initialize", "POST", "/mcp", Box::new(mcp_headers), init.to_owned()),
        ("a legacy call without a session", "POST", "/mcp", Box::new(mcp_headers), legacy_call.to_owned()),
        (
            "a notification",
            "POST",
            "/mcp",
            Box::new(mcp_headers),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        ),
        (
            "an Accept without text/event-stream",
            "POST",
            "/mcp",
            Box::new(with("Accept", "application/json")),
            legacy_call.to_owned(),
        ),
        (
            "a text/plain body",
            "POST",
            "/mcp",
            Box::new(with("Content-Type", "text/plain")),
            legacy_call.to_owned(),
        ),
        ("a foreign Host", "POST", "/mcp", Box::new(with("Host", "evil.example")), legacy_call.to_owned()),
        ("a body over the limit", "POST", "/mcp", Box::new(mcp_headers), big),
        ("an empty body", "POST", "/mcp", Box::new(mcp_headers), String::new()),
        ("a body that is not JSON", "POST", "/mcp", Box::new(mcp_headers), "{".to_owned()),
        ("another path", "POST", "/mcp/", Box::new(mcp_headers), legacy_call.to_owned()),
        ("the path in capitals", "POST", "/MCP", Box::new(mcp_headers), legacy_call.to_owned()),
        ("another method", "PUT", "/mcp", Box::new(mcp_headers), legacy_call.to_owned()),
        ("a GET without a session", "GET", "/mcp", Box::new(mcp_headers), String::new()),
    ];
    for (what, method, path, headers, body) in cases {
        let answers = tokio::task::spawn_blocking(move || {
            [routed, direct].map(|addr| request(addr, method, path, &headers(addr), &body))
        })
        .await
        .unwrap();
        let [by_router, by_listener] = answers.each_ref().map(seen);
        assert_eq!(by_listener, by_router, "{what}");
    }
    spec.stop();
}
