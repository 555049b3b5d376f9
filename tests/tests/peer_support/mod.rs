//! Finding the installed third-party peers (`bash tests/peers/setup.sh` writes their paths to
//! `tests/peers/env.sh`), for the HTTP interop and conformance tests.

#![allow(dead_code, unreachable_pub)]

use std::process::Command;

/// The value of `var` from the environment, or else from `tests/peers/env.sh`.
pub fn peer(var: &str) -> String {
    if let Ok(v) = std::env::var(var) {
        return v;
    }
    let env_sh = toolwire_tests::tests_dir().join("peers/env.sh");
    let text = std::fs::read_to_string(&env_sh).unwrap_or_else(|_| {
        panic!(
            "the interop peers are not installed ({var} is unset and {} is missing): run `bash tests/peers/setup.sh` first",
            env_sh.display()
        )
    });
    text.lines()
        .find_map(|line| line.strip_prefix(&format!("export {var}=")).map(|v| v.replace("\\ ", " ")))
        .unwrap_or_else(|| {
            panic!("{var} is not in {}: run `bash tests/peers/setup.sh` again", env_sh.display())
        })
}

/// A peer that is a command line (`node22 script.js`), split on spaces, as a `Command`.
pub fn peer_command(var: &str) -> Command {
    let line = peer(var);
    let mut words = line.split(' ');
    let mut command = Command::new(words.next().expect("a command line has a program"));
    command.args(words);
    command
}

/// A fresh private directory under the system temp dir, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("toolwire-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run `command` to completion, killing it after `limit`.
pub fn run_bounded(mut command: std::process::Command, limit: std::time::Duration) -> std::process::Output {
    let child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let child = child.unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("wait for the child"),
        Err(_) => {
            // Kill only the child we started, by its id.
            let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("{command:?} ran over {limit:?}");
        }
    }
}
