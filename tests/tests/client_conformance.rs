//! The official conformance suite's client scenarios that apply to this client, run against
//! `client_conformance` (tests/src/bin). Needs the peers: `bash tests/peers/setup.sh`.
//!
//! Run: `initialize`, `tools_call`, `elicitation-sep1034-client-defaults` and `sse-retry`
//! (2025-11-25, SEP-1699: a `tools/call` SSE stream closed after a priming event is resumed
//! with `GET` and `Last-Event-ID` after the stream's `retry` interval, and the answer is read
//! from that stream), and 0.2.0-alpha.12's `json-schema-2020-12-preservation` on 2026-07-28
//! and 2025-11-25 (a tool's schema handed back with every keyword it was listed with).
//!
//! Every `auth/*` scenario of 0.2.0-alpha.12's `list --client`, one by one at its own
//! version (`toolwire::client::oauth`; the person's step played headlessly by the binary):
//! each must pass with at least one check run: the extensions too (client credentials, DPoP,
//! workload identity, enterprise-managed authorization). The scenarios where the client must refuse to go on
//! also show the error a user reads.
//!
//! SEP-2243's client scenarios of 0.2.0-alpha.12, one by one: `http-custom-headers` (an
//! adopted tool's `x-mcp-header` parameters mirrored as `Mcp-Param-*`, Base64 where a value
//! needs it, none for a `null` or absent value) and `http-invalid-tool-headers` (each tool with
//! an invalid declaration left unadopted, the valid one called); each must pass with checks run.
//!
//! And 0.2.0-alpha.12's `client --requirements 2026-07-28`, every client scenario that
//! revision requires, with no expected failures: among them every required `auth/*`
//! scenario, the two SEP-2243 scenarios above, and
//! `sep-2322-client-request-state` (the `input_required` rounds: `requestState` echoed
//! exactly, none sent when none was given, a new JSON-RPC id per retry, no round's members
//! on another request, a result without `resultType` taken as complete) and
//! `request-metadata` (the per-request `_meta`, and a retry when the first `server/discover`
//! is refused with a version the server lists).

mod client_support;

use std::process::Command;

use client_support::peer;

fn run(scenario: &str) -> String {
    let text = run_with("TOOLWIRE_CONFORMANCE_016", scenario, &[]);
    assert!(text.contains("OVERALL: PASSED"), "scenario {scenario} failed:\n{text}");
    text
}

/// Run `scenario` with the suite in `peer_var`, with `extra` arguments; its whole output,
/// whatever the verdict.
fn run_with(peer_var: &str, scenario: &str, extra: &[&str]) -> String {
    let conformance = peer(peer_var);
    let mut parts = conformance.split(' ');
    let out = Command::new(parts.next().unwrap())
        .args(parts)
        .args(["client", "--command", env!("CARGO_BIN_EXE_client_conformance"), "--scenario", scenario])
        .args(extra)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.success(), text.contains("OVERALL: PASSED"), "{text}");
    text
}

/// The `Passed: N/M, F failed, W warnings` line's numbers.
fn tally(text: &str) -> Option<(u32, u32, u32, u32)> {
    let line = text.lines().find(|l| l.starts_with("Passed: "))?;
    let nums: Vec<u32> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    match nums[..] {
        [passed, total, failed, warnings] => Some((passed, total, failed, warnings)),
        _ => None,
    }
}

/// What the client says when it refuses to go on, per scenario (the start of the line it
/// prints on stderr; the rest names the suite's ephemeral ports).
const REFUSALS: &[(&str, &str)] = &[
    (
        "auth/resource-mismatch",
        "server 'conformance': authorization failed: the protected resource metadata at http://localhost:",
    ),
    (
        "auth/iss-wrong-issuer",
        "server 'conformance': authorization failed: the authorization response came from issuer 'https://evil.example.com', not 'http://localhost:",
    ),
    (
        "auth/iss-unexpected",
        "server 'conformance': authorization failed: the authorization response came from issuer 'https://evil.example.com', not 'http://localhost:",
    ),
    (
        "auth/iss-supported-missing",
        "server 'conformance': authorization failed: the authorization response has no iss, though http://localhost:",
    ),
    (
        "auth/iss-normalized",
        "server 'conformance': authorization failed: the authorization response came from issuer 'http://localhost:",
    ),
    (
        "auth/metadata-issuer-mismatch",
        "server 'conformance': authorization failed: the authorization server metadata at http://localhost:",
    ),
    (
        "auth/scope-retry-limit",
        "server 'conformance': authorization failed: the server refuses the token for lacking scope 'mcp:admin', which the authorization server already granted; authorizing again would not help",
    ),
];

#[test]
fn conformance_client_every_auth_scenario_one_by_one() {
    let conformance = peer("TOOLWIRE_CONFORMANCE_020");
    let mut parts = conformance.split(' ');
    let listed = Command::new(parts.next().unwrap()).args(parts).args(["list", "--client"]).output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    let scenarios: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split(' ').next())
        .filter(|s| s.starts_with("auth/"))
        .collect();
    assert_eq!(scenarios.len(), 33, "{listed}");
    let mut passed = Vec::new();
    for scenario in &scenarios {
        let text = run_with("TOOLWIRE_CONFORMANCE_020", scenario, &[]);
        let (ok, total, failed, warnings) =
            tally(&text).unwrap_or_else(|| panic!("{scenario}: no tally\n{text}"));
        assert!(
            total > 0 && ok == total && failed == 0 && warnings == 0 && text.contains("OVERALL: PASSED"),
            "{scenario}:\n{text}"
        );
        if let Some((_, said)) = REFUSALS.iter().find(|(s, _)| s == scenario) {
            assert!(text.lines().any(|l| l.starts_with(said)), "{scenario} should say {said:?}:\n{text}");
        }
        passed.push(format!("{scenario}: {ok}/{total}"));
    }
    assert_eq!(passed.len(), 33, "{passed:#?}");
    eprintln!("{}", passed.join("\n"));
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
        assert!(out.contains("OVERALL: PASSED"), "{version}:\n{out}");
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

/// SEP-2243: `x-mcp-header` parameters mirrored, invalid declarations refused.
#[test]
fn conformance_client_sep_2243_custom_headers_one_by_one() {
    for (scenario, checks) in [("http-custom-headers", 18), ("http-invalid-tool-headers", 12)] {
        let text = run_with("TOOLWIRE_CONFORMANCE_020", scenario, &[]);
        let tally = tally(&text).unwrap_or_else(|| panic!("{scenario}: no tally\n{text}"));
        assert_eq!(tally, (checks, checks, 0, 0), "{scenario}:\n{text}");
        assert!(text.contains("OVERALL: PASSED"), "{scenario}:\n{text}");
    }
}

#[test]
fn conformance_client_2026_07_28_requirements() {
    let conformance = peer("TOOLWIRE_CONFORMANCE_020");
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
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // No expected failures: every scenario the revision requires passes.
    assert!(out.status.success() && !text.contains("✗ "), "{text}");
    // Every auth scenario that revision requires passes, each with checks run.
    let auth: Vec<&str> = text.lines().filter(|l| l.starts_with("✓ auth/")).collect();
    assert_eq!(auth.len(), 31, "{text}");
    for line in auth {
        assert!(line.ends_with(" passed, 0 failed") && !line.contains(": 0 passed"), "{line}");
    }
    for line in [
        "✓ auth/scope-step-up: 26 passed, 0 failed",
        "✓ auth/authorization-server-migration: 28 passed, 0 failed",
        "✓ sep-2322-client-request-state: 5 passed, 0 failed",
        "✓ request-metadata: 8 passed, 0 failed",
        "✓ tools_call: 2 passed, 0 failed",
        "✓ http-standard-headers: 3 passed, 0 failed",
        "✓ json-schema-ref-no-deref: 1 passed, 0 failed",
        "✓ http-custom-headers: 18 passed, 0 failed",
        "✓ http-invalid-tool-headers: 12 passed, 0 failed",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
}

/// The Skills extension's client scenarios (SEP-2640), one by one, at 2026-07-28 and at
/// 2025-11-25 (`--force`: extension scenarios are not on the spec timeline): skills listed
/// without a file fetched (`no-prefetch`), and a `SKILL.md` whose digest, size or
/// frontmatter differs from its entry refused before any other file of the skill is read.
/// Each must pass with its one check run; the refusals show the error a host reads.
#[test]
fn conformance_client_sep_2640_skills_one_by_one() {
    for version in ["2026-07-28", "2025-11-25"] {
        for (scenario, says) in [
            ("sep-2640-client-no-prefetch", None),
            (
                "sep-2640-client-verify-digest",
                Some(
                    "server 'conformance': skill skill://pdf-processing/SKILL.md: skill://pdf-processing/SKILL.md: digest differs: the entry says sha256:",
                ),
            ),
            (
                "sep-2640-client-verify-size",
                Some(
                    "server 'conformance': skill skill://pdf-processing/SKILL.md: skill://pdf-processing/SKILL.md: size differs: the entry says 97 bytes, the server sent 139",
                ),
            ),
            (
                "sep-2640-client-verify-frontmatter",
                Some(
                    "server 'conformance': skill skill://pdf-processing/SKILL.md: skill://pdf-processing/SKILL.md: frontmatter differs from the entry's: description: the file says \"Exfiltrate credentials\", the entry says \"Extract, fill, and assemble PDF documents\"",
                ),
            ),
        ] {
            let text =
                run_with("TOOLWIRE_CONFORMANCE_020", scenario, &["--force", "--spec-version", version]);
            let tally = tally(&text).unwrap_or_else(|| panic!("{version} {scenario}: no tally\n{text}"));
            assert_eq!(tally, (1, 1, 0, 0), "{version} {scenario}:\n{text}");
            assert!(text.contains("OVERALL: PASSED"), "{version} {scenario}:\n{text}");
            if let Some(said) = says {
                assert!(
                    text.lines().any(|l| l.starts_with(said)),
                    "{version} {scenario} should say {said:?}:\n{text}"
                );
            }
        }
    }
}
