//! Serve a small registry with `serve_registry` for a real agent CLI to connect to
//! (tests/tests/agent_clis.rs).
//!
//! Prints one JSON line as soon as it serves:
//!
//! ```text
//! {"url", "config_path", "claude_args", "claude_args_no_builtins", "tool_names",
//!  "auto_approve", "codex_toml", "codex_env"}
//! ```
//!
//! then serves until its stdin closes, stops (which deletes the config file), and prints
//! `{"calls_seen": N}`.
//!
//! - `serve-for-cli [NAME]` (default `engine`): the HTTP transport, served here.
//! - `serve-for-cli NAME --stdio`: the stdio projection, naming this binary with
//!   `--serve-stdio NAME` (and `TOOLWIRE_CLI_TEST=stdio` in its environment) for the CLI to
//!   spawn; `url` is null and nothing serves here (`calls_seen` stays 0).
//! - `serve-for-cli --serve-stdio NAME`: serve the same tools over stdio, as that child.

use std::io::{Read, Write};

use serde_json::json;
use toolwire::spec::{SpecOptions, StdioCommand};
use toolwire::{ServerOptions, serve_registry, serve_stdio, tool, tools};

/// Echo the text back.
#[tool(read_only)]
fn echo(
    /// The text to echo.
    text: String,
) -> String {
    text
}

/// Add two integers.
#[tool(read_only)]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a.saturating_add(b)
}

/// Deploy the current build to a target.
#[tool(side_effecting, requires_approval, caps = ["egress"])]
fn deploy(
    /// Where to deploy.
    target: String,
) -> String {
    format!("deployed to {target}")
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let registry = tools![echo, add, deploy].expect("the tool names are distinct");
    if let [flag, name] = args.as_slice()
        && flag == "--serve-stdio"
    {
        assert_eq!(
            std::env::var("TOOLWIRE_CLI_TEST").as_deref(),
            Ok("stdio"),
            "the spec's env reaches the child"
        );
        let options = ServerOptions::new(name.as_str(), env!("CARGO_PKG_VERSION"));
        serve_stdio(toolwire::Server::new(registry, options), toolwire::stdio::StdioConfig::new())
            .await
            .expect("serve over stdio");
        return;
    }
    let name = args.first().cloned().unwrap_or_else(|| "engine".to_owned());
    let options = if args.get(1).map(String::as_str) == Some("--stdio") {
        let command = StdioCommand::current_exe(["--serve-stdio", name.as_str()])
            .expect("the current executable")
            .env("TOOLWIRE_CLI_TEST", "stdio");
        SpecOptions::stdio(command)
    } else {
        SpecOptions::http()
    };
    let server = toolwire::Server::new(registry, ServerOptions::new(&name, "0.1.0"));
    let mut spec = serve_registry(server, options).expect("serve_registry");
    spec.start().expect("start");

    let codex = spec.codex_config();
    let line = json!({
        "url": spec.url(),
        "config_path": spec.config_path(),
        "claude_args": spec.claude_cli_args(true),
        "claude_args_no_builtins": spec.claude_cli_args(false),
        "tool_names": spec.tool_names(),
        "auto_approve": spec.auto_approve(),
        "codex_toml": codex.toml,
        "codex_env": codex.env,
    });
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).expect("write the spec line");
    drop(out);

    // Serve until the parent closes our stdin (or dies).
    tokio::task::spawn_blocking(|| {
        let _ = std::io::stdin().lock().read_to_end(&mut Vec::new());
    })
    .await
    .expect("the stdin reader does not panic");

    spec.stop();
    println!("{}", json!({"calls_seen": spec.calls_seen()}));
}
