//! `serve_registry!` with `resources = [..]` and `prompts = [..]` beside `tools = [..]`
//! (`tests/src/bin/surface-server.rs`), and `serve_registry!(server = ..)` serving a `Server`
//! built in code (`tests/src/bin/built-server.rs`), as a real child process: over stdio, raw
//! newline-delimited JSON with the exact answers, and over `--http`, raw HTTP requests on
//! 127.0.0.1 carrying the bearer token the binary prints.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use toolwire_tests::example_server::StdioChild;
use toolwire_tests::http::{mcp_headers, request};

const SERVER: &str = env!("CARGO_BIN_EXE_surface-server");

const CAPABILITIES: &str = r#"{"tools":{"listChanged":false},"resources":{"subscribe":true,"listChanged":false},"prompts":{"listChanged":false},"completions":{},"logging":{}}"#;

fn child() -> StdioChild {
    StdioChild::spawn(Command::new(SERVER).args(["--log-level", "off"]))
}

#[test]
fn over_stdio_it_serves_the_tools_resources_template_and_prompt() {
    let mut c = child();
    assert_eq!(
        c.initialize("2025-11-25"),
        format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"2025-11-25","capabilities":{CAPABILITIES},"serverInfo":{{"name":"surface","version":"0.1.0"}}}}}}"#
        )
    );
    assert_eq!(
        c.ask(r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#),
        r#"{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"surface://motd","name":"motd","title":"Message of the day","description":"Today's message.","mimeType":"text/plain"}]}}"#
    );
    assert_eq!(
        c.ask(r#"{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}"#),
        r#"{"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"surface://notes/{topic}","name":"notes","description":"The notes on one topic.","mimeType":"text/plain"}]}}"#
    );
    assert_eq!(
        c.ask(
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"surface://notes/release"}}"#
        ),
        r#"{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"surface://notes/release","mimeType":"text/plain","text":"notes on release"}]}}"#
    );
    assert_eq!(
        c.ask(r#"{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"surface://notes/{topic}"},"argument":{"name":"topic","value":"e"}}}"#),
        r#"{"jsonrpc":"2.0","id":4,"result":{"completion":{"values":["errors","ethics"],"total":2,"hasMore":false}}}"#
    );
    assert_eq!(
        c.ask(r#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"summarise","arguments":{"text":"a long day"}}}"#),
        r#"{"jsonrpc":"2.0","id":5,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Summarise (brief): a long day"}}]}}"#
    );
    assert_eq!(
        c.ask(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#),
        r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#
    );
    c.close_stdin();
    assert_eq!(c.wait_exit(std::time::Duration::from_secs(10)).map(|s| s.code()), Some(Some(0)));
}

#[test]
fn over_http_it_serves_them_too() {
    let mut server = Command::new(SERVER)
        .args(["--http", "--show-token", "--log-level", "off"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(server.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..4 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        lines.push(line.trim_end().to_owned());
    }
    let url = lines[0].rsplit(' ').next().unwrap().to_owned();
    assert!(
        lines[0].starts_with("surface 0.1.0 serving MCP (streamable HTTP) at http://127.0.0.1:"),
        "{lines:?}"
    );
    let auth = lines[3].strip_prefix("header: Authorization: ").unwrap().to_owned();
    let addr: std::net::SocketAddr =
        url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let mut h = mcp_headers(addr);
    h.push(("Authorization".into(), auth));
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = request(addr, "POST", "/mcp", &h, init);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["result"]["capabilities"],
        serde_json::from_str::<serde_json::Value>(CAPABILITIES).unwrap()
    );
    if let Some(session) = r.header("mcp-session-id") {
        h.push(("Mcp-Session-Id".into(), session.to_owned()));
    }
    let read = r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"surface://motd"}}"#;
    let r = request(addr, "POST", "/mcp", &h, read);
    assert_eq!(
        r.json()["result"]["contents"],
        serde_json::json!([{"uri": "surface://motd", "mimeType": "text/plain", "text": "Deploys freeze at 17:00."}])
    );
    let get = r#"{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"summarise","arguments":{"text":"x","style":"detailed"}}}"#;
    let r = request(addr, "POST", "/mcp", &h, get);
    assert_eq!(r.json()["result"]["messages"][0]["content"]["text"], "Summarise (detailed): x");
    // SIGTERM, so the server deletes its config file and exits 0.
    let term = Command::new("kill").args(["-TERM", &server.id().to_string()]).status().unwrap();
    assert!(term.success());
    assert_eq!(server.wait().unwrap().code(), Some(0));
}

const BUILT: &str = env!("CARGO_BIN_EXE_built-server");

#[test]
fn the_main_serves_a_server_built_in_code_over_stdio() {
    let mut c = StdioChild::spawn(Command::new(BUILT).args(["--log-level", "off"]));
    let init: serde_json::Value = serde_json::from_str(&c.initialize("2025-11-25")).unwrap();
    assert_eq!(
        init["result"]["serverInfo"],
        serde_json::json!({"name": "built-in-code", "version": "2.0.0"})
    );
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true, "a live server");
    assert_eq!(init["result"]["instructions"], "Built in code.");
    assert_eq!(
        c.ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shout","arguments":{"text":"hi"}}}"#),
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"HI"}],"isError":false}}"#
    );
    c.close_stdin();
    assert_eq!(c.wait_exit(std::time::Duration::from_secs(10)).map(|s| s.code()), Some(Some(0)));
}

#[test]
fn the_main_serves_a_server_built_in_code_over_http_and_refuses_the_flags_it_set() {
    let mut server = Command::new(BUILT)
        .args(["--http", "--show-token", "--log-level", "off"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(server.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..4 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        lines.push(line.trim_end().to_owned());
    }
    assert!(
        lines[0].starts_with("built-in-code 2.0.0 serving MCP (streamable HTTP) at http://127.0.0.1:"),
        "{lines:?}"
    );
    let url = lines[0].rsplit(' ').next().unwrap().to_owned();
    let auth = lines[3].strip_prefix("header: Authorization: ").unwrap().to_owned();
    let addr: std::net::SocketAddr =
        url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let mut h = mcp_headers(addr);
    h.push(("Authorization".into(), auth));
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let r = request(addr, "POST", "/mcp", &h, init);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["serverInfo"]["name"], "built-in-code");
    assert_eq!(r.json()["result"]["capabilities"]["tools"]["listChanged"], true);
    let term = Command::new("kill").args(["-TERM", &server.id().to_string()]).status().unwrap();
    assert!(term.success());
    assert_eq!(server.wait().unwrap().code(), Some(0));

    // Its options were set in code: the flags that would set them are usage errors.
    let refused = Command::new(BUILT).args(["--deadline", "5"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "error: '--deadline' is not available: this server's options are set in code (`serve_registry!(server = ..)`); set them on its `ServerOptions` there\n\nRun with --help to see the flags that exist.\n"
    );
}
