//! The example server as a real child process: building it once, and a raw newline-JSON
//! client for probing it line by line.
//!
//! The binary is built with `cargo build -p toolwire-examples --bin example-server` (any
//! other example binary with [`example_binary`]), run
//! through the `CARGO` that runs the tests, and located from cargo's own artifact report,
//! so the path is right whatever the target directory or profile layout.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long [`StdioChild::recv`] waits for a line before failing the test.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(20);

/// The path of the `example-server` binary, built on first use.
pub fn example_server() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| example_binary("example-server"))
}

/// Build the `toolwire-examples` binary `name` and return its path (cargo's build is the
/// cache: a second call for the same binary is a no-op build).
pub fn example_binary(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let workspace = crate::tests_dir().parent().expect("tests/ lives in the workspace").to_owned();
    let out = Command::new(cargo)
        .args(["build", "-p", "toolwire-examples", "--bin", name, "--message-format=json"])
        .current_dir(&workspace)
        .stderr(Stdio::inherit())
        .output()
        .expect("run cargo build for an example binary");
    assert!(out.status.success(), "building the example binary {name} failed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reported no executable for the example binary {name}"))
}

/// A server child process spoken to one line at a time.
pub struct StdioChild {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl StdioChild {
    /// Start the example server with `args`.
    pub fn example(args: &[&str]) -> StdioChild {
        StdioChild::spawn(Command::new(example_server()).args(args))
    }

    /// Start `command` with piped stdio.
    pub fn spawn(command: &mut Command) -> StdioChild {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_BACKTRACE", "0")
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().expect("piped stderr");
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    return;
                }
                sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        StdioChild { child, stdin, lines, stderr }
    }

    /// Write one message and its newline.
    pub fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }

    /// Write bytes as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush to the server");
    }

    /// The next line of stdout; fails the test after [`RECV_TIMEOUT`].
    pub fn recv(&self) -> String {
        match self.lines.recv_timeout(RECV_TIMEOUT) {
            Ok(line) => line,
            Err(e) => panic!("no line from the server ({e:?}); stderr:\n{}", self.stderr()),
        }
    }

    /// The next line, if one arrives within `wait`.
    pub fn recv_within(&self, wait: Duration) -> Option<String> {
        // Timed out, or the server closed stdout: either way, no line.
        self.lines.recv_timeout(wait).ok()
    }

    /// Send `line` and return the next line.
    pub fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.recv()
    }

    /// Assert that nothing arrives on stdout for `wait`.
    pub fn expect_silence(&self, wait: Duration) {
        if let Some(line) = self.recv_within(wait) {
            panic!("expected no message, got {line}");
        }
    }

    /// The legacy handshake at `version`: returns the `initialize` answer.
    pub fn initialize(&mut self, version: &str) -> String {
        let answer = self.ask(&format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"probe","version":"1.0"}}}}}}"#
        ));
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        answer
    }

    /// Close the server's stdin (the client's way of saying it is done).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Wait for the process to exit; `None` if it is still running after `wait`.
    pub fn wait_exit(&mut self, wait: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("poll the server") {
                return Some(status);
            }
            if start.elapsed() > wait {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An example binary serving loopback HTTP as a child process: it prints its endpoint URL
/// as its first line of stdout, and stops when its stdin closes (as `serve_registry!`'s
/// `--http` main and the `conformance` example do).
pub struct HttpChild {
    child: Child,
    /// The endpoint, `http://127.0.0.1:<port>/mcp`.
    pub url: String,
}

impl HttpChild {
    /// Start the example binary `name` with `args`, and wait (up to 30 s) for its URL line.
    pub fn example(name: &str, args: &[&str]) -> HttpChild {
        let mut child = Command::new(example_binary(name))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn the example binary {name}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let url =
            rx.recv_timeout(Duration::from_secs(30)).expect("the server prints its URL").trim().to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "unexpected URL line: {url:?}"
        );
        HttpChild { child, url }
    }
}

impl Drop for HttpChild {
    /// Close stdin (the server's cue to stop), give it 5 s, then kill it.
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
