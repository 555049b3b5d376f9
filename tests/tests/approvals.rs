//! `ApprovalServer` and `RunPolicy` end to end, over real loopback HTTP with toolwire's own
//! server and client (the approvals contract in design.md, seed 000).
//!
//! - Served as `approve` behind a bearer token, the permission-prompt tool answers the
//!   prompts a CLI sends with exactly one text block (`{"behavior":"allow","updatedInput":…}`
//!   or `{"behavior":"deny","message":…}`) and never `structuredContent`, on the raw wire
//!   as Claude Code speaks it (2026-07-28) and through toolwire's own client.
//! - Every prompt is recorded with its source: `auto_allow` without asking, `asker`, and a
//!   `timeout` the server enforced itself while the HTTP call was held open.
//! - `RunPolicy` reads the caps a served registry advertises in `_meta` and refuses the
//!   lethal trifecta with the seed's reason, naming each leg's tools.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::approvals::{
    Answer, ApprovalServer, AskerError, DecisionSource, LETHAL_TRIFECTA_REASON, RunPolicy, ToolCaps, asker_fn,
};
use toolwire::client::{CallOptions, Client, ClientOptions, HttpServer};
use toolwire::spec::SpecOptions;
use toolwire::{Content, McpServerSpec, serve_registry, tool, tools};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

async fn send(addr: SocketAddr, headers: Vec<(String, String)>, body: String) -> RawResponse {
    tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &headers, &body)).await.unwrap()
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// One stateless 2026-07-28 request, as Claude Code sends it; the JSON-RPC `result`.
async fn modern(spec: &McpServerSpec, method: &str, name: Option<&str>, params: &str) -> Value {
    let addr = spec.local_addr().unwrap();
    let mut h = mcp_headers(addr);
    h.extend(spec.auth_headers());
    h.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    h.push(("Mcp-Method".into(), method.into()));
    if let Some(n) = name {
        h.push(("Mcp-Name".into(), n.into()));
    }
    let sep = if params.is_empty() { "" } else { "," };
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params}{sep}{META}}}}}"#);
    let r = send(addr, h, body).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["result"].clone()
}

/// The seed's reviewer: `/etc` is out of scope.
fn reviewer() -> ApprovalServer {
    ApprovalServer::builder(asker_fn(|request| async move {
        let path = request.input["file_path"].as_str().unwrap_or_default();
        Ok(if path.starts_with("/etc/") { Answer::deny("/etc is out of scope") } else { Answer::allow() })
    }))
    .auto_allow(["Read"])
    .timeout(Some(Duration::from_secs(30)))
    .build()
}

fn sources(server: &ApprovalServer) -> Vec<(String, bool, DecisionSource, bool)> {
    server.decisions().into_iter().map(|d| (d.tool_name, d.allowed, d.source, d.asked)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn toolwires_client_asks_the_served_tool_what_the_cli_would() {
    let approvals = reviewer();
    let mut spec = approvals.serve("approvals").unwrap();
    spec.start().unwrap();
    assert_eq!(spec.tool_names(), ["mcp__approvals__approve"]);
    assert_eq!(approvals.permission_prompt_tool(&spec), "mcp__approvals__approve");
    let url = spec.url().unwrap().to_owned();

    // The token is the fence: without it nobody answers prompts on the agent's behalf.
    let err = Client::connect(HttpServer::new(&url), ClientOptions::new("approvals")).await.unwrap_err();
    assert_eq!(err.to_string(), "server 'approvals' answered HTTP 401: the credentials were refused");

    let mut http = HttpServer::new(&url);
    for (k, v) in spec.auth_headers() {
        http = http.header(k, v);
    }
    let client = Client::connect(http, ClientOptions::new("approvals")).await.unwrap();
    let listed = client.list_tools(false).await.unwrap();
    assert_eq!(listed.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["approve"]);
    assert_eq!(listed[0].input_schema["required"], json!(["tool_name", "input"]));

    let cases = [
        ("Read", "/etc/passwd", r#"{"behavior":"allow","updatedInput":{"file_path":"/etc/passwd"}}"#),
        ("Write", "/etc/passwd", r#"{"behavior":"deny","message":"/etc is out of scope"}"#),
        ("Write", "out.txt", r#"{"behavior":"allow","updatedInput":{"file_path":"out.txt"}}"#),
    ];
    for (i, (tool, path, want)) in cases.iter().enumerate() {
        let args =
            json!({"tool_name": tool, "input": {"file_path": path}, "tool_use_id": format!("toolu_{i}")});
        let r = client.call_tool("approve", args, CallOptions::default()).await.unwrap();
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.structured, None, "never structuredContent");
        assert_eq!(r.content, [Content::text(*want)]);
    }
    client.close().await;

    assert_eq!(
        sources(&approvals),
        [
            ("Read".to_owned(), true, DecisionSource::AutoAllow, false),
            ("Write".to_owned(), false, DecisionSource::Asker, true),
            ("Write".to_owned(), true, DecisionSource::Asker, true),
        ]
    );
    let ids: Vec<_> = approvals.decisions().into_iter().map(|d| d.tool_use_id.unwrap()).collect();
    assert_eq!(ids, ["toolu_0", "toolu_1", "toolu_2"]);
    assert_eq!(spec.calls_seen(), 3);
    spec.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn on_the_raw_wire_the_answer_is_exactly_one_text_block() {
    let approvals = reviewer();
    let mut spec = approvals.serve("approvals").unwrap();
    spec.start().unwrap();
    let params = r#""name":"approve","arguments":{"tool_name":"Write","input":{"file_path":"/etc/hosts"},"tool_use_id":"toolu_9"}"#;
    let result = modern(&spec, "tools/call", Some("approve"), params).await;
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": r#"{"behavior":"deny","message":"/etc is out of scope"}"#}]),
        "{result}"
    );
    assert!(result.get("structuredContent").is_none(), "{result}");
    assert_ne!(result["isError"], true, "{result}");

    // What the CLI validates against: the advertised schema.
    let listed = modern(&spec, "tools/list", None, "").await;
    let tool = &listed["tools"][0];
    assert_eq!(tool["name"], "approve");
    assert_eq!(tool["inputSchema"]["properties"]["input"]["type"], "object");
    assert!(tool.get("outputSchema").is_none(), "{tool}");
    assert_eq!(sources(&approvals), [("Write".to_owned(), false, DecisionSource::Asker, true)]);
    spec.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_times_the_asker_out_while_the_http_call_waits() {
    let approvals =
        ApprovalServer::builder(asker_fn(|_| std::future::pending::<Result<Answer, AskerError>>()))
            .timeout(Some(Duration::from_millis(100)))
            .build();
    let mut spec = approvals.serve("approvals").unwrap();
    spec.start().unwrap();
    let params = r#""name":"approve","arguments":{"tool_name":"Bash","input":{"command":"rm -rf build"}}"#;
    let result = modern(&spec, "tools/call", Some("approve"), params).await;
    assert_eq!(
        result["content"][0]["text"],
        r#"{"behavior":"deny","message":"nobody answered the approval prompt for 'Bash' within 0.1s, so it was denied (timed out, not refused)"}"#
    );
    let d = &approvals.decisions()[0];
    assert_eq!(
        (d.allowed, d.source, d.asked, d.tool_use_id.as_deref()),
        (false, DecisionSource::Timeout, true, None)
    );
    spec.stop();
}

/// Read one customer record out of the private store.
#[tool(read_only, caps = ["private_data"])]
fn read_record(customer: String) -> String {
    customer
}

/// Fetch a page of untrusted web content and return its text.
#[tool(read_only, caps = ["untrusted_content"])]
fn fetch_page(url: String) -> String {
    url
}

/// Post a message to the named chat channel: the egress leg.
#[tool(side_effecting, caps = ["egress"])]
fn notify(channel: String, text: String) -> String {
    format!("sent {text} to {channel}")
}

#[tokio::test(flavor = "multi_thread")]
async fn run_policy_refuses_the_trifecta_a_served_registry_advertises() {
    let registry = tools![read_record, fetch_page, notify].unwrap();
    let local = RunPolicy::new().check_registry(&registry);
    let mut spec =
        serve_registry(Server::new(registry, ServerOptions::new("engine", "0.1.0")), SpecOptions::http())
            .unwrap();
    spec.start().unwrap();

    // The declarations crossed the wire in `_meta`: read them back and check them there.
    let listed = modern(&spec, "tools/list", None, "").await;
    let members: Vec<ToolCaps> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| ToolCaps::from_meta(t["name"].as_str().unwrap(), &t["_meta"]))
        .collect();
    let served = RunPolicy::new().check(members.clone());
    assert!(!served.allowed);
    assert_eq!(served.reason, Some(LETHAL_TRIFECTA_REASON));
    assert_eq!(
        LETHAL_TRIFECTA_REASON,
        "lethal trifecta: this tool set combines private-data access, untrusted-content ingestion, and egress in one run — require a human gate or split the run"
    );
    assert_eq!(
        (
            served.legs.private_data.as_slice(),
            served.legs.untrusted_content.as_slice(),
            served.legs.egress.as_slice()
        ),
        (&["read_record".to_owned()][..], &["fetch_page".to_owned()][..], &["notify".to_owned()][..])
    );
    assert_eq!(served, local, "the same verdict on both sides of the wire");

    // The spec's union says the same about the whole server; a human gate lets it run.
    let by_spec = RunPolicy::new().check_specs([&spec]);
    assert_eq!((by_spec.allowed, by_spec.legs.egress.as_slice()), (false, &["engine".to_owned()][..]));
    let gated = RunPolicy::new().with_human_gate(true).check(members);
    assert!(gated.allowed && gated.gated);
    spec.stop();
}
