//! The example server driven over stdio by clients nobody on this team wrote: the official
//! Python SDK 2.3.0 (legacy and auto, which must settle on 2026-07-28), Python 1.22.0 (the
//! 2025-06-18 peer), the TypeScript SDK v1, and the Inspector CLI in every era.
//!
//! Each driver (`tests/peers/clients/`) checks the contract in `contract.json`: the tool
//! list, every `inputSchema` against `tests/golden/example/`, good calls, the exact error
//! texts, that the session survives them, progress and concurrency. The peers are installed
//! by `tests/peers/setup.sh`, which `scripts/test.sh` runs first.

use std::path::PathBuf;
use std::process::Command;

use toolwire_tests::example_server::example_server;
use toolwire_tests::tests_dir;

/// A variable `tests/peers/env.sh` exports.
fn peer(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} is not set: run `bash tests/peers/setup.sh && source tests/peers/env.sh` first (scripts/test.sh does)")
    })
}

fn clients() -> PathBuf {
    tests_dir().join("peers/clients")
}

/// One driver at a time: each starts a Python or Node runtime plus the server, and five at
/// once on a 2-core CI machine turn the drivers' timing checks (a slow call must not hold up
/// an echo) into a test of the scheduler.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Run one driver against the example server; it must report every check passed.
fn drive(program: &str, args: &[&str]) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let server = example_server();
    let mut cmd = Command::new(program);
    cmd.args(args).arg("--golden-dir").arg(tests_dir().join("golden/example")).arg("--").arg(server);
    let out = cmd.output().unwrap_or_else(|e| panic!("could not run {program}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        out.status.success() && last.ends_with(" 0 failed"),
        "{program} {args:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(!stdout.contains("FAIL "), "{stdout}");
}

#[test]
fn python_sdk_2_legacy() {
    drive(&peer("TOOLWIRE_PY_MCP2"), &[clients().join("py_client.py").to_str().unwrap(), "--mode", "legacy"]);
}

#[test]
fn python_sdk_2_auto_settles_on_2026_07_28() {
    drive(&peer("TOOLWIRE_PY_MCP2"), &[clients().join("py_client.py").to_str().unwrap(), "--mode", "auto"]);
}

#[test]
fn python_sdk_1_22_speaks_2025_06_18() {
    drive(&peer("TOOLWIRE_PY_MCP1"), &[clients().join("py1_client.py").to_str().unwrap()]);
}

#[test]
fn typescript_sdk_v1() {
    drive(&peer("TOOLWIRE_NODE22"), &[clients().join("ts_v1_client.mjs").to_str().unwrap()]);
}

#[test]
fn inspector_cli_in_every_era() {
    let script = clients().join("inspector.sh");
    for era in ["legacy", "auto", "modern"] {
        drive("bash", &[script.to_str().unwrap(), "--era", era]);
    }
}
