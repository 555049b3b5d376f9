//! Authorization for prompts, resources, completion and subscriptions, on real loopback
//! sockets: what a principal may not use is answered byte for byte like what does not exist,
//! at list time (`prompts/list`, `resources/list`, `resources/templates/list`) and at use time
//! (`prompts/get`, `resources/read`, a read through a template, `completion/complete` for a
//! prompt or a template, `resources/subscribe`).
//!
//! Server A has a prompt, a resource and a template that need a scope; server B is the same
//! server without them. Alice holds no scope, so everything she sends to A must read as if she
//! had sent it to B; root holds the scopes and uses them all on A.

use std::net::SocketAddr;

use toolwire::complete::{CompletionRequest, prefix_matches};
use toolwire::http::{Auth, HttpConfig, Refusal, ResourceServer, mcp_router};
use toolwire::principal::Principal;
use toolwire::prompt::PromptRegistry;
use toolwire::resource::ResourceRegistry;
use toolwire::server::{Access, Exposure, Require, Untrusted};
use toolwire::{Server, ServerOptions, prompt, prompts, resource, resources, tool, tools};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Say hello.
#[prompt]
fn greet() -> &'static str {
    "Hello!"
}

/// Pick an item (root only).
#[prompt(complete(item = complete_item))]
fn pick(
    /// The item.
    item: String,
) -> String {
    format!("You picked {item}.")
}

fn complete_item(request: CompletionRequest) -> Vec<String> {
    prefix_matches(&["apple", "apricot", "banana"], &request.value)
}

/// Open to all.
#[resource(uri = "test://public", name = "public", mime_type = "text/plain")]
fn public() -> &'static str {
    "public text"
}

/// Root only.
#[resource(uri = "test://secret", name = "secret", mime_type = "text/plain")]
fn secret() -> &'static str {
    "the launch codes"
}

/// A vault item (root only).
#[resource(template = "test://vault/{item}", name = "vault", complete(item = complete_item))]
fn vault(item: String) -> String {
    format!("vault item {item}")
}

/// A shelf item, open to all.
#[resource(template = "test://shelf/{item}", name = "shelf", complete(item = complete_item))]
fn shelf(item: String) -> String {
    format!("shelf item {item}")
}

/// Echo.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn rules() -> Access {
    Access::new()
        .prompt("pick", Require::scopes(["secret"]))
        .resource("test://secret", Require::scopes(["secret"]))
        .resource("test://vault/{item}", Require::scopes(["secret"]))
}

/// Serve A (`full`: every item, with the rules) or B (without the guarded items) with tokens
/// `alice-token` (no scope) and `root-token` (scope `secret`).
async fn serve(full: bool) -> SocketAddr {
    let (prompts, resources): (PromptRegistry, ResourceRegistry) = if full {
        (prompts![greet, pick].unwrap(), resources![public, secret, vault, shelf].unwrap())
    } else {
        (prompts![greet].unwrap(), resources![public, shelf].unwrap())
    };
    let mut builder = Server::builder(ServerOptions::new("surface", "1.0.0"))
        .tools(tools![echo].unwrap())
        .prompts(prompts)
        .resources(resources);
    if full {
        builder = builder.authorize(rules());
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let verifier = |token: &str| match token {
        "alice-token" => Ok(Principal::new("alice")),
        "root-token" => Ok(Principal::new("root").with_scopes(["secret"])),
        _ => Err(Refusal::InvalidToken("unknown token".into())),
    };
    let auth = Auth::resource_server(ResourceServer::new(format!("http://{addr}/mcp"), verifier));
    let app = mcp_router(
        builder.exposure(Exposure::UntrustedCallers(Untrusted::new())).build(),
        HttpConfig::new(auth).stateless(true),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

async fn post(addr: SocketAddr, token: &str, method: &str, params: &str) -> RawResponse {
    let mut h = mcp_headers(addr);
    h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    h.push(("Authorization".into(), format!("Bearer {token}")));
    let body = format!(r#"{{"jsonrpc":"2.0","id":5,"method":"{method}","params":{params}}}"#);
    tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &h, &body)).await.unwrap()
}

/// Alice's request to A and to B: the same status and the same bytes; A's answer.
async fn same_as_absent(a: SocketAddr, b: SocketAddr, method: &str, params: &str) -> RawResponse {
    let on_a = post(a, "alice-token", method, params).await;
    let on_b = post(b, "alice-token", method, params).await;
    assert_eq!((on_a.status, &on_a.body), (on_b.status, &on_b.body), "{method} {params}: hidden == absent");
    on_a
}

#[tokio::test(flavor = "multi_thread")]
async fn hidden_prompts_resources_templates_completions_and_subscriptions_read_as_absent() {
    let (a, b) = (serve(true).await, serve(false).await);

    // List time.
    let listed = same_as_absent(a, b, "prompts/list", "{}").await;
    assert_eq!(listed.json()["result"]["prompts"].as_array().unwrap().len(), 1);
    let listed = same_as_absent(a, b, "resources/list", "{}").await;
    assert_eq!(listed.json()["result"]["resources"][0]["uri"], "test://public");
    assert_eq!(listed.json()["result"]["resources"].as_array().unwrap().len(), 1);
    let listed = same_as_absent(a, b, "resources/templates/list", "{}").await;
    assert_eq!(listed.json()["result"]["resourceTemplates"][0]["uriTemplate"], "test://shelf/{item}");
    assert_eq!(listed.json()["result"]["resourceTemplates"].as_array().unwrap().len(), 1);

    // Use time.
    let got = same_as_absent(a, b, "prompts/get", r#"{"name":"pick","arguments":{"item":"x"}}"#).await;
    assert_eq!(
        got.body,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"unknown prompt 'pick'; available prompts: ['greet']"}}"#
    );
    let read = same_as_absent(a, b, "resources/read", r#"{"uri":"test://secret"}"#).await;
    assert_eq!(
        read.body,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"resource 'test://secret' not found","data":{"uri":"test://secret"}}}"#
    );
    let read = same_as_absent(a, b, "resources/read", r#"{"uri":"test://vault/gold"}"#).await;
    assert_eq!(read.json()["error"]["message"], "resource 'test://vault/gold' not found");

    let prompt_ref = r#"{"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"item","value":"ap"}}"#;
    let completed = same_as_absent(a, b, "completion/complete", prompt_ref).await;
    assert_eq!(
        completed.body,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"completion for unknown prompt 'pick'; available prompts: ['greet']"}}"#
    );
    let vault_ref = r#"{"ref":{"type":"ref/resource","uri":"test://vault/{item}"},"argument":{"name":"item","value":"ap"}}"#;
    let completed = same_as_absent(a, b, "completion/complete", vault_ref).await;
    assert_eq!(
        completed.body,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"completion for unknown resource template 'test://vault/{item}'; available templates: ['test://shelf/{item}']"}}"#
    );

    let subscribed = same_as_absent(a, b, "resources/subscribe", r#"{"uri":"test://secret"}"#).await;
    assert_eq!(
        subscribed.body,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"resource 'test://secret' not found","data":{"uri":"test://secret"}}}"#
    );
    let subscribed = same_as_absent(a, b, "resources/subscribe", r#"{"uri":"test://vault/gold"}"#).await;
    assert_eq!(subscribed.json()["error"]["code"], -32002);

    // What alice may use, she uses; a subscription she may take gets past the rule and is
    // refused only because a stateless endpoint has no channel to deliver it on.
    let shelf_ref = r#"{"ref":{"type":"ref/resource","uri":"test://shelf/{item}"},"argument":{"name":"item","value":"ap"}}"#;
    let completed = post(a, "alice-token", "completion/complete", shelf_ref).await;
    assert_eq!(completed.json()["result"]["completion"]["values"], serde_json::json!(["apple", "apricot"]));
    let no_channel = r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: this session has no channel for notifications outside a call, so 'notifications/resources/updated' cannot be delivered"}}"#;
    assert_eq!(
        post(a, "alice-token", "resources/subscribe", r#"{"uri":"test://public"}"#).await.body,
        no_channel
    );

    // Root holds the scope: everything hidden from alice is there for him.
    let listed = post(a, "root-token", "prompts/list", "{}").await;
    assert_eq!(listed.json()["result"]["prompts"].as_array().unwrap().len(), 2);
    let listed = post(a, "root-token", "resources/templates/list", "{}").await;
    assert_eq!(listed.json()["result"]["resourceTemplates"].as_array().unwrap().len(), 2);
    let got = post(a, "root-token", "prompts/get", r#"{"name":"pick","arguments":{"item":"x"}}"#).await;
    assert_eq!(got.json()["result"]["messages"][0]["content"]["text"], "You picked x.");
    let read = post(a, "root-token", "resources/read", r#"{"uri":"test://secret"}"#).await;
    assert_eq!(read.json()["result"]["contents"][0]["text"], "the launch codes");
    let read = post(a, "root-token", "resources/read", r#"{"uri":"test://vault/gold"}"#).await;
    assert_eq!(read.json()["result"]["contents"][0]["text"], "vault item gold");
    let completed = post(a, "root-token", "completion/complete", prompt_ref).await;
    assert_eq!(completed.json()["result"]["completion"]["values"], serde_json::json!(["apple", "apricot"]));
    let completed = post(a, "root-token", "completion/complete", vault_ref).await;
    assert_eq!(completed.json()["result"]["completion"]["values"], serde_json::json!(["apple", "apricot"]));
    assert_eq!(
        post(a, "root-token", "resources/subscribe", r#"{"uri":"test://secret"}"#).await.body,
        no_channel
    );
}
