//! Prompts and completion, served by `prompt-server` (tests/src/bin/prompt-server.rs) to real
//! clients over real transports: the Python SDK 2.3.0 client over stdio and HTTP, in both eras
//! (tests/peers/clients/py_prompts_client.py reports what it saw, asserted here), and the
//! Inspector CLI. Bad input is asserted with its exact text. Needs the peers:
//! `bash tests/peers/setup.sh`.
//!
//!     cargo test -p toolwire-tests --test prompts

mod client_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use client_support::{peer, tests_dir, workspace_binary};
use serde_json::{Value, json};

fn server() -> String {
    workspace_binary("toolwire-tests", "prompt-server").display().to_string()
}

fn py_client(args: &[&str]) -> Value {
    let out = Command::new(peer("TOOLWIRE_PY_MCP2"))
        .arg(tests_dir().join("peers/clients/py_prompts_client.py"))
        .args(args)
        .output()
        .expect("run the Python client");
    assert!(out.status.success(), "the Python client failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the client prints one JSON object")
}

/// `prompt-server --http`, killed (by closing its stdin) on drop.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl HttpServer {
    fn start() -> HttpServer {
        let mut child = Command::new(server())
            .arg("--http")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn prompt-server --http");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("it prints its URL");
        HttpServer { child, url: line.trim().to_owned() }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

const ACCEPTED: &str = "Accepted arguments: ['code', 'focus', 'language']";
const AVAILABLE: &str = "available prompts: ['broken', 'code_review', 'greet', 'pick', 'show_media']";

/// Everything the Python client saw, in either era over either transport.
fn assert_report(r: &Value, version: &str) {
    assert_eq!(r["protocol_version"], version);
    assert_eq!(r["capabilities"]["prompts"], json!({"listChanged": false}));
    assert_eq!(r["capabilities"]["completions"], json!({}));
    let names: Vec<&str> =
        r["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["broken", "code_review", "greet", "pick", "show_media"]);
    assert_eq!(
        r["prompts"][1],
        json!({
            "name": "code_review", "title": "Code review", "description": "Review a piece of code.",
            "icons": [{"src": "https://example.com/review.png"}],
            "arguments": [
                {"name": "code", "description": "The code to review.", "required": true},
                {"name": "language", "description": "The language it is written in.", "required": false},
                {"name": "focus", "description": "What to look at first.", "required": false},
            ],
        })
    );
    assert_eq!(
        r["greet"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Hello! What shall we build today?"}}])
    );
    assert_eq!(
        r["code_review"]["messages"][0]["content"]["text"],
        "Review this rust code, focusing on anything:\nfn main() {}"
    );
    assert_eq!(
        r["media"]["messages"],
        json!([
            {"role": "user", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "The notes."}}},
        ])
    );
    assert_eq!(
        r["missing"],
        json!({"code": -32602, "message": format!("prompt 'code_review' get rejected: missing required argument(s) ['code']. {ACCEPTED}")})
    );
    assert_eq!(
        r["bad_enum"],
        json!({"code": -32602, "message": "prompt 'code_review' get rejected: argument 'language' must be one of ['python', 'rust', 'go'], got 'cobol'"})
    );
    assert_eq!(
        r["unknown"],
        json!({"code": -32602, "message": format!("unknown prompt 'nope'; {AVAILABLE}")})
    );
    assert_eq!(
        r["broken"],
        json!({"code": -32603, "message": "prompt 'broken' failed: the template file is missing"})
    );
    assert_eq!(
        r["complete_language"]["completion"],
        json!({"values": ["rust"], "total": 1, "hasMore": false})
    );
    assert_eq!(
        r["complete_focus"]["completion"],
        json!({"values": ["safety", "speed", "style"], "total": 3, "hasMore": false}),
        "the completer saw `language` already filled in"
    );
    let many = &r["complete_many"]["completion"];
    assert_eq!(many["values"].as_array().unwrap().len(), 100);
    assert_eq!(
        (&many["values"][99], &many["total"], &many["hasMore"]),
        (&json!("item-099"), &json!(500), &json!(true))
    );
    assert_eq!(
        r["complete_unknown"],
        json!({"code": -32602, "message": format!("completion for unknown prompt 'nope'; {AVAILABLE}")})
    );
    assert_eq!(
        r["complete_bad_arg"],
        json!({"code": -32602, "message": format!("prompt 'code_review' has no argument 'colour'. {ACCEPTED}")})
    );
}

#[test]
fn python_sdk_over_stdio_in_both_eras() {
    let server = server();
    assert_report(&py_client(&["--mode", "legacy", "--", &server]), "2025-11-25");
    assert_report(&py_client(&["--mode", "auto", "--", &server]), "2026-07-28");
}

#[test]
fn python_sdk_over_http_in_both_eras() {
    let http = HttpServer::start();
    assert_report(&py_client(&["--mode", "legacy", "--url", &http.url]), "2025-11-25");
    assert_report(&py_client(&["--mode", "auto", "--url", &http.url]), "2026-07-28");
}

/// One Inspector CLI invocation (its own process and session) against `prompt-server`.
fn inspector(era: &str, args: &[&str]) -> Value {
    let command = peer("TOOLWIRE_INSPECTOR");
    let mut words = command.split_whitespace();
    let home = std::env::temp_dir().join(format!("toolwire-prompts-inspector-{}", std::process::id()));
    std::fs::create_dir_all(home.join("home")).unwrap();
    let out = Command::new(words.next().unwrap())
        .args(words)
        .args(["--cli", &server(), "-q", "--format", "json", "--protocol-era", era])
        .args(args)
        .env("HOME", home.join("home"))
        .env("MCP_CATALOG_PATH", home.join("catalog.json"))
        .env("MCP_CLIENT_CONFIG_PATH", home.join("client.json"))
        .output()
        .expect("run the Inspector");
    assert!(out.status.success(), "the Inspector failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the Inspector prints JSON")
}

#[test]
fn inspector_lists_and_gets_prompts_in_both_eras() {
    for era in ["legacy", "modern"] {
        let listed = inspector(era, &["--method", "prompts/list"]);
        let names: Vec<&str> = listed["result"]["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["broken", "code_review", "greet", "pick", "show_media"], "{era}");
        let got = inspector(
            era,
            &[
                "--method",
                "prompts/get",
                "--prompt-name",
                "code_review",
                "--prompt-args",
                "code=x",
                "language=go",
            ],
        );
        assert_eq!(
            got["result"]["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "Review this go code, focusing on anything:\nx"}}]),
            "{era}"
        );
    }
}

/// Our client's `complete` against server-everything's `completable-prompt`, whose second
/// argument's values depend on the first (the context).
#[tokio::test]
async fn our_client_completes_server_everythings_prompt_arguments() {
    use toolwire::client::{Client, ClientOptions, EraMode};
    use toolwire::protocol::wire::{CompleteParams, CompleteResult, CompletionReference};

    let client =
        Client::connect(client_support::everything(), ClientOptions::new("everything").era(EraMode::Legacy))
            .await
            .unwrap();
    let prompt = || CompletionReference::Prompt { name: "completable-prompt".into() };
    let got = client.complete(&CompleteParams::new(prompt(), "department", "E")).await.unwrap();
    assert_eq!(got, CompleteResult::new(vec!["Engineering".into()], Some(1), false));
    let got = client
        .complete(&CompleteParams::new(prompt(), "name", "").with_context("department", "Engineering"))
        .await
        .unwrap();
    assert_eq!(
        got,
        CompleteResult::new(vec!["Alice".into(), "Bob".into(), "Charlie".into()], Some(3), false)
    );
    client.close().await;
}
