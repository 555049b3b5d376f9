//! Shared helpers for the client tests: where the peers are, and whether a process is gone.

#![allow(dead_code, unreachable_pub)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use toolwire::client::StdioServer;

/// The workspace's `tests/` directory.
pub fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A peer path from the environment, or from `tests/peers/env.sh` when the variable is not
/// exported. Fails loudly when the peers are not installed.
pub fn peer(var: &str) -> String {
    if let Ok(v) = std::env::var(var) {
        return v;
    }
    let env_sh = tests_dir().join("peers/env.sh");
    let text = std::fs::read_to_string(&env_sh).unwrap_or_else(|_| {
        panic!("the interop peers are not installed ({var} is unset and {} is missing): run `bash tests/peers/setup.sh` first", env_sh.display())
    });
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(&format!("export {var}=")) {
            return rest.replace("\\ ", " ");
        }
    }
    panic!("{var} is not in {}: run `bash tests/peers/setup.sh` again", env_sh.display())
}

/// A fixture script in `tests/peers/fixtures/`.
pub fn fixture(name: &str) -> String {
    tests_dir().join("peers/fixtures").join(name).display().to_string()
}

/// server-everything over stdio.
pub fn everything() -> StdioServer {
    StdioServer::new(peer("TOOLWIRE_NODE22")).args([peer("TOOLWIRE_SERVER_EVERYTHING"), "stdio".into()])
}

/// A Python fixture run with mcp 2.3.0.
pub fn py2(script: &str) -> StdioServer {
    StdioServer::new(peer("TOOLWIRE_PY_MCP2")).arg(fixture(script))
}

/// Whether process `pid` is gone (or a zombie no one will run again).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Wait up to 10 s for `pid` to be gone; panics if it is not.
pub async fn assert_gone(pid: u32) {
    let start = Instant::now();
    while !process_gone(pid) {
        assert!(start.elapsed() < Duration::from_secs(10), "process {pid} is still running");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Build binary `bin` of workspace package `package` and return its path, from cargo's own
/// artifact report (right whatever the target directory).
pub fn workspace_binary(package: &str, bin: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["build", "-p", package, "--bin", bin, "--message-format=json"])
        .current_dir(tests_dir().parent().expect("tests/ lives in the workspace"))
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("run cargo build");
    assert!(out.status.success(), "building {package}/{bin} failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bin)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reported no executable for {package}/{bin}"))
}

/// How many tasks are alive on the test's runtime.
pub fn alive_tasks() -> usize {
    tokio::runtime::Handle::current().metrics().num_alive_tasks()
}

/// Wait up to 5 s for the runtime's live tasks to fall back to `baseline`; panics if not.
pub async fn assert_no_task_left(baseline: usize) {
    let start = Instant::now();
    while alive_tasks() > baseline {
        assert!(start.elapsed() < Duration::from_secs(5), "{} task(s) left behind", alive_tasks() - baseline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A server child killed (and reaped) when the test ends, however it ends.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port free on 127.0.0.1 now (bound and released: a server started next takes it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Spawn `cmd` (its output dropped) and wait, up to 20 s, until it accepts on `port`.
pub fn start(cmd: &mut Command, port: u16) -> Server {
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "server on port {port} did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Server(child)
}
