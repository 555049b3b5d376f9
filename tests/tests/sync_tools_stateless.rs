//! Sync `#[tool] fn`s over stateless HTTP (2025-11-25, no session: every POST is a session of
//! its own), on 127.0.0.1 sockets, served on a runtime of 2 workers.
//!
//! Here nothing but the body can answer for a call while it runs unless the server has a
//! deadline or a host cancellation (no client can cancel a call its session made for one
//! request), so with default options a sync body runs in the POST handler's own poll, in
//! place on its worker (one seat on 2 workers), and the rest go to the sync workers and the
//! blocking pool. With a deadline, a body is held back from that poll and runs in a task of
//! its own, so the deadline's answer still goes out while it runs. These tests hold both
//! paths to the guarantees of tests/tests/sync_tools.rs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::http::{Auth, HttpConfig};
use toolwire::spec::SpecOptions;
use toolwire::{McpServerSpec, serve_registry, tool, tools};
use toolwire_tests::http::{mcp_headers, request};

/// Echo the text back at once.
#[tool(read_only)]
fn fast(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Sleep for two seconds (a sync body that blocks its thread), then say so.
#[tool(read_only)]
fn sleepy() -> String {
    std::thread::sleep(Duration::from_secs(2));
    "slept 2 s".to_owned()
}

/// Stall for 5 s: long past the deadline of 1 s (a body that never returned would hold its
/// runtime worker for good, and the test's runtime could not shut down).
#[tool(read_only)]
fn stalled() -> String {
    std::thread::sleep(Duration::from_secs(5));
    "stalled 5 s".to_owned()
}

/// Panic with a fixed message.
#[tool(read_only)]
fn boom() -> String {
    panic!("the sync body gave up")
}

/// More than the one seat on 2 workers and the sync workers (at most 2) take together.
const SLEEPERS: usize = 4;

fn stateless(options: ServerOptions) -> McpServerSpec {
    let config = HttpConfig::new(Auth::Bearer(toolwire::http::BearerToken::generate())).stateless(true);
    let mut spec = serve_registry(
        Server::new(tools![fast, sleepy, stalled, boom].unwrap(), options),
        SpecOptions::http().http_config(config),
    )
    .unwrap();
    spec.start().unwrap();
    spec
}

/// One stateless 2025-11-25 `tools/call` on a connection of its own, from a thread that is
/// no runtime worker; the reply.
async fn call(spec: &McpServerSpec, id: Value, tool: &str, args: Value) -> Value {
    let addr = spec.local_addr().unwrap();
    let mut headers = mcp_headers(addr);
    headers.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    headers.extend(spec.auth_headers());
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": args}})
    .to_string();
    let r =
        tokio::task::spawn_blocking(move || request(addr, "POST", "/mcp", &headers, &body)).await.unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

fn text_of(reply: &Value) -> (&str, bool) {
    let result = &reply["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {reply}"));
    (text, result["isError"] == json!(true))
}

/// Default options: a sleeping body that finds the seat free runs in its POST handler's
/// poll, on its worker (the seat is the process's: the other test's body may hold it; where
/// a body runs is asserted by the server's unit tests, not here); the other worker serves
/// 100 fast calls (their bodies on the sync workers and the pool while the seat is taken)
/// before any sleeper is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_sync_bodies_sleeping_2_s_hold_up_none_of_100_fast_calls() {
    let spec = Arc::new(stateless(ServerOptions::new("sync-stateless", "0.1.0")));
    let done = Arc::new(AtomicBool::new(false));
    let sleepers: Vec<_> = (0..SLEEPERS)
        .map(|i| {
            let (spec, done) = (spec.clone(), done.clone());
            tokio::spawn(async move {
                let reply = call(&spec, json!(format!("slow-{i}")), "sleepy", json!({})).await;
                done.store(true, Ordering::SeqCst);
                reply
            })
        })
        .collect();
    // Every sleeping call reaches its body long before 2 s have passed.
    tokio::time::sleep(Duration::from_millis(200)).await;
    for i in 0..100 {
        let reply = call(&spec, json!(i), "fast", json!({"text": format!("fast {i}")})).await;
        assert_eq!(text_of(&reply), (format!("fast {i}").as_str(), false), "{reply}");
    }
    assert!(!done.load(Ordering::SeqCst), "100 fast calls were answered while the sleeping ones ran");
    for (i, t) in sleepers.into_iter().enumerate() {
        let reply = t.await.unwrap();
        assert_eq!(
            (reply["id"].clone(), text_of(&reply)),
            (json!(format!("slow-{i}")), ("slept 2 s", false))
        );
    }
}

/// With a deadline, a stalled body is held back from the handler's poll: the deadline
/// answers its call on time, and the server serves on (run in the handler's poll, the body
/// would be answered by itself after 5 s). A panicking body is a tool error either way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_a_stalled_sync_body_is_cut_off_by_the_deadline_and_a_panic_is_a_tool_error() {
    let options = ServerOptions::new("sync-stateless", "0.1.0").deadline(Some(Duration::from_secs(1)));
    let spec = stateless(options);
    let started = Instant::now();
    let reply = call(&spec, json!("stalled"), "stalled", json!({})).await;
    let took = started.elapsed();
    assert_eq!(
        text_of(&reply),
        ("tool 'stalled' did not return within 1s and was abandoned", true),
        "{reply}"
    );
    assert!(took < Duration::from_millis(2500), "the deadline's answer came after {took:?}");
    let reply = call(&spec, json!("fast"), "fast", json!({"text": "still here"})).await;
    assert_eq!(text_of(&reply), ("still here", false), "{reply}");

    for spec in [spec, stateless(ServerOptions::new("sync-stateless", "0.1.0"))] {
        let reply = call(&spec, json!("boom"), "boom", json!({})).await;
        let (text, is_error) = text_of(&reply);
        assert!(is_error && text.contains("the sync body gave up"), "{reply}");
        let reply = call(&spec, json!("after"), "fast", json!({"text": "served on"})).await;
        assert_eq!(text_of(&reply), ("served on", false), "{reply}");
    }
}
