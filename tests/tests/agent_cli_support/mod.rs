//! Shared support for the tests that drive the real agent CLIs (agent_clis.rs,
//! approvals_claude.rs): where the installed CLIs are, a fresh `HOME` per run, a cleared
//! environment, a bounded run, Claude Code's stream-json output, and a fake Messages API
//! on loopback that makes Claude Code call tools without a real model.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Longer than the 30 s the CLIs give a server to connect.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(90);

// ------------------------------------------------------------------ the installed CLIs

pub struct Clis {
    pub claude: PathBuf,
    pub codex: PathBuf,
}

/// The CLIs from `TOOLWIRE_CLAUDE` / `TOOLWIRE_CODEX`, or else from the `env.sh` the setup
/// script writes.
pub fn clis() -> &'static Clis {
    static CLIS: OnceLock<Clis> = OnceLock::new();
    CLIS.get_or_init(|| {
        let env_sh = toolwire_tests::tests_dir().join("peers/agent-clis/env.sh");
        let from_file: BTreeMap<String, String> = std::fs::read_to_string(&env_sh)
            .map(|text| {
                text.lines()
                    .filter_map(|l| l.strip_prefix("export "))
                    .filter_map(|l| l.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.trim_matches(|c| c == '\'' || c == '"').to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let get = |var: &str| -> PathBuf {
            let path = std::env::var_os(var)
                .map(PathBuf::from)
                .or_else(|| from_file.get(var).map(PathBuf::from))
                .unwrap_or_else(|| {
                    panic!(
                        "{} is missing (and {var} is not set): run `bash tests/peers/agent-clis/setup.sh` first; \
                         it installs the pinned Claude Code and Codex CLIs (~810 MB) into a cache outside the clone",
                        env_sh.display()
                    )
                });
            assert!(
                path.is_file(),
                "{var}={} does not exist: rerun `bash tests/peers/agent-clis/setup.sh`",
                path.display()
            );
            path
        };
        Clis { claude: get("TOOLWIRE_CLAUDE"), codex: get("TOOLWIRE_CODEX") }
    })
}

/// A fresh directory under cargo's target tmp dir (not /tmp: Codex refuses to put its
/// helper links under the system temp dir, and warns), removed on drop.
pub struct TempHome(pub PathBuf);

impl TempHome {
    pub fn new(tag: &str) -> TempHome {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("agent-clis-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempHome(dir)
    }
}

impl Drop for TempHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A command with a cleared environment: only `PATH` and `HOME` (the caller adds the rest),
/// so no key, base URL or config of the machine's leaks into the run.
pub fn isolated(program: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .current_dir(home);
    cmd
}

/// Run to completion with stdin closed; kill it (and fail) after `CLI_TIMEOUT`.
pub fn run_bounded(cmd: &mut Command) -> Output {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let deadline = Instant::now() + CLI_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = String::from_utf8_lossy(&err_t.join().unwrap()).into_owned();
            panic!("{cmd:?} did not finish in {CLI_TIMEOUT:?}; stderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output { status, stdout: out_t.join().unwrap(), stderr: err_t.join().unwrap() }
}

/// `claude --output-format stream-json --verbose -p <args...>` in a fresh HOME, with `env`
/// added; every line it printed, as JSON.
pub fn claude_run(args: &[String], env: &[(&str, String)]) -> Vec<Value> {
    let home = TempHome::new("claude");
    claude_run_in(&home.0, args, env)
}

/// [`claude_run`] in a `HOME` (and working directory) the caller prepared, e.g. with
/// settings files in it.
pub fn claude_run_in(home: &Path, args: &[String], env: &[(&str, String)]) -> Vec<Value> {
    let out = run_bounded(
        isolated(&clis().claude, home)
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .args(["--output-format", "stream-json", "--verbose", "-p"])
            .args(args),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("claude printed a non-JSON line ({e}): {l}"))
        })
        .collect();
    assert!(
        !lines.is_empty(),
        "claude {args:?} printed nothing ({}); stderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    lines
}

/// A fake Messages API on loopback: the model's first turn asks for each of `calls` (tool
/// name, input) at once; once tool results come back it answers with text. It records every
/// request body.
pub struct FakeModel {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Value>>>,
}

impl FakeModel {
    pub fn start(calls: Vec<(String, Value)>) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let calls = Arc::new(calls);
        // The thread ends with the test process; each connection gets one answer and is closed.
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let (seen, calls) = (seen.clone(), calls.clone());
                std::thread::spawn(move || FakeModel::answer(stream, &seen, &calls));
            }
        });
        FakeModel { url, requests }
    }

    fn answer(mut stream: TcpStream, seen: &Mutex<Vec<Value>>, calls: &[(String, Value)]) {
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 8192];
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buf.len() < head_end + len {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let request: Value = serde_json::from_slice(&buf[head_end..head_end + len]).unwrap_or(Value::Null);
        seen.lock().unwrap().push(request.clone());

        let last = request["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or(Value::Null);
        let has_results =
            last["content"].as_array().is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
        let offers =
            |name: &str| request["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["name"] == name));
        let (blocks, stop) = if !has_results && !calls.is_empty() && calls.iter().all(|(n, _)| offers(n)) {
            let uses = calls
                .iter()
                .enumerate()
                .map(|(i, (name, input))| json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": name, "input": input}))
                .collect();
            (uses, "tool_use")
        } else {
            (vec![json!({"type": "text", "text": "done"})], "end_turn")
        };
        let mut message = json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake",
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}});
        let (content_type, body) = if request["stream"] == true {
            let mut events = vec![json!({"type": "message_start", "message": message})];
            for (i, b) in blocks.iter().enumerate() {
                if b["type"] == "tool_use" {
                    events.push(json!({"type": "content_block_start", "index": i,
                        "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}));
                    events.push(json!({"type": "content_block_delta", "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": b["input"].to_string()}}));
                } else {
                    events.push(json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}));
                    events.push(json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}}));
                }
                events.push(json!({"type": "content_block_stop", "index": i}));
            }
            events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 1}}));
            events.push(json!({"type": "message_stop"}));
            let sse: String = events
                .iter()
                .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
                .collect();
            ("text/event-stream", sse)
        } else {
            message["content"] = Value::Array(blocks);
            message["stop_reason"] = json!(stop);
            ("application/json", message.to_string())
        };
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
    }
}
