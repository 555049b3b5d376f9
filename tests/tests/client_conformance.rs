//! The official conformance suite's client scenarios that apply to this client, run against
//! `client_conformance` (tests/src/bin). Needs the peers: `bash tests/peers/setup.sh`.
//!
//! Run: `initialize`, `tools_call`, `elicitation-sep1034-client-defaults` and `sse-retry`
//! (2025-11-25, SEP-1699: a `tools/call` SSE stream closed after a priming event is resumed
//! with `GET` and `Last-Event-ID` after the stream's `retry` interval, and the answer is read
//! from that stream), and 0.2.0-alpha.12's `json-schema-2020-12-preservation` on 2026-07-28
//! and 2025-11-25 (a tool's schema handed back with every keyword it was listed with). Not run: the `auth/*` scenarios (OAuth is not built).
//!
//! And 0.2.0-alpha.12's `client --requirements 2026-07-28`, every client scenario that
//! revision requires, with `tests/conformance/client-baseline-0.2.0-alpha.12.yml` as the
//! expected failures (OAuth and SEP-2243 `x-mcp-header`, not built): among them
//! `sep-2322-client-request-state` (the `input_required` rounds: `requestState` echoed
//! exactly, none sent when none was given, a new JSON-RPC id per retry, no round's members
//! on another request, a result without `resultType` taken as complete) and
//! `request-metadata` (the per-request `_meta`, and a retry when the first `server/discover`
//! is refused with a version the server lists).

mod client_support;

use std::process::Command;

use client_support::peer;

fn run(scenario: &str) -> String {
    run_with("TOOLWIRE_CONFORMANCE_016", scenario, &[])
}

/// `scenario` run by the suite named by the peer variable `suite`, with `extra` arguments.
fn run_with(suite: &str, scenario: &str, extra: &[&str]) -> String {
    let conformance = peer(suite);
    let mut parts = conformance.split(' ');
    let out = Command::new(parts.next().unwrap())
        .args(parts)
        .args(["client", "--command", env!("CARGO_BIN_EXE_client_conformance"), "--scenario", scenario])
        .args(extra)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("OVERALL: PASSED"), "scenario {scenario} failed:\n{text}");
    text
}

#[test]
fn conformance_client_initialize() {
    let out = run("initialize");
    assert!(out.contains("Passed: 1/1, 0 failed"), "{out}");
}

#[test]
fn conformance_client_tools_call() {
    let out = run("tools_call");
    assert!(out.contains("Passed: 1/1, 0 failed"), "{out}");
}

#[test]
fn conformance_client_elicitation_defaults() {
    let out = run("elicitation-sep1034-client-defaults");
    assert!(out.contains("Passed: 5/5, 0 failed"), "{out}");
}

#[test]
fn conformance_client_sse_retry() {
    let out = run("sse-retry");
    assert!(out.contains("Passed: 3/3, 0 failed"), "{out}");
    assert!(out.contains("Last-Event-ID: event-2"), "{out}");
}

/// Issue 44 item 6: the schema a tool was listed with comes back whole (`$schema`, `$defs`
/// with an `$anchor`, `additionalProperties`, `allOf`/`anyOf`, `if`/`then`/`else`), echoed
/// from the adopted tool. On 2026-07-28 the SEP-2106 checks are scored; before, skipped.
#[test]
fn conformance_client_json_schema_2020_12_preservation() {
    for version in ["2026-07-28", "2025-11-25"] {
        let out = run_with(
            "TOOLWIRE_CONFORMANCE_020",
            "json-schema-2020-12-preservation",
            &["--spec-version", version],
        );
        assert!(out.contains("Passed: 9/9, 0 failed"), "{version}:\n{out}");
        for check in [
            "json-schema-2020-12-client-$schema-preserved",
            "json-schema-2020-12-client-$defs-preserved",
            "json-schema-2020-12-client-additionalProperties-preserved",
            "sep-2106-client-composition-keywords-preserved",
            "sep-2106-client-conditional-keywords-preserved",
            "sep-2106-client-anchor-keyword-preserved",
        ] {
            let line = out.lines().find(|l| l.contains(check)).unwrap_or_else(|| panic!("{check}:\n{out}"));
            assert!(line.contains("SUCCESS"), "{version}: {line}");
        }
    }
}

#[test]
fn conformance_client_2026_07_28_requirements() {
    let conformance = peer("TOOLWIRE_CONFORMANCE_020");
    let baseline = client_support::tests_dir().join("conformance/client-baseline-0.2.0-alpha.12.yml");
    let mut parts = conformance.split(' ');
    let out = Command::new(parts.next().unwrap())
        .args(parts)
        .args([
            "client",
            "--command",
            env!("CARGO_BIN_EXE_client_conformance"),
            "--requirements",
            "2026-07-28",
        ])
        .arg("--expected-failures")
        .arg(&baseline)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && text.contains("Baseline check passed: all failures are expected."),
        "{text}"
    );
    for line in [
        "✓ sep-2322-client-request-state: 5 passed, 0 failed",
        "✓ request-metadata: 8 passed, 0 failed",
        "✓ tools_call: 2 passed, 0 failed",
        "✓ http-standard-headers: 3 passed, 0 failed",
        "✓ json-schema-ref-no-deref: 1 passed, 0 failed",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
}
