//! `serve_registry`'s lifecycle: file modes, the config file's life, re-entry on the same
//! port, a busy port's error, the CLI projections, and two specs side by side.

use std::os::unix::fs::PermissionsExt;

use serde_json::Value;
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::http::{Auth, BearerToken, HttpConfig, Refusal, ResourceServer};
use toolwire::principal::Principal;
use toolwire::spec::{SpecError, SpecOptions, StdioCommand, TransportKind};
use toolwire::{McpServerSpec, serve_registry, tool, tools};
use toolwire_tests::http::{mcp_headers, request};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// Deploy.
#[tool(side_effecting, requires_approval, caps = ["egress", "deploy"])]
fn deploy(target: String) -> String {
    target
}

/// Read a record.
#[tool(read_only, caps = ["private_data"])]
fn read_record(id: String) -> String {
    id
}

fn engine() -> ServerOptions {
    ServerOptions::new("engine", "0.1.0")
}

fn make(options: SpecOptions) -> McpServerSpec {
    serve_registry(Server::new(tools![echo, deploy, read_record].unwrap(), engine()), options).unwrap()
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

async fn ping(spec: &McpServerSpec) -> u16 {
    let addr = spec.local_addr().unwrap();
    let mut h = mcp_headers(addr);
    h.extend(spec.auth_headers());
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &h, body).status).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_spec_is_complete_before_anything_serves() {
    let spec = make(SpecOptions::http());
    assert!(!spec.is_running());
    assert_eq!(spec.tool_names(), ["mcp__engine__deploy", "mcp__engine__echo", "mcp__engine__read_record"]);
    assert_eq!(spec.requires_approval(), ["mcp__engine__deploy"]);
    assert_eq!(spec.auto_approve(), ["mcp__engine__echo", "mcp__engine__read_record"]);
    assert_eq!(spec.caps(), ["deploy", "egress", "private_data"]);
    assert_eq!(spec.mcp_names().qualified("read_record"), Some("mcp__engine__read_record"));
    let url = spec.url().unwrap().to_owned();
    assert_eq!(url, format!("http://127.0.0.1:{}/mcp", spec.local_addr().unwrap().port()));
    let token = spec.auth_headers()["Authorization"].strip_prefix("Bearer ").unwrap().to_owned();
    assert_eq!(token.len(), 43);

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(spec.config_path()).unwrap()).unwrap();
    assert_eq!(
        doc,
        serde_json::json!({"mcpServers": {"engine": {"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {token}")}}}})
    );
    assert_eq!(mode(spec.config_path()), 0o600);
    assert_eq!(mode(spec.config_path().parent().unwrap()), 0o700);
    assert_eq!(spec.calls_seen(), 0);

    let args = spec.claude_cli_args(true);
    assert_eq!(args, ["--mcp-config", &spec.config_path().display().to_string(), "--strict-mcp-config"]);
    assert_eq!(&spec.claude_cli_args(false)[3..], ["--tools="]);
    assert!(!args.iter().any(|a| a.contains(&token)), "the token never travels in argv");

    let codex = spec.codex_config();
    assert!(!codex.toml.contains(&token), "the token never appears in config.toml: {}", codex.toml);
    assert_eq!(
        codex.toml,
        format!("[mcp_servers.engine]\nurl = \"{url}\"\nbearer_token_env_var = \"TOOLWIRE_ENGINE_TOKEN\"\n")
    );
    assert_eq!(codex.env["TOOLWIRE_ENGINE_TOKEN"], token);
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_deletes_the_config_start_rewrites_it_on_the_same_port() {
    let mut spec = make(SpecOptions::http());
    let port = spec.local_addr().unwrap().port();
    let path = spec.config_path().to_owned();
    let dir = path.parent().unwrap().to_owned();
    spec.start().unwrap();
    spec.start().unwrap(); // idempotent
    assert_eq!(ping(&spec).await, 200);

    spec.stop();
    spec.stop(); // idempotent
    assert!(!path.exists() && !dir.exists(), "stop removes the live credential and its directory");
    assert!(!spec.is_running());

    spec.start().unwrap();
    assert!(path.exists(), "start rewrites the config it names");
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(spec.local_addr().unwrap().port(), port);
    assert_eq!(ping(&spec).await, 200, "serving again after re-entry");
    drop(spec);
    assert!(!path.exists(), "dropping the spec stops it");
}

#[test]
fn a_busy_port_is_an_error_naming_the_address() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port();
    let err = serve_registry(
        Server::new(tools![echo].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http().port(port),
    )
    .unwrap_err();
    assert!(matches!(err, SpecError::Bind { .. }));
    assert_eq!(
        err.to_string(),
        format!("could not bind 127.0.0.1:{port}: Address already in use (os error 98)")
    );
}

#[test]
fn two_specs_never_collide() {
    let a = make(SpecOptions::http());
    let b = make(SpecOptions::http());
    assert_ne!(a.local_addr(), b.local_addr());
    assert_ne!(a.config_path(), b.config_path());
    assert_ne!(a.auth_headers(), b.auth_headers());
}

#[test]
fn non_loopback_binds_are_refused_unless_explicit_and_authenticated() {
    let any = "0.0.0.0:0".parse().unwrap();
    let err = serve_registry(
        Server::new(tools![echo].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http().bind(any),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "refusing to serve on 0.0.0.0:0: it is not a loopback address; call `.allow_non_loopback()` to mean it, and keep bearer auth on"
    );
    let open = SpecOptions::http().bind(any).allow_non_loopback().http_config(HttpConfig::new(Auth::None));
    let server = Server::new(tools![echo].unwrap(), engine());
    assert!(matches!(serve_registry(server, open), Err(SpecError::NotLoopback { .. })));
}

#[test]
fn the_stdio_projection_names_a_command_and_has_no_url() {
    let err = serve_registry(
        Server::new(tools![echo].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http().transport(TransportKind::Stdio),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("transport = stdio needs a command: the agent CLI spawns a stdio server itself")
    );

    let cmd = StdioCommand::current_exe(["--serve"]).unwrap().env("APP_MODE", "tools");
    let spec = make(SpecOptions::stdio(cmd.clone()));
    assert_eq!(spec.url(), None);
    assert!(spec.auth_headers().is_empty());
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(spec.config_path()).unwrap()).unwrap();
    assert_eq!(
        doc["mcpServers"]["engine"],
        serde_json::json!({"type": "stdio", "command": cmd.command, "args": ["--serve"], "env": {"APP_MODE": "tools"}})
    );
    assert!(std::path::Path::new(&cmd.command).is_absolute());
}

#[test]
fn a_caller_supplied_path_is_left_alone() {
    let dir = std::env::temp_dir().join(format!("toolwire-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cfg.json");
    let mut spec = make(SpecOptions::http().config_path(&path));
    assert_eq!(spec.config_path(), path);
    assert_eq!(mode(&path), 0o600);
    spec.stop();
    assert!(path.exists() && dir.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_server_name_is_refused_not_rewritten() {
    let err = serve_registry(
        Server::new(tools![echo].unwrap(), ServerOptions::new("my engine", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server name 'my engine' is not usable in `mcp__<server>__<tool>`; use 1 to 64 of `A-Z a-z 0-9 _ -`"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_spec_honours_the_auth_of_the_http_config_it_is_given() {
    // A bearer token of the program's own: the one the config file carries and the endpoint
    // demands.
    let token = BearerToken::generate();
    let mut spec = make(SpecOptions::http().http_config(HttpConfig::new(Auth::Bearer(token.clone()))));
    spec.start().unwrap();
    assert_eq!(spec.bearer_token(), Some(token.expose()));
    assert_eq!(ping(&spec).await, 200);
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(spec.config_path()).unwrap()).unwrap();
    assert_eq!(cfg["mcpServers"]["engine"]["headers"]["Authorization"], format!("Bearer {}", token.expose()));

    // An authenticator of the program's own checks every request; the config file names no
    // credential (the CLI brings its own).
    let verify = |t: &str| match t {
        "alice-token" => Ok(Principal::new("alice")),
        _ => Err(Refusal::InvalidToken("unknown token".into())),
    };
    let auth = Auth::resource_server(ResourceServer::new("http://127.0.0.1/mcp", verify));
    let mut spec = make(SpecOptions::http().http_config(HttpConfig::new(auth)));
    spec.start().unwrap();
    assert_eq!((spec.bearer_token(), spec.auth_headers().len()), (None, 0));
    assert_eq!(ping(&spec).await, 401, "no credential: refused by the authenticator");
    let addr = spec.local_addr().unwrap();
    let mut h = mcp_headers(addr);
    h.push(("Authorization".into(), "Bearer alice-token".into()));
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &h, body)).await.unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
}
