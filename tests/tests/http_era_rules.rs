//! HTTP rules the endpoint got wrong, one test each, on real sockets on 127.0.0.1. First
//! what the official conformance suite (0.2.0-alpha.12, `server-stateless`) showed:
//!
//! - an unsupported `MCP-Protocol-Version` is a full `UnsupportedProtocolVersionError`:
//!   the request's id, and `data.supported` / `data.requested`;
//! - `MCP-Protocol-Version` must say what `_meta` says (400, -32020);
//! - a modern request whose `_meta` lacks its required keys is 400, not 200;
//! - `initialize` and `ping` in the modern era are 404 with -32601 (and `initialize` no
//!   longer makes a legacy session out of a modern request);
//! - errors the transport answers itself, once it has read the body, carry the request's id;
//!
//! and what real clients and the spec's modern rules showed next:
//!
//! - modern requests are stateless, so two with the same id at once are both served;
//! - a modern client hanging up cancels its call (legacy ones do not);
//! - `Mcp-Param-*` headers (`x-mcp-header`) must agree with the body;
//! - an `Mcp-Session-Id` on a modern request is ignored.

use std::net::SocketAddr;

use serde_json::{Value, json};
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::spec::SpecOptions;
use toolwire::{McpServerSpec, serve_registry, tool, tools};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn spec() -> McpServerSpec {
    let mut spec = serve_registry(
        Server::new(tools![echo].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap();
    spec.start().unwrap();
    spec
}

async fn post(addr: SocketAddr, headers: Vec<(String, String)>, body: String) -> RawResponse {
    tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &headers, &body)).await.unwrap()
}

/// Authorised POST headers plus `extra`.
fn headers(spec: &McpServerSpec, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut h = mcp_headers(spec.local_addr().unwrap());
    h.extend(spec.auth_headers());
    h.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    h
}

const CAPS: &str = r#""io.modelcontextprotocol/clientCapabilities":{}"#;

fn meta(version: &str) -> String {
    format!(r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}",{CAPS}}}"#)
}

fn request_body(id: Value, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#)
}

#[tokio::test(flavor = "multi_thread")]
async fn unsupported_version_header_is_a_full_unsupported_version_error() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    let body = request_body(json!(301), "server/discover", &meta("v999.0.0"));
    let r = post(
        addr,
        headers(&spec, &[("MCP-Protocol-Version", "v999.0.0"), ("Mcp-Method", "server/discover")]),
        body,
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        json!({"jsonrpc":"2.0","id":301,"error":{
            "code":-32022,
            "message":"bad request: unsupported MCP-Protocol-Version; supported: 2026-07-28; got \"v999.0.0\"",
            "data":{"supported":["2026-07-28"],"requested":"v999.0.0"}}})
    );
    // What it lists is what server/discover lists.
    let discover = request_body(json!(1), "server/discover", &meta("2026-07-28"));
    let d = post(
        addr,
        headers(&spec, &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "server/discover")]),
        discover,
    )
    .await;
    assert_eq!(d.json()["result"]["supportedVersions"], json!(["2026-07-28"]));

    // A legacy-style request (no `_meta` version) is told the handshake versions.
    let ping = r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#.to_owned();
    let r = post(addr, headers(&spec, &[("MCP-Protocol-Version", "1999-01-01")]), ping).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["id"], "p");
    assert_eq!(
        r.json()["error"]["data"],
        json!({"supported":["2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1999-01-01"})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn version_header_must_match_meta() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    let body = request_body(json!(302), "server/discover", &meta("v999.0.0"));
    let r = post(
        addr,
        headers(&spec, &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "server/discover")]),
        body,
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        json!({"jsonrpc":"2.0","id":302,"error":{"code":-32020,
            "message":"header mismatch: MCP-Protocol-Version is '2026-07-28' but the body's _meta says 'v999.0.0'"}})
    );
    // A modern body without the version header is a mismatch too: the header is required.
    let body = request_body(json!(303), "tools/list", &meta("2026-07-28"));
    let r = post(addr, headers(&spec, &[("Mcp-Method", "tools/list")]), body).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["id"], 303);
    assert_eq!(r.json()["error"]["code"], -32020);
    assert_eq!(
        r.json()["error"]["message"],
        "header mismatch: the MCP-Protocol-Version header is missing; the body's _meta says '2026-07-28'"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn modern_request_with_incomplete_meta_is_400_invalid_params() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    let modern = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "server/discover")];
    let no_version = format!(r#""_meta":{{{CAPS}}}"#);
    let no_caps = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
    for (id, params) in [(101, ""), (102, no_version.as_str()), (104, no_caps)] {
        let r = post(addr, headers(&spec, &modern), request_body(json!(id), "server/discover", params)).await;
        assert_eq!(r.status, 400, "{params}: {}", r.body);
        assert_eq!(r.json()["id"], id);
        assert_eq!(r.json()["error"]["code"], -32602, "{}", r.body);
    }
    // Other -32602s (an unknown tool) are still answered with 200: only the envelope is 400.
    let call = request_body(json!(5), "tools/call", &format!(r#""name":"nope",{}"#, meta("2026-07-28")));
    let r = post(
        addr,
        headers(
            &spec,
            &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "nope")],
        ),
        call,
    )
    .await;
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (200, json!(-32602)), "{}", r.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn initialize_and_ping_are_404_in_the_modern_era() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    for method in ["initialize", "ping"] {
        let r = post(
            addr,
            headers(&spec, &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)]),
            request_body(json!(500), method, &meta("2026-07-28")),
        )
        .await;
        assert_eq!(r.status, 404, "{method}: {}", r.body);
        assert!(r.header("mcp-session-id").is_none(), "no legacy session is made");
        let v = r.json();
        assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!(500), json!(-32601)));
        assert_eq!(
            v["error"]["message"],
            format!(
                "method '{method}' not found: 2026-07-28 has no handshake and no ping; send server/discover, or initialize without the 2026-07-28 MCP-Protocol-Version header for a legacy session"
            )
        );
    }
    // The shared modern session was not turned into a legacy one: a legacy-looking
    // tools/list without a session is still refused, and modern requests still work.
    let r = post(
        addr,
        headers(&spec, &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")]),
        request_body(json!(7), "tools/list", &meta("2026-07-28")),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["tools"][0]["name"], "echo");
    // And the legacy handshake still works without the modern header.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = post(addr, headers(&spec, &[]), init.to_owned()).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn transport_errors_after_reading_the_body_carry_the_id() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    let call = r#"{"jsonrpc":"2.0","id":"c-9","method":"tools/list"}"#.to_owned();
    let r = post(addr, headers(&spec, &[]), call.clone()).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        json!({"jsonrpc":"2.0","id":"c-9","error":{"code":-32600,
            "message":"bad request: missing Mcp-Session-Id header; send initialize first"}})
    );
    let r = post(addr, headers(&spec, &[("Mcp-Session-Id", "gone")]), call).await;
    assert_eq!((r.status, r.json()["id"].clone()), (404, json!("c-9")));
    let mismatch = request_body(json!(8), "tools/list", &meta("2026-07-28"));
    let r = post(
        addr,
        headers(&spec, &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")]),
        mismatch,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["id"].clone(), r.json()["error"]["code"].clone()),
        (400, json!(8), json!(-32020))
    );
}

/// Sleep for `ms` milliseconds, reporting progress every 20 ms; records `ms` in `NAPS_DROPPED`
/// if its future is dropped before it finishes, and in `NAPS_DONE` if it finishes.
#[tool(read_only)]
async fn nap(ms: u64, ctx: &toolwire::Context) -> String {
    struct Dropped(u64);
    impl Drop for Dropped {
        fn drop(&mut self) {
            NAPS_DROPPED.lock().unwrap().push(self.0);
        }
    }
    let guard = Dropped(ms);
    let start = std::time::Instant::now();
    let mut step = 0.0;
    while start.elapsed() < std::time::Duration::from_millis(ms) {
        step += 1.0;
        ctx.report_progress(step, None, None);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    std::mem::forget(guard);
    NAPS_DONE.lock().unwrap().push(ms);
    format!("napped {ms}ms")
}

static NAPS_DROPPED: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());
static NAPS_DONE: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

/// Wait up to 5 s for `ms` to show up in `list`.
async fn shows_up(list: &std::sync::Mutex<Vec<u64>>, ms: u64) -> bool {
    for _ in 0..250 {
        if list.lock().unwrap().contains(&ms) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    false
}

/// Send a POST and hang up after `after`, without reading the answer.
async fn post_and_hang_up(
    addr: SocketAddr,
    headers: Vec<(String, String)>,
    body: String,
    after: std::time::Duration,
) {
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        let mut head = String::from("POST /mcp HTTP/1.1\r\n");
        for (k, v) in &headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        std::thread::sleep(after);
        let _ = stream.shutdown(std::net::Shutdown::Both);
    })
    .await
    .unwrap();
}

fn nap_spec() -> McpServerSpec {
    let mut spec = serve_registry(
        Server::new(tools![echo, nap].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap();
    spec.start().unwrap();
    spec
}

fn modern_call(id: Value, tool: &str, args: &str) -> String {
    request_body(id, "tools/call", &format!(r#""name":"{tool}","arguments":{args},{}"#, meta("2026-07-28")))
}

fn modern_call_headers(spec: &McpServerSpec, tool: &str) -> Vec<(String, String)> {
    headers(spec, &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", tool)])
}

/// Modern requests are stateless: two clients that happen to use the same request id at
/// the same time are two unrelated requests, and both are served.
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_modern_requests_with_the_same_id_are_both_served() {
    let spec = nap_spec();
    let addr = spec.local_addr().unwrap();
    let a = post(addr, modern_call_headers(&spec, "nap"), modern_call(json!(1), "nap", r#"{"ms":300}"#));
    let b = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        post(addr, modern_call_headers(&spec, "nap"), modern_call(json!(1), "nap", r#"{"ms":10}"#)).await
    };
    let (a, b) = tokio::join!(a, b);
    assert_eq!((a.status, b.status), (200, 200), "{}\n{}", a.body, b.body);
    assert_eq!(a.json()["result"]["content"][0]["text"], "napped 300ms", "{}", a.body);
    assert_eq!(b.json()["result"]["content"][0]["text"], "napped 10ms", "{}", b.body);
}

/// 2026-07-28: closing the response stream cancels the request. Both ways an answer
/// travels: plain JSON (no progress token), and SSE (progress streaming).
#[tokio::test(flavor = "multi_thread")]
async fn modern_client_hanging_up_cancels_the_call() {
    let spec = nap_spec();
    let addr = spec.local_addr().unwrap();
    let hang_up = std::time::Duration::from_millis(200);
    // JSON: the handler is still waiting for the result when the client goes.
    post_and_hang_up(
        addr,
        modern_call_headers(&spec, "nap"),
        modern_call(json!(1), "nap", r#"{"ms":4001}"#),
        hang_up,
    )
    .await;
    assert!(shows_up(&NAPS_DROPPED, 4001).await, "the JSON-answered call was not cancelled");
    // SSE: progress is streaming when the client goes.
    let with_progress = request_body(
        json!(2),
        "tools/call",
        r#""name":"nap","arguments":{"ms":4002},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
    );
    post_and_hang_up(addr, modern_call_headers(&spec, "nap"), with_progress, hang_up).await;
    assert!(shows_up(&NAPS_DROPPED, 4002).await, "the SSE-answered call was not cancelled");
    assert!(!NAPS_DONE.lock().unwrap().iter().any(|ms| *ms == 4001 || *ms == 4002));
}

/// Legacy clients cancel with notifications/cancelled; a dropped connection is not a
/// cancellation (2025-11-25), so the call runs to completion.
#[tokio::test(flavor = "multi_thread")]
async fn legacy_client_hanging_up_does_not_cancel_the_call() {
    let spec = nap_spec();
    let addr = spec.local_addr().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = post(addr, headers(&spec, &[]), init.to_owned()).await;
    let sid = r.header("mcp-session-id").expect("a session").to_owned();
    let session = [("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let r = post(
        addr,
        headers(&spec, &session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
    )
    .await;
    assert_eq!(r.status, 202);
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nap","arguments":{"ms":303}}}"#;
    post_and_hang_up(addr, headers(&spec, &session), call.to_owned(), std::time::Duration::from_millis(50))
        .await;
    assert!(shows_up(&NAPS_DONE, 303).await, "the legacy call did not run to completion");
    assert!(!NAPS_DROPPED.lock().unwrap().contains(&303));
}

/// A tool whose `region` parameter is mirrored into `Mcp-Param-Region` (`x-mcp-header`).
struct Regional(toolwire::ToolInfo);

impl toolwire::Tool for Regional {
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

/// 2026-07-28: a parameter a tool mirrors into an `Mcp-Param-*` header must agree with the
/// body, after Base64 decoding; a missing, undecodable or different header is 400, -32020.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_param_headers_must_agree_with_the_body() {
    let schema =
        json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
    let info = toolwire::ToolInfo::new("regional", "Run in a region.", toolwire::Schema::from_value(schema));
    let mut registry = toolwire::ToolRegistry::new();
    registry.register(Regional(info)).unwrap();
    let mut spec =
        serve_registry(Server::new(registry, ServerOptions::new("engine", "0.1.0")), SpecOptions::http())
            .unwrap();
    spec.start().unwrap();
    let addr = spec.local_addr().unwrap();
    let call = |region: &str| modern_call(json!(9), "regional", &format!(r#"{{"region":"{region}"}}"#));
    let with = |value: Option<&str>| {
        let mut h = modern_call_headers(&spec, "regional");
        if let Some(v) = value {
            h.push(("Mcp-Param-Region".into(), v.into()));
        }
        h
    };
    // "Hello, 世界" travels Base64-encoded; "us-west1" as it is.
    let r = post(addr, with(Some("=?base64?SGVsbG8sIOS4lueVjA==?=")), call("Hello, 世界")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], r#"{"region":"Hello, 世界"}"#);
    assert_eq!(post(addr, with(Some("us-west1")), call("us-west1")).await.status, 200);
    for (header, message) in [
        (
            Some("eu-1"),
            "header mismatch: Mcp-Param-Region is 'eu-1' but the body's arguments.region is \"us-west1\"",
        ),
        (
            None,
            "header mismatch: the Mcp-Param-Region header is missing; the body's arguments.region is \"us-west1\"",
        ),
        (
            Some("=?base64?dXMtd2VzdDE?="),
            "header mismatch: Mcp-Param-Region is not valid base64 inside =?base64?…?=",
        ),
    ] {
        let r = post(addr, with(header), call("us-west1")).await;
        assert_eq!(r.status, 400, "{header:?}: {}", r.body);
        assert_eq!(r.json(), json!({"jsonrpc":"2.0","id":9,"error":{"code":-32020,"message":message}}));
    }
    // Mcp-Name may be Base64-encoded too.
    let mut h = with(Some("us-west1"));
    h.retain(|(k, _)| k != "Mcp-Name");
    h.push(("Mcp-Name".into(), "=?base64?cmVnaW9uYWw=?=".into()));
    assert_eq!(post(addr, h, call("us-west1")).await.status, 200);
    assert_eq!(spec.calls_seen(), 3, "only the agreeing calls reached the tool");
}

/// 2026-07-28 has no sessions: an `Mcp-Session-Id` on a modern request is ignored (not
/// looked up, so not a 404), and none is minted or echoed.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_id_on_a_modern_request_is_ignored() {
    let spec = spec();
    let addr = spec.local_addr().unwrap();
    let h = headers(
        &spec,
        &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list"), ("Mcp-Session-Id", "stale")],
    );
    let r = post(addr, h, request_body(json!(4), "tools/list", &meta("2026-07-28"))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["tools"][0]["name"], "echo");
    assert!(r.header("mcp-session-id").is_none());
    // The same stale id on a legacy request is still a 404.
    let h = headers(&spec, &[("Mcp-Session-Id", "stale"), ("MCP-Protocol-Version", "2025-11-25")]);
    let r = post(addr, h, r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#.to_owned()).await;
    assert_eq!(r.status, 404);
}
