//! Resources served by toolwire (`tests/src/bin/resource-server.rs`, a real child process,
//! over stdio or, with `--http`, loopback streamable HTTP), driven by clients nobody on this
//! team wrote:
//!
//! - the Python SDK 2.3.0 client (`tests/peers/clients/py_resources.py`), over stdio and over
//!   HTTP (where a legacy subscription's update arrives on the session's GET stream), in the
//!   legacy era
//!   (2025-11-25: `resources/subscribe`, an update after `touch`, `resources/unsubscribe`) and
//!   in auto mode, which settles on 2026-07-28 (`subscriptions/listen`): list, templates,
//!   read text and blob, read a template, complete a template's variables (a sync and an
//!   async completer, one reading the variable already filled in, one cut to 100 with
//!   `total` and `hasMore`), and the exact error texts for an unknown URI, a template
//!   variable that does not parse, a subscription to an unknown URI, and completion of an
//!   unknown template or variable;
//! - the Inspector CLI: `resources/list`, `resources/templates/list` and `resources/read`, in
//!   the legacy and modern eras.

use std::process::Command;

use serde_json::{Value, json};

mod peer_support;
use peer_support::peer;

const SERVER: &str = env!("CARGO_BIN_EXE_resource-server");

/// One peer at a time: each starts a Python or Node runtime plus the server.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn python(transport: &str, mode: &str) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let driver = toolwire_tests::tests_dir().join("peers/clients/py_resources.py");
    let out = Command::new(peer("TOOLWIRE_PY_MCP2"))
        .arg(driver)
        .args(["--transport", transport, "--mode", mode, "--", SERVER])
        .output()
        .expect("run the Python driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        out.status.success() && last.ends_with(" 0 failed") && !stdout.contains("FAIL "),
        "py_resources.py --transport {transport} --mode {mode} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn python_sdk_legacy_lists_reads_and_gets_its_subscription_update() {
    python("stdio", "legacy");
}

#[test]
fn python_sdk_on_2026_07_28_lists_reads_and_listens() {
    python("stdio", "auto");
}

#[test]
fn python_sdk_over_legacy_http_lists_reads_and_gets_its_update_on_the_get_stream() {
    python("http", "legacy");
}

#[test]
fn python_sdk_over_http_on_2026_07_28_lists_reads_and_listens() {
    python("http", "auto");
}

/// Run the Inspector CLI against the server in `era`; the method's result.
fn inspector(era: &str, args: &[&str]) -> Value {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let command = peer("TOOLWIRE_INSPECTOR");
    let mut words = command.split_whitespace();
    let home = std::env::temp_dir().join(format!("toolwire-resources-inspector-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new(words.next().expect("a command"))
        .args(words)
        .args(["--cli", SERVER, "-q", "--format", "json", "--protocol-era", era])
        .args(args)
        .env("HOME", &home)
        .env("MCP_CATALOG_PATH", home.join("catalog.json"))
        .env("MCP_CLIENT_CONFIG_PATH", home.join("client.json"))
        .output()
        .expect("run the Inspector");
    assert!(
        out.status.success(),
        "inspector {args:?} ({era}) failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    // `--format json` wraps the method's result as `{"result": …}`.
    v.get("result").cloned().unwrap_or(v)
}

#[test]
fn inspector_cli_lists_and_reads_in_both_eras() {
    for era in ["legacy", "modern"] {
        let listed = inspector(era, &["--method", "resources/list"]);
        assert_eq!(
            listed["resources"],
            json!([
                {"uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource.", "mimeType": "image/png"},
                {"uri": "test://static-text", "name": "static-text", "description": "A static text resource.", "mimeType": "text/plain"}
            ]),
            "{era}: {listed}"
        );
        let templates = inspector(era, &["--method", "resources/templates/list"]);
        assert_eq!(
            templates["resourceTemplates"],
            json!([
                {"uriTemplate": "test://template/{id}/data", "name": "template", "description": "A resource template with one numeric parameter.", "mimeType": "application/json"},
                {"uriTemplate": "test://tables/{table}/rows/{row}", "name": "row", "title": "Table row", "description": "One row of a table.", "icons": [{"src": "https://example.com/row.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}]}
            ]),
            "{era}: {templates}"
        );
        let read = inspector(era, &["--method", "resources/read", "--uri", "test://template/42/data"]);
        assert_eq!(
            read["contents"],
            json!([{"uri": "test://template/42/data", "mimeType": "application/json", "text": "{\"id\":42,\"templateTest\":true}"}]),
            "{era}: {read}"
        );
    }
}
