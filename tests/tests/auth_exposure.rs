//! The two exposure profiles on real loopback sockets: a trusted host reads every text
//! verbatim; untrusted callers do not see approval-gated tools (answered byte for byte like
//! unknown ones) unless an approval callback is given, which fails closed; they read
//! `tool 'x' failed` for a failure or a panic, never its detail, unless the tool returned a
//! `ToolError` of its own, whose message is for every caller; and results are capped.

use std::net::SocketAddr;
use std::time::Duration;

use toolwire::http::{Auth, HttpConfig, mcp_router};
use toolwire::server::{Exposure, GatedCall, Untrusted};
use toolwire::{Server, ServerOptions, ToolError, tool, tools};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Look something up (always fails, with an internal detail).
#[tool(read_only)]
fn lookup(key: String) -> Result<String, std::io::Error> {
    let _ = key;
    Err(std::io::Error::other("could not reach postgres://admin:hunter2@db"))
}

/// Withdraw money: its refusals are messages for the caller, its storage errors are not.
#[tool(side_effecting)]
fn withdraw(amount: i64) -> Result<String, ToolError> {
    if amount > 100 {
        // The tool's own message; the name it gives is replaced by the tool's real name.
        return Err(ToolError::failed("any", format!("the balance is too low to withdraw {amount}")));
    }
    let ledger = std::fs::read_to_string("/nonexistent/ledger-of-toolwire-tests.db")
        .map_err(|e| ToolError::internal("withdraw", format!("ledger at /nonexistent: {e}")))?;
    Ok(ledger)
}

/// Always panics.
#[tool(read_only)]
fn boom() -> String {
    panic!("secret at /srv/keys/prod.pem")
}

/// A big answer.
#[tool(read_only)]
fn big() -> String {
    "x".repeat(4096)
}

/// Send money.
#[tool(side_effecting, requires_approval)]
fn wire_money(amount: i64) -> String {
    format!("sent {amount}")
}

/// The server, its callers `exposure` (said once, on its builder).
fn server(with_wire: bool, exposure: Exposure) -> Server {
    let registry = if with_wire {
        tools![add, lookup, boom, big, withdraw, wire_money]
    } else {
        tools![add, lookup, boom, big, withdraw]
    };
    Server::builder(ServerOptions::new("mcp-tool-server", "1.0.0"))
        .tools(registry.unwrap())
        .exposure(exposure)
        .build()
}

async fn serve(server: Server) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = mcp_router(server, HttpConfig::new(Auth::None).stateless(true));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

async fn post(addr: SocketAddr, body: String) -> RawResponse {
    let mut h = mcp_headers(addr);
    h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &h, &body)).await.unwrap()
}

async fn call(addr: SocketAddr, name: &str, args: &str) -> RawResponse {
    post(
        addr,
        format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#),
    )
    .await
}

fn text(r: &RawResponse) -> String {
    r.json()["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{}", r.body)).to_owned()
}

async fn names(addr: SocketAddr) -> Vec<String> {
    let r = post(addr, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned()).await;
    r.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trusted_host_sees_every_tool_and_every_text_verbatim() {
    let addr = serve(server(true, Exposure::TrustedHost)).await;
    assert_eq!(names(addr).await, ["add", "big", "boom", "lookup", "wire_money", "withdraw"]);
    assert_eq!(
        call(addr, "lookup", r#"{"key":"k"}"#).await.body,
        r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"tool 'lookup' failed: could not reach postgres://admin:hunter2@db"}],"isError":true}}"#
    );
    assert_eq!(
        text(&call(addr, "withdraw", r#"{"amount":500}"#).await),
        "tool 'withdraw' failed: the balance is too low to withdraw 500"
    );
    assert_eq!(
        text(&call(addr, "withdraw", r#"{"amount":5}"#).await),
        "tool 'withdraw' failed: ledger at /nonexistent: No such file or directory (os error 2)"
    );
    assert_eq!(
        text(&call(addr, "boom", "{}").await),
        "tool 'boom' failed: panicked: secret at /srv/keys/prod.pem"
    );
    assert_eq!(text(&call(addr, "wire_money", r#"{"amount":5}"#).await), "sent 5");
    assert_eq!(text(&call(addr, "big", "{}").await).len(), 4096);
}

#[tokio::test(flavor = "multi_thread")]
async fn untrusted_callers_get_gated_tools_hidden_failures_sanitised_and_results_capped() {
    let exposure = Exposure::UntrustedCallers(Untrusted::new().max_result_bytes(1024));
    let addr = serve(server(true, exposure.clone())).await;
    let without = serve(server(false, exposure)).await;
    assert_eq!(names(addr).await, ["add", "big", "boom", "lookup", "withdraw"]);

    let hidden = call(addr, "wire_money", r#"{"amount":1000}"#).await;
    let unknown = call(without, "wire_money", r#"{"amount":1000}"#).await;
    assert_eq!(
        (hidden.status, &hidden.body),
        (unknown.status, &unknown.body),
        "hidden == unknown, byte for byte"
    );
    assert_eq!(
        hidden.body,
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"unknown tool 'wire_money'; available tools: ['add', 'big', 'boom', 'lookup', 'withdraw']"}}"#
    );

    let failed = call(addr, "lookup", r#"{"key":"k"}"#).await;
    assert_eq!(
        failed.body,
        r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"tool 'lookup' failed"}],"isError":true}}"#
    );
    assert_eq!(text(&call(addr, "boom", "{}").await), "tool 'boom' failed");
    // The tool's own `ToolError` message is meant for the caller; its `ToolError::internal`
    // detail is not.
    assert_eq!(
        call(addr, "withdraw", r#"{"amount":500}"#).await.body,
        r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"tool 'withdraw' failed: the balance is too low to withdraw 500"}],"isError":true}}"#
    );
    assert_eq!(text(&call(addr, "withdraw", r#"{"amount":5}"#).await), "tool 'withdraw' failed");
    assert_eq!(text(&call(addr, "big", "{}").await), "tool 'big' returned a result over the 1024-byte limit");
    // toolwire's own words are not internals: argument errors stay as they are.
    assert_eq!(
        text(&call(addr, "add", r#"{"a":"x","b":3}"#).await),
        "tool 'add' call rejected: argument 'a' must be an integer between -9223372036854775808 and 9223372036854775807, got a string"
    );
    assert_eq!(text(&call(addr, "add", r#"{"a":2,"b":3}"#).await), r#"{"result":5}"#);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approval_callback_lists_the_gated_tool_and_fails_closed() {
    let untrusted = Untrusted::new()
        .approve_with(|request: GatedCall| async move {
            let amount: serde_json::Value = serde_json::from_str(&request.arguments).unwrap();
            match amount["amount"].as_i64() {
                Some(666) => Err("the approver is down".to_owned()),
                Some(777) => {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    Ok(true)
                }
                Some(n) => Ok(n <= 100 && request.principal.is_host()),
                None => Ok(false),
            }
        })
        .approval_timeout(Duration::from_millis(200));
    let addr = serve(server(true, Exposure::UntrustedCallers(untrusted))).await;
    assert_eq!(names(addr).await, ["add", "big", "boom", "lookup", "wire_money", "withdraw"]);
    assert_eq!(text(&call(addr, "wire_money", r#"{"amount":50}"#).await), "sent 50");
    for amount in [5000, 666, 777] {
        let r = call(addr, "wire_money", &format!(r#"{{"amount":{amount}}}"#)).await;
        assert_eq!(
            r.body,
            r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"tool 'wire_money' was not approved"}],"isError":true}}"#,
            "amount {amount}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unsaid_exposure_is_untrusted_callers_on_a_listener_others_can_reach() {
    // `http::serve` knows its address: unsaid, a loopback listener serves the trusted host
    // (the gated tool listed) and one on every interface serves untrusted callers (hidden);
    // said, the builder's word holds on any address.
    for (bind, trusted_said, gated_listed) in
        [("127.0.0.1:0", false, true), ("0.0.0.0:0", false, false), ("0.0.0.0:0", true, true)]
    {
        let mut builder = Server::builder(ServerOptions::new("mcp-tool-server", "1.0.0"))
            .tools(tools![add, wire_money].unwrap());
        if trusted_said {
            builder = builder.exposure(Exposure::TrustedHost);
        }
        let listener = tokio::net::TcpListener::bind(bind).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let config = HttpConfig::new(Auth::None).stateless(true);
        tokio::spawn(toolwire::http::serve(listener, builder.build(), config));
        let seen = names(SocketAddr::from(([127, 0, 0, 1], port))).await;
        assert_eq!(
            seen.contains(&"wire_money".to_owned()),
            gated_listed,
            "bound to {bind}, TrustedHost said: {trusted_said}: {seen:?}"
        );
        assert!(seen.contains(&"add".to_owned()), "{seen:?}");
    }
}
