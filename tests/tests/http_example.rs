//! `serve_registry!`'s `--http` flag, on the real example binary: it says where it serves and
//! how to connect, keeps the token to itself unless asked, serves, and cleans up on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use toolwire_tests::example_server::example_server;
use toolwire_tests::http::{mcp_headers, request};

fn lines_until_help(reader: &mut impl BufRead) -> Vec<String> {
    let mut lines = Vec::new();
    for _ in 0..4 {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        lines.push(line.trim_end().to_owned());
    }
    lines
}

/// Start the example server with `--http` and `extra`: the child, its stdout (kept open, so
/// the server can still write), and its first four lines.
fn serve_http(extra: &[&str]) -> (std::process::Child, impl BufRead, Vec<String>) {
    let mut child = Command::new(example_server())
        .arg("--http")
        .args(extra)
        .args(["--log-level", "off"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let lines = lines_until_help(&mut out);
    (child, out, lines)
}

#[test]
fn http_flag_serves_prints_how_to_connect_and_cleans_up() {
    let (mut child, _stdout, lines) = serve_http(&["--show-token"]);
    let url = lines[0].rsplit(' ').next().unwrap().to_owned();
    assert!(
        lines[0].starts_with("toolwire-example 0.1.0 serving MCP (streamable HTTP) at http://127.0.0.1:"),
        "{lines:?}"
    );
    let config = lines[2]
        .strip_prefix("claude: claude --mcp-config ")
        .unwrap()
        .strip_suffix(" --strict-mcp-config")
        .unwrap();
    assert!(std::path::Path::new(config).exists());
    let auth = lines[3].strip_prefix("header: Authorization: ").unwrap().to_owned();

    let addr: std::net::SocketAddr =
        url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut h = mcp_headers(addr);
    assert_eq!(request(addr, "POST", "/mcp", &h, init).status, 401);
    h.push(("Authorization".into(), auth));
    let r = request(addr, "POST", "/mcp", &h, init);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["serverInfo"]["name"], "toolwire-example");

    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "SIGTERM is a clean stop");
    assert!(!std::path::Path::new(config).exists(), "the config (a live credential) is gone after the stop");
}

#[test]
fn without_show_token_the_token_is_not_printed() {
    let (mut child, _stdout, lines) = serve_http(&[]);
    let config = lines[2]
        .strip_prefix("claude: claude --mcp-config ")
        .unwrap()
        .strip_suffix(" --strict-mcp-config")
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(config).unwrap()).unwrap();
    let header =
        doc["mcpServers"]["toolwire-example"]["headers"]["Authorization"].as_str().unwrap().to_owned();
    let token = header.strip_prefix("Bearer ").unwrap();
    assert_eq!(lines[3], "(pass --show-token to print the Authorization header)");
    assert!(lines.iter().all(|l| !l.contains(token)));
    // SIGTERM, not SIGKILL: the server must get to delete its credential.
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(!std::path::Path::new(config).exists());
}
