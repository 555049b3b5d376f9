//! Who is calling, on real loopback sockets: the MCP authorization spec's resource-server
//! role (RFC 9728 metadata, 401 and 403 challenges, JWTs from a local authorization server
//! checked against its JWKS, audience per RFC 8707), the principal every tool reads, and
//! authorization rules that hide what a principal may not use, answered byte for byte like
//! what does not exist.

use std::net::SocketAddr;
use std::sync::Arc;

use toolwire::http::{Auth, HttpConfig, JwksVerifier, Refusal, ResourceServer, mcp_router};
use toolwire::principal::Principal;
use toolwire::server::{Access, Exposure, Require, Untrusted};
use toolwire::{Context, Server, ServerOptions, tool, tools};
use toolwire_tests::authz::{Alg, AuthServer, Claims};
use toolwire_tests::http::{RawResponse, mcp_headers, request};

/// Say who is calling.
#[tool(read_only)]
fn whoami(ctx: &Context) -> String {
    let p = ctx.principal();
    format!(
        "{} scopes={:?} tenant={:?} host={}",
        p.subject(),
        p.scopes().collect::<Vec<_>>(),
        p.tenant(),
        p.is_host()
    )
}

/// Read a file.
#[tool(read_only)]
fn read_file(path: String) -> String {
    format!("contents of {path}")
}

/// Delete a file (its scope is declared, not described).
#[tool(side_effecting, scopes = ["files:delete"])]
fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

/// Write a file.
#[tool(side_effecting)]
fn write_file(path: String) -> String {
    format!("wrote {path}")
}

async fn serve(app: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A port free now, for a server whose resource URI must name its own address.
fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

async fn serve_at(addr: SocketAddr, app: axum::Router) {
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
}

async fn send(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: &str) -> RawResponse {
    let mut h = mcp_headers(addr);
    h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    if let Some(t) = token {
        h.push(("Authorization".into(), format!("Bearer {t}")));
    }
    let (method, path, body) = (method.to_owned(), path.to_owned(), body.to_owned());
    tokio::task::spawn_blocking(move || request(addr, &method, &path, &h, &body)).await.unwrap()
}

fn call(name: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
    )
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;

/// A resource server at `addr` whose tokens come from `auth`, requiring scope `mcp`.
fn jwt_server(addr: SocketAddr, auth: &AuthServer) -> ResourceServer {
    let resource = format!("http://{addr}/mcp");
    let verifier = JwksVerifier::new(&auth.jwks_url(), resource.clone()).unwrap().issuer(auth.issuer());
    ResourceServer::new(resource, verifier).authorization_server(auth.issuer()).required_scopes(["mcp"])
}

async fn jwt_endpoint(auth: &AuthServer) -> SocketAddr {
    let addr = free_addr();
    let server = Server::builder(ServerOptions::new("rs", "1.0.0"))
        .tools(tools![whoami].unwrap())
        .exposure(Exposure::UntrustedCallers(Untrusted::new()))
        .build();
    let config = HttpConfig::new(Auth::resource_server(jwt_server(addr, auth))).stateless(true);
    serve_at(addr, mcp_router(server, config)).await;
    addr
}

#[tokio::test(flavor = "multi_thread")]
async fn the_protected_resource_metadata_is_served_without_a_token() {
    let auth = AuthServer::start().await;
    let addr = jwt_endpoint(&auth).await;
    let want = format!(
        r#"{{"resource":"http://{addr}/mcp","authorization_servers":["{}"],"scopes_supported":["mcp"],"bearer_methods_supported":["header"]}}"#,
        auth.issuer()
    );
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let r = send(addr, "GET", path, None, "").await;
        assert_eq!((r.status, r.header("content-type")), (200, Some("application/json")), "{path}");
        assert_eq!(r.body, want);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_token_is_401_naming_the_metadata_and_the_scope() {
    let auth = AuthServer::start().await;
    let addr = jwt_endpoint(&auth).await;
    let r = send(addr, "POST", "/mcp", None, &call("whoami", "{}")).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate").unwrap(),
        format!(
            r#"Bearer scope="mcp", resource_metadata="http://{addr}/.well-known/oauth-protected-resource/mcp""#
        )
    );
    assert_eq!(
        r.body,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"unauthorized: a valid bearer token is required"}}"#
    );
    assert_eq!(auth.jwks_fetches(), 0, "no token, nothing to verify");
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_tokens_are_401_invalid_token_saying_why() {
    let auth = AuthServer::start().await;
    let addr = jwt_endpoint(&auth).await;
    let aud = format!("http://{addr}/mcp");
    let expired = Claims { expires_in: -3600, ..Claims::new("alice", "mcp", &aud) };
    let cases = [
        (auth.mint(Alg::Rs256, &expired), "it has expired"),
        (
            auth.mint(Alg::Es256, &Claims::new("alice", "mcp", "http://127.0.0.1:1/other")),
            "it was not issued for this resource (its audience)",
        ),
        (auth.mint_forged(&Claims::new("alice", "mcp", &aud), "mallory"), "its signature does not verify"),
        ("not-a-jwt".to_owned(), "it is not a JWT"),
        // Signed by the authorization server, for this resource, but a logout token (RFC 9068 §4).
        (
            auth.mint(
                Alg::Rs256,
                &Claims { typ: Some("logout+jwt".into()), ..Claims::new("alice", "mcp", &aud) },
            ),
            "its typ 'logout+jwt' is not an access token's (RFC 9068: at+jwt); this server accepts typ at+jwt, jwt",
        ),
    ];
    for (token, why) in cases {
        let r = send(addr, "POST", "/mcp", Some(&token), &call("whoami", "{}")).await;
        assert_eq!(r.status, 401, "{why}");
        assert_eq!(
            r.header("www-authenticate").unwrap(),
            format!(
                r#"Bearer error="invalid_token", error_description="{why}", scope="mcp", resource_metadata="http://{addr}/.well-known/oauth-protected-resource/mcp""#
            )
        );
        assert_eq!(
            r.json()["error"]["message"],
            format!("unauthorized: the bearer token is not valid: {why}")
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_without_the_required_scope_is_403_insufficient_scope() {
    let auth = AuthServer::start().await;
    let addr = jwt_endpoint(&auth).await;
    let token = auth.mint(Alg::Rs256, &Claims::new("alice", "files:read", &format!("http://{addr}/mcp")));
    let r = send(addr, "POST", "/mcp", Some(&token), &call("whoami", "{}")).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.header("www-authenticate").unwrap(),
        format!(
            r#"Bearer error="insufficient_scope", scope="mcp", resource_metadata="http://{addr}/.well-known/oauth-protected-resource/mcp""#
        )
    );
    assert_eq!(
        r.body,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"forbidden: the bearer token lacks the scope this server requires: mcp"}}"#
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn valid_rs256_and_es256_tokens_reach_the_tool_as_their_principal_and_the_jwks_is_cached() {
    let auth = AuthServer::start().await;
    let addr = jwt_endpoint(&auth).await;
    let aud = format!("http://{addr}/mcp");
    let alice = auth.mint(
        Alg::Rs256,
        &Claims { tenant: Some("acme".into()), ..Claims::new("alice", "mcp files:read", &aud) },
    );
    let bob = auth.mint(Alg::Es256, &Claims::new("bob", "mcp", &aud));
    for _ in 0..3 {
        let r = send(addr, "POST", "/mcp", Some(&alice), &call("whoami", "{}")).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(
            r.json()["result"]["content"][0]["text"],
            r#"alice scopes=["files:read", "mcp"] tenant=Some("acme") host=false"#
        );
        let r = send(addr, "POST", "/mcp", Some(&bob), &call("whoami", "{}")).await;
        assert_eq!(r.json()["result"]["content"][0]["text"], r#"bob scopes=["mcp"] tenant=None host=false"#);
    }
    assert_eq!(auth.jwks_fetches(), 1, "six verifications, one fetch of the JWKS");
}

/// RFC 9068's `at+jwt`, its `application/` form in any case, a plain `JWT` and no `typ` are
/// access tokens by default; a `logout+jwt` is not (`invalid_tokens_are_401_invalid_token_saying_why`).
#[tokio::test(flavor = "multi_thread")]
async fn access_tokens_typed_at_jwt_plain_jwt_or_not_at_all_are_accepted() {
    let auth = AuthServer::start().await;
    let addr = jwt_endpoint(&auth).await;
    let aud = format!("http://{addr}/mcp");
    for typ in [Some("at+jwt"), Some("Application/AT+JWT"), Some("JWT"), None] {
        let claims = Claims { typ: typ.map(str::to_owned), ..Claims::new("alice", "mcp", &aud) };
        let r =
            send(addr, "POST", "/mcp", Some(&auth.mint(Alg::Es256, &claims)), &call("whoami", "{}")).await;
        assert_eq!(r.status, 200, "{typ:?}: {}", r.body);
        assert_eq!(
            r.json()["result"]["content"][0]["text"],
            r#"alice scopes=["mcp"] tenant=None host=false"#
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_generated_token_s_holder_is_the_host_and_stdio_s_is_the_program_s() {
    let token = toolwire::http::BearerToken::generate();
    let server = Server::builder(ServerOptions::new("t", "1"))
        .tools(tools![whoami].unwrap())
        .exposure(Exposure::UntrustedCallers(Untrusted::new()))
        .build();
    let addr = serve(mcp_router(server, HttpConfig::new(Auth::Bearer(token.clone())).stateless(true))).await;
    let r = send(addr, "POST", "/mcp", Some(token.expose()), &call("whoami", "{}")).await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "host scopes=[] tenant=None host=true");

    // A session fed directly (as stdio feeds it) serves the principal the program fixed.
    let server = Server::builder(ServerOptions::new("t", "1"))
        .tools(tools![whoami].unwrap())
        .host_principal(Principal::new("ci-bot").with_tenant("acme"))
        .build();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink: Arc<dyn toolwire::server::Sink> = {
        let seen = seen.clone();
        Arc::new(move |m: toolwire::protocol::Outbound| seen.lock().unwrap().push(m.into_string()))
    };
    let session = server.session();
    session.handle(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        &sink,
    );
    session.handle(&call("whoami", "{}"), &sink);
    tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while seen.lock().unwrap().len() < 2 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();
    assert!(
        seen.lock().unwrap()[1].contains(r#"ci-bot scopes=[] tenant=Some(\"acme\") host=false"#),
        "{:?}",
        seen.lock().unwrap()
    );
}

/// A resource server whose tokens are fixed strings: `alice` holds `files:read`, `root`
/// holds both file scopes, `janitor` holds `files:delete`.
fn fixed_tokens(addr: SocketAddr) -> Auth {
    Auth::resource_server(ResourceServer::new(format!("http://{addr}/mcp"), |token: &str| match token {
        "alice-token" => Ok(Principal::new("alice").with_scopes(["files:read"])),
        "root-token" => Ok(Principal::new("root").with_scopes(["files:read", "files:write"])),
        "janitor-token" => Ok(Principal::new("janitor").with_scopes(["files:delete"])),
        _ => Err(Refusal::InvalidToken("unknown token".into())),
    }))
}

fn file_rules() -> Access {
    Access::new()
        .tool("read_file", Require::scopes(["files:read"]))
        .tool("write_file", Require::scopes(["files:write"]))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_a_principal_may_not_call_is_hidden_and_answered_byte_for_byte_like_an_unknown_one() {
    // A: all three tools, with rules. B: the same server without write_file at all.
    let a = free_addr();
    let server = Server::builder(ServerOptions::new("files", "1.0.0"))
        .tools(tools![whoami, read_file, write_file].unwrap())
        .authorize(file_rules())
        .exposure(Exposure::UntrustedCallers(Untrusted::new()))
        .build();
    serve_at(a, mcp_router(server, HttpConfig::new(fixed_tokens(a)).stateless(true))).await;
    let b = free_addr();
    let server = Server::builder(ServerOptions::new("files", "1.0.0"))
        .tools(tools![whoami, read_file].unwrap())
        .exposure(Exposure::UntrustedCallers(Untrusted::new()))
        .build();
    serve_at(b, mcp_router(server, HttpConfig::new(fixed_tokens(b)).stateless(true))).await;

    let hidden = send(a, "POST", "/mcp", Some("alice-token"), &call("write_file", r#"{"path":"x"}"#)).await;
    let absent = send(b, "POST", "/mcp", Some("alice-token"), &call("write_file", r#"{"path":"x"}"#)).await;
    assert_eq!((hidden.status, &hidden.body), (absent.status, &absent.body));
    assert_eq!(
        hidden.json()["error"]["message"],
        "unknown tool 'write_file'; available tools: ['read_file', 'whoami']"
    );
    let listed_a = send(a, "POST", "/mcp", Some("alice-token"), LIST).await;
    let listed_b = send(b, "POST", "/mcp", Some("alice-token"), LIST).await;
    assert_eq!(listed_a.body, listed_b.body, "alice's list on A is B's list, byte for byte");

    // Root may call it; the list shows it; a second list for alice is served from the cache
    // (same bytes).
    let r = send(a, "POST", "/mcp", Some("root-token"), &call("write_file", r#"{"path":"x"}"#)).await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "wrote x");
    let names = |r: &RawResponse| -> Vec<String> {
        r.json()["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let root_list = send(a, "POST", "/mcp", Some("root-token"), LIST).await;
    assert_eq!(names(&root_list), ["read_file", "whoami", "write_file"]);
    assert_eq!(names(&listed_a), ["read_file", "whoami"]);
    assert_eq!(send(a, "POST", "/mcp", Some("alice-token"), LIST).await.body, listed_a.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_s_declared_scopes_hide_it_without_any_access_rule() {
    // A serves delete_file, which declares `files:delete`, and is given no `Access`; B does
    // not have the tool at all.
    let serve = |with_delete: bool| async move {
        let addr = free_addr();
        let registry = if with_delete { tools![whoami, delete_file] } else { tools![whoami] };
        let server = Server::builder(ServerOptions::new("files", "1.0.0"))
            .tools(registry.unwrap())
            .exposure(Exposure::UntrustedCallers(Untrusted::new()))
            .build();
        let config = HttpConfig::new(fixed_tokens(addr)).stateless(true);
        serve_at(addr, mcp_router(server, config)).await;
        addr
    };
    let (a, b) = (serve(true).await, serve(false).await);
    let del = call("delete_file", r#"{"path":"x"}"#);
    let hidden = send(a, "POST", "/mcp", Some("alice-token"), &del).await;
    let absent = send(b, "POST", "/mcp", Some("alice-token"), &del).await;
    assert_eq!((hidden.status, &hidden.body), (absent.status, &absent.body), "hidden == unknown");
    assert_eq!(
        hidden.body,
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"unknown tool 'delete_file'; available tools: ['whoami']"}}"#
    );
    let listed = send(a, "POST", "/mcp", Some("alice-token"), LIST).await;
    assert_eq!(listed.body, send(b, "POST", "/mcp", Some("alice-token"), LIST).await.body);

    let r = send(a, "POST", "/mcp", Some("janitor-token"), &del).await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "deleted x");
    let listed = send(a, "POST", "/mcp", Some("janitor-token"), LIST).await;
    let tools = listed.json()["result"]["tools"].clone();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["delete_file", "whoami"]);
    assert!(!listed.body.contains("files:delete"), "the declaration is not sent to clients");
}

#[tokio::test]
async fn a_tool_added_live_with_declared_scopes_is_hidden_as_one_served_from_the_start() {
    // A is live and given delete_file (which declares `files:delete`) after it was built,
    // with no `Access`; B does not have the tool at all.
    let serve = |add_delete: bool| async move {
        let addr = free_addr();
        let server = Server::builder(ServerOptions::new("files", "1.0.0"))
            .tools(tools![whoami].unwrap())
            .live()
            .exposure(Exposure::UntrustedCallers(Untrusted::new()))
            .build();
        if add_delete {
            server.add_tool(delete_file {}).unwrap();
        }
        let config = HttpConfig::new(fixed_tokens(addr)).stateless(true);
        serve_at(addr, mcp_router(server, config)).await;
        addr
    };
    let (a, b) = (serve(true).await, serve(false).await);
    let del = call("delete_file", r#"{"path":"x"}"#);
    let hidden = send(a, "POST", "/mcp", Some("alice-token"), &del).await;
    let absent = send(b, "POST", "/mcp", Some("alice-token"), &del).await;
    assert_eq!((hidden.status, &hidden.body), (absent.status, &absent.body), "hidden == unknown");
    let listed = send(a, "POST", "/mcp", Some("alice-token"), LIST).await;
    assert_eq!(listed.body, send(b, "POST", "/mcp", Some("alice-token"), LIST).await.body);
    let r = send(a, "POST", "/mcp", Some("janitor-token"), &del).await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "deleted x");
}
