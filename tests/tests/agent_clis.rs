//! The real agent CLIs read what `serve_registry` writes (issue 4).
//!
//! - Claude Code 2.1.332 connects with our `--mcp-config` file and `claude_cli_args` (HTTP and
//!   stdio), lists every `mcp__<name>__<tool>`, `--tools=` leaves only ours, and with a fake
//!   Messages API on loopback it calls our echo for real while `--allowedTools` set to
//!   `auto_approve()` withholds `deploy` (`requires_approval`).
//! - Codex 0.171.0 accepts our `[mcp_servers.<name>]` table under `--strict-config` (and
//!   refuses an unknown key, so the check is real), and `codex app-server` connects, lists our
//!   tools and calls echo: over HTTP with the token from the environment alone (it is in no
//!   process's argv), and over stdio.
//!
//! Both CLIs run offline, with no key and no login, each in a fresh `HOME` (and
//! `CODEX_HOME`) and a cleared environment, talking to nothing but 127.0.0.1; the server is
//! `serve-for-cli` (tests/src/bin/serve-for-cli.rs). They come from
//! `bash tests/peers/agent-clis/setup.sh`, which writes `tests/peers/agent-clis/env.sh`; these
//! tests fail (they never skip) when it has not been run.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "agent_cli_support/mod.rs"]
mod agent_cli_support;
use agent_cli_support::{FakeModel, TempHome, claude_run, clis, isolated, run_bounded};

/// One JSON-RPC answer from `codex app-server`.
const RPC_TIMEOUT: Duration = Duration::from_secs(45);

// ------------------------------------------------------------------ our server

/// `serve-for-cli` as a child: the spec line it printed, and the process serving it.
struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    spec: Value,
}

impl Served {
    /// The HTTP transport, served by the child.
    fn start(name: &str) -> Served {
        Served::spawn(&[name])
    }

    /// The stdio projection: the CLI spawns `serve-for-cli --serve-stdio NAME` itself.
    fn start_stdio(name: &str) -> Served {
        Served::spawn(&[name, "--stdio"])
    }

    fn spawn(args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_serve-for-cli"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start serve-for-cli");
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let line = lines.recv_timeout(Duration::from_secs(20)).expect("serve-for-cli prints its spec line");
        let spec = serde_json::from_str(&line).expect("the spec line is JSON");
        Served { child, stdin, lines, spec }
    }

    fn str(&self, key: &str) -> &str {
        self.spec[key].as_str().unwrap_or_else(|| panic!("spec line has no {key}: {}", self.spec))
    }

    fn strings(&self, key: &str) -> Vec<String> {
        serde_json::from_value(self.spec[key].clone()).unwrap()
    }

    fn codex_env(&self) -> BTreeMap<String, String> {
        serde_json::from_value(self.spec["codex_env"].clone()).unwrap()
    }

    /// Close its stdin (it stops, deleting the config file) and return how many tool calls
    /// it saw.
    fn finish(mut self) -> u64 {
        drop(self.stdin.take());
        let line =
            self.lines.recv_timeout(Duration::from_secs(20)).expect("serve-for-cli reports calls_seen");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "serve-for-cli exited with {status}");
        serde_json::from_str::<Value>(&line).unwrap()["calls_seen"].as_u64().unwrap()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ------------------------------------------------------------------ Claude Code

/// The first line, the `system/init` event (with no model to talk to, the run then ends
/// with "Not logged in", exit 1, which says nothing about us).
fn claude_init(args: &[String]) -> Value {
    let init = claude_run(args, &[]).swap_remove(0);
    assert_eq!((init["type"].as_str(), init["subtype"].as_str()), (Some("system"), Some("init")), "{init}");
    init
}

fn tools_of(init: &Value) -> Vec<String> {
    serde_json::from_value(init["tools"].clone()).unwrap()
}

fn assert_connected(init: &Value, name: &str) {
    let servers = init["mcp_servers"].as_array().expect("init lists mcp_servers");
    assert_eq!(
        servers.iter().map(|s| (s["name"].as_str(), s["status"].as_str())).collect::<Vec<_>>(),
        [(Some(name), Some("connected"))],
        "exactly our server, connected (--strict-mcp-config): {servers:?}"
    );
}

#[test]
fn claude_code_connects_with_our_mcp_config_and_sees_every_tool() {
    let served = Served::start("engine");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(served.str("config_path")).unwrap()).unwrap();
    assert_eq!(config["mcpServers"]["engine"]["url"], served.spec["url"]);

    let mut args = vec!["hi".to_owned()];
    args.extend(served.strings("claude_args"));
    let init = claude_init(&args);
    assert_connected(&init, "engine");
    let tools = tools_of(&init);
    assert_eq!(
        served.strings("tool_names"),
        ["mcp__engine__add", "mcp__engine__deploy", "mcp__engine__echo"]
    );
    for t in served.strings("tool_names") {
        assert!(tools.contains(&t), "{t} missing from the CLI's tools: {tools:?}");
    }
    assert!(tools.iter().any(|t| t == "Bash"), "claude_cli_args(true) keeps the built-in tools: {tools:?}");
    assert_eq!(served.finish(), 0, "listing tools calls none");
}

#[test]
fn claude_cli_args_without_builtins_leave_only_our_tools_even_before_a_prompt() {
    let served = Served::start("engine");
    // The args last, then the prompt: a list-valued flag at the end would swallow it.
    let mut args = served.strings("claude_args_no_builtins");
    assert_eq!(args.last().map(String::as_str), Some("--tools="));
    args.push("hi".to_owned());
    let init = claude_init(&args);
    assert_connected(&init, "engine");
    assert_eq!(tools_of(&init), served.strings("tool_names"), "--tools= removes every built-in tool");
    served.finish();
}

#[test]
fn claude_would_swallow_a_prompt_after_a_separate_empty_tools_argument() {
    // Why `claude_cli_args(false)` emits `--tools=` and not `--tools ""`.
    let home = TempHome::new("claude-swallow");
    let out = run_bounded(
        isolated(&clis().claude, &home.0).env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1").args([
            "--output-format",
            "stream-json",
            "--verbose",
            "-p",
            "--tools",
            "",
            "hi",
        ]),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Input must be provided"), "{}: {stderr}", out.status);
}

#[test]
fn claude_code_spawns_our_stdio_projection() {
    let served = Served::start_stdio("engine");
    assert!(served.spec["url"].is_null());
    let mut args = vec!["hi".to_owned()];
    args.extend(served.strings("claude_args"));
    let init = claude_init(&args);
    assert_connected(&init, "engine");
    let tools = tools_of(&init);
    for t in served.strings("tool_names") {
        assert!(tools.contains(&t), "{t} missing from the CLI's tools: {tools:?}");
    }
    served.finish();
}

#[test]
fn claude_code_calls_our_tool_for_a_model_and_withholds_the_one_that_needs_approval() {
    let served = Served::start("engine");
    let model = FakeModel::start(vec![
        ("mcp__engine__echo".to_owned(), json!({"text": "hi from claude"})),
        ("mcp__engine__deploy".to_owned(), json!({"target": "prod"})),
    ]);
    // What a caller does: pre-approve `auto_approve()`, so the CLI asks before the rest.
    let auto = served.strings("auto_approve");
    assert_eq!(auto, ["mcp__engine__add", "mcp__engine__echo"]);
    let mut args = vec!["hi".to_owned(), "--allowedTools".to_owned()];
    args.extend(auto);
    args.extend(served.strings("claude_args"));
    let env = [
        ("ANTHROPIC_BASE_URL", model.url.clone()),
        ("ANTHROPIC_API_KEY", "sk-ant-dummy".to_owned()),
        ("ENABLE_TOOL_SEARCH", "false".to_owned()),
    ];
    let lines = claude_run(&args, &env);

    let results: BTreeMap<String, Value> = lines
        .iter()
        .filter(|l| l["type"] == "user")
        .filter_map(|l| l["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| (b["tool_use_id"].as_str().unwrap().to_owned(), b.clone()))
        .collect();
    assert_eq!(
        results["toolu_0"]["content"],
        json!([{"type": "text", "text": "hi from claude"}]),
        "{lines:#?}"
    );
    assert_eq!(results["toolu_1"]["is_error"], true, "deploy was not pre-approved: {lines:#?}");
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result", "{result}");
    assert_eq!(result["permission_denials"][0]["tool_name"], "mcp__engine__deploy", "{result}");

    // The model was offered our tool under its qualified name, with our schema.
    let requests = model.requests.lock().unwrap().clone();
    let offered = requests
        .iter()
        .filter_map(|r| r["tools"].as_array())
        .flatten()
        .find(|t| t["name"] == "mcp__engine__echo")
        .unwrap_or_else(|| panic!("no request offered mcp__engine__echo: {requests:#?}"))
        .clone();
    assert_eq!(offered["input_schema"]["required"], json!(["text"]), "{offered}");
    assert_eq!(served.finish(), 1, "echo reached the server; deploy never did");
}

// ------------------------------------------------------------------ Codex

/// Top-level settings that keep `codex app-server` on loopback: without them a thread start
/// resolves public hosts (the plugin catalogue's, the API's; strace shows the DNS queries),
/// with them it connects to nothing but 127.0.0.1. They sit before our table, as top-level
/// keys must.
const CODEX_OFFLINE: &str = "check_for_update_on_startup = false
openai_base_url = \"http://127.0.0.1:9/v1\"
chatgpt_base_url = \"http://127.0.0.1:9/\"

[features]
plugins = false
remote_plugin = false

";

fn codex_home_with(toml: &str) -> TempHome {
    let home = TempHome::new("codex");
    std::fs::write(home.0.join("config.toml"), toml).unwrap();
    home
}

fn codex_command(home: &TempHome) -> Command {
    let mut cmd = isolated(&clis().codex, &home.0);
    cmd.env("CODEX_HOME", &home.0);
    cmd
}

fn codex_strict_check(toml: &str) -> (bool, String) {
    let home = codex_home_with(toml);
    let out =
        run_bounded(codex_command(&home).args(["app-server", "--strict-config", "--print-startup-config"]));
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn codex_strict_config_accepts_our_table() {
    let served = Served::start("tool-wire");
    let toml = served.str("codex_toml").to_owned();
    assert!(toml.contains("bearer_token_env_var = \"TOOLWIRE_TOOL_WIRE_TOKEN\""), "{toml}");

    let (ok, stdout) = codex_strict_check(&toml);
    assert!(ok, "codex --strict-config refused our table:\n{toml}\n{stdout}");
    let printed: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(printed["appServerVersion"], "0.171.0");

    // The check is real: a key Codex does not know fails it, naming the key.
    let (ok, stdout) = codex_strict_check(&format!("{toml}type = \"http\"\n"));
    assert!(!ok && stdout.contains("unknown configuration field `mcp_servers.tool-wire.type`"), "{stdout}");
    served.finish();
}

/// `codex app-server` over JSON-RPC on stdio.
struct AppServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    /// Notifications seen so far, for failure messages.
    seen: Vec<Value>,
    /// Our server's entry in the last `mcpServerStatus/list`.
    last_status: Value,
}

impl AppServer {
    fn spawn(cmd: &mut Command) -> AppServer {
        let mut child = cmd
            .arg("app-server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start codex app-server");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        AppServer { child, stdin, lines, next_id: 1, seen: Vec::new(), last_status: Value::Null }
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").and_then(|()| stdin.flush()).expect("write to codex app-server");
    }

    /// The next message satisfying `want`, within `RPC_TIMEOUT`: first among those set aside
    /// while waiting for something else (Codex may send a server's startup status before it
    /// answers `thread/start`), then as they come.
    fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.seen.iter().position(&want) {
            return self.seen.remove(at);
        }
        let deadline = Instant::now() + RPC_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!("codex app-server: no {what} within {RPC_TIMEOUT:?}; saw {:#?}", self.seen)
            });
            let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
            if want(&msg) {
                return msg;
            }
            self.seen.push(msg);
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let msg = self.wait_for(method, |m| m["id"] == id && m.get("method").is_none());
        assert!(msg.get("error").is_none(), "{method} failed: {msg}");
        msg["result"].clone()
    }

    /// Close stdin and wait (bounded) for a clean exit.
    fn shut_down(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "codex app-server did not exit on stdin EOF");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every process's argv that holds `needle`.
fn argv_holding(needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if !entry.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(raw) = std::fs::read(entry.path().join("cmdline"))
            && String::from_utf8_lossy(&raw).contains(needle)
        {
            hits.push(format!("{}: {}", entry.file_name().to_string_lossy(), String::from_utf8_lossy(&raw)));
        }
    }
    hits
}

/// Start a thread in `codex app-server` with `config` and `env`, check that `server` is
/// ready with our three tools, and call echo; the app server is returned still running.
fn codex_connects_and_calls_echo(home: &TempHome, env: &BTreeMap<String, String>, server: &str) -> AppServer {
    let mut app = AppServer::spawn(codex_command(home).envs(env));
    app.request("initialize", json!({"clientInfo": {"name": "toolwire-tests", "version": "0"}}));
    app.send(&json!({"jsonrpc": "2.0", "method": "initialized"}));
    let thread = app.request("thread/start", json!({"cwd": home.0, "ephemeral": true}));
    let thread_id = thread["thread"]["id"].as_str().expect("thread/start gives a thread id").to_owned();

    // Codex connects to each server in the background and says how it went.
    let startup = app.wait_for(&format!("mcpServer/startupStatus/updated for {server}"), |m| {
        m["method"] == "mcpServer/startupStatus/updated"
            && m["params"]["name"] == server
            && matches!(m["params"]["status"].as_str(), Some("ready" | "failed"))
    });
    assert_eq!(startup["params"]["status"], "ready", "Codex could not connect: {startup}");

    let status = app.request("mcpServerStatus/list", json!({}));
    let ours = status["data"]
        .as_array()
        .and_then(|d| d.iter().find(|s| s["name"] == server))
        .unwrap_or_else(|| panic!("{server} missing from mcpServerStatus/list: {status}"))
        .clone();
    assert_eq!(ours["serverInfo"]["name"], server, "{ours}");
    let mut tools: Vec<&str> =
        ours["tools"].as_object().expect("tools by name").keys().map(String::as_str).collect();
    tools.sort_unstable();
    assert_eq!(tools, ["add", "deploy", "echo"], "{ours}");

    let result = app.request(
        "mcpServer/tool/call",
        json!({"threadId": thread_id, "server": server, "tool": "echo", "arguments": {"text": "hello from codex"}}),
    );
    assert_eq!(result, json!({"content": [{"type": "text", "text": "hello from codex"}], "isError": false}));
    app.last_status = ours;
    app
}

#[test]
fn codex_app_server_connects_with_the_token_from_the_environment_only() {
    let served = Served::start("tool-wire");
    let env = served.codex_env();
    let (var, token) = env.iter().next().expect("the codex env carries the token");
    assert_eq!((var.as_str(), env.len()), ("TOOLWIRE_TOOL_WIRE_TOKEN", 1));
    let config = format!("{CODEX_OFFLINE}{}", served.str("codex_toml"));
    assert!(codex_strict_check(&config).0, "--strict-config refused:\n{config}");
    let home = codex_home_with(&config);

    let app = codex_connects_and_calls_echo(&home, &env, "tool-wire");
    assert_eq!(app.last_status["authStatus"], "bearerToken", "{}", app.last_status);
    let pid = app.child.id();

    // The token reached Codex through its environment: no process's argv carries it.
    let hits = argv_holding(token);
    assert!(hits.is_empty(), "the token is in argv: {hits:?}");
    let codex_argv = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    assert!(String::from_utf8_lossy(&codex_argv).ends_with("app-server\0"));

    app.shut_down();
    assert_eq!(served.finish(), 1, "exactly the one echo call reached the server");
}

#[test]
fn codex_spawns_our_stdio_projection() {
    let served = Served::start_stdio("tool-wire");
    let toml = served.str("codex_toml").to_owned();
    assert!(served.codex_env().is_empty(), "no token for stdio");
    let (ok, stdout) = codex_strict_check(&toml);
    assert!(ok, "codex --strict-config refused our stdio table:\n{toml}\n{stdout}");

    let config = format!("{CODEX_OFFLINE}{toml}");
    let home = codex_home_with(&config);
    let app = codex_connects_and_calls_echo(&home, &BTreeMap::new(), "tool-wire");
    app.shut_down();
    served.finish();
}
