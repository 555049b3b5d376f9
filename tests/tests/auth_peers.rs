//! The official Python SDK client (`mcp` 2.3.0, `tests/peers/clients/py_auth.py`) against a
//! resource server on loopback: it reads the 401's `resource_metadata`, gets an RS256 access
//! token for that resource from the local authorization server (`tests/src/authz.rs`), and
//! then calls the tools its scopes allow and is refused the rest, exactly as an unknown tool
//! is refused. Run in both eras (legacy `initialize` at 2025-11-25, and auto: 2026-07-28).

mod peer_support;

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::Duration;

use peer_support::peer;
use toolwire::http::{Auth, HttpConfig, JwksVerifier, ResourceServer, mcp_router};
use toolwire::server::{Access, Exposure, Require};
use toolwire::{Context, Server, ServerOptions, tool, tools};
use toolwire_tests::authz::AuthServer;

/// Say who is calling.
#[tool(read_only)]
fn whoami(ctx: &Context) -> String {
    let p = ctx.principal();
    format!("{} {:?}", p.subject(), p.scopes().collect::<Vec<_>>())
}

/// Read a file.
#[tool(read_only)]
fn read_file(path: String) -> String {
    format!("contents of {path}")
}

/// Write a file.
#[tool(side_effecting)]
fn write_file(path: String) -> String {
    format!("wrote {path}")
}

async fn endpoint(auth: &AuthServer) -> SocketAddr {
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let verifier = JwksVerifier::new(&auth.jwks_url(), resource.clone()).unwrap().issuer(auth.issuer());
    let rs =
        ResourceServer::new(resource, verifier).authorization_server(auth.issuer()).required_scopes(["mcp"]);
    let server = Server::builder(ServerOptions::new("files", "1.0.0"))
        .tools(tools![whoami, read_file, write_file].unwrap())
        .authorize(
            Access::new()
                .tool("read_file", Require::scopes(["files:read"]))
                .tool("write_file", Require::scopes(["files:write"])),
        )
        .exposure(Exposure::untrusted_callers())
        .build();
    let app = mcp_router(server, HttpConfig::new(Auth::resource_server(rs)));
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

async fn drive(addr: SocketAddr, auth: &AuthServer, scope: &str, mode: &str) -> serde_json::Value {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command
        .arg(toolwire_tests::tests_dir().join("peers/clients/py_auth.py"))
        .args(["--url", &format!("http://{addr}/mcp"), "--token-url", &format!("{}/token", auth.issuer())])
        .args(["--sub", "alice", "--scope", scope, "--mode", mode])
        .args(["--call", r#"read_file={"path":"a.txt"}"#, "--call", r#"write_file={"path":"a.txt"}"#])
        .stdin(Stdio::null());
    let run = tokio::task::spawn_blocking(move || command.output());
    let out = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the Python client finishes")
        .unwrap()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "py_auth.py failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_calls_what_its_token_allows_and_is_refused_the_rest() {
    let auth = AuthServer::start().await;
    let addr = endpoint(&auth).await;
    let challenge = format!(
        r#"Bearer scope="mcp", resource_metadata="http://{addr}/.well-known/oauth-protected-resource/mcp""#
    );
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let reader = drive(addr, &auth, "mcp files:read", mode).await;
        assert_eq!(
            reader,
            serde_json::json!({
                "no_token": [401, challenge],
                "protocol_version": version,
                "tools": ["read_file", "whoami"],
                "calls": {
                    "whoami": r#"ok alice ["files:read", "mcp"]"#,
                    "read_file": "ok contents of a.txt",
                    "write_file": "rpc-error -32602 unknown tool 'write_file'; available tools: ['read_file', 'whoami']",
                },
            }),
            "{mode}"
        );
        let writer = drive(addr, &auth, "mcp files:read files:write", mode).await;
        assert_eq!(writer["tools"], serde_json::json!(["read_file", "whoami", "write_file"]), "{mode}");
        assert_eq!(writer["calls"]["write_file"], "ok wrote a.txt", "{mode}");
    }
}
