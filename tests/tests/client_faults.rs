//! The client against servers that misbehave: one that dies mid-call, one killed mid-call,
//! one that never answers, one that floods stderr, one that writes garbage on stdout. Each
//! test asserts the typed error and that no process is left behind.

mod client_support;

use std::time::Duration;

use client_support::{alive_tasks, assert_gone, assert_no_task_left, fixture, peer, process_gone};
use serde_json::json;
use toolwire::client::{AdoptOptions, CallOptions, Client, ClientOptions, ShutdownGrace, StdioServer};
use toolwire::context::CancellationToken;
use toolwire::tool::RemoteError;
use toolwire::{Context, Tool, ToolError};

fn faulty(mode: &str, log: Option<&std::path::Path>) -> StdioServer {
    let mut s = StdioServer::new(peer("TOOLWIRE_PY_MCP2")).arg(fixture("client_faulty.py")).arg(mode);
    if let Some(log) = log {
        s = s.arg(log.display().to_string());
    }
    s
}

fn log_path(name: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("toolwire-{name}-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

async fn cancellations(log: &std::path::Path, want: usize) -> Vec<serde_json::Value> {
    for _ in 0..100 {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let seen: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        if seen.len() >= want {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server did not receive {want} cancellation(s)");
}

#[tokio::test]
async fn a_child_that_dies_mid_call_leaves_an_unknown_outcome_not_a_hang() {
    let tasks = alive_tasks();
    let client = Client::connect(faulty("die-mid-call", None), ClientOptions::new("faulty")).await.unwrap();
    let pid = client.pid().unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    // `work` says nothing about itself: it must not be re-run (at most once).
    let work = d.get("work").unwrap();
    let err = tokio::time::timeout(Duration::from_secs(10), work.call_json(json!({"n": 1}), &Context::new()))
        .await
        .expect("a dead child must not hang the call")
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::Remote(RemoteError::OutcomeUnknown {
            tool: "faulty__work".into(),
            server: "faulty".into(),
            reason: "exited with status 3".into()
        })
    );
    assert_eq!(
        err.to_string(),
        "the outcome of tool 'faulty__work' is unknown: the call was cut off (server 'faulty' exited with \
         status 3); it may have run, and it must not be re-run"
    );
    assert!(!err.is_retryable());
    assert_gone(pid).await;
    // Later calls are never sent: unavailable, at once.
    let again = work.call_json(json!({"n": 2}), &Context::new()).await.unwrap_err();
    assert!(matches!(again, ToolError::Remote(RemoteError::Unavailable { .. })), "{again:?}");
    drop(d);
    drop(client);
    assert_no_task_left(tasks).await;
}

#[tokio::test]
async fn a_read_only_tool_cut_off_by_a_dying_child_stays_retryable() {
    let client = Client::connect(faulty("die-mid-call", None), ClientOptions::new("faulty")).await.unwrap();
    let pid = client.pid().unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let look = d.get("look").unwrap();
    assert_eq!(look.delivery(), toolwire::client::DeliveryGuarantee::AtLeastOnce);
    let err = tokio::time::timeout(Duration::from_secs(10), look.call_json(json!({"n": 1}), &Context::new()))
        .await
        .expect("a dead child must not hang the call")
        .unwrap_err();
    assert_eq!(err.to_string(), "tool 'faulty__look' is unavailable: server 'faulty' exited with status 3");
    assert!(err.is_retryable());
    // Without trusting the annotations, the same tool is at most once.
    let client = Client::connect(faulty("die-mid-call", None), ClientOptions::new("faulty")).await.unwrap();
    let d2 = client.adopt(AdoptOptions::default().trust_annotations(false)).await.unwrap();
    let err = d2.get("look").unwrap().call_json(json!({"n": 1}), &Context::new()).await.unwrap_err();
    assert!(matches!(err, ToolError::Remote(RemoteError::OutcomeUnknown { .. })), "{err:?}");
    assert!(!err.is_retryable());
    assert_gone(pid).await;
}

#[tokio::test]
async fn a_child_killed_mid_call_leaves_an_unknown_outcome() {
    let tasks = alive_tasks();
    let client = Client::connect(faulty("never-answers", None), ClientOptions::new("faulty")).await.unwrap();
    let pid = client.pid().unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let work = d.get("work").unwrap().clone();
    let call = tokio::spawn(async move { work.call_json(json!({"n": 1}), &Context::new()).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap();
    let err =
        tokio::time::timeout(Duration::from_secs(10), call).await.expect("no hang").unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        "the outcome of tool 'faulty__work' is unknown: the call was cut off (server 'faulty' was killed by \
         signal 9); it may have run, and it must not be re-run"
    );
    assert!(!err.is_retryable());
    assert_gone(pid).await;
    client.close().await;
    drop(d);
    assert_no_task_left(tasks).await;
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_and_is_sent_a_cancellation() {
    let tasks = alive_tasks();
    let log = log_path("never");
    let client =
        Client::connect(faulty("never-answers", Some(&log)), ClientOptions::new("faulty")).await.unwrap();
    let pid = client.pid().unwrap();
    let d = client.adopt(AdoptOptions::default().timeout(Duration::from_millis(250))).await.unwrap();
    let work = d.get("work").unwrap();
    let err = work.call_json(json!({"n": 1}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err,
        ToolError::Remote(RemoteError::TimedOut {
            tool: "faulty__work".into(),
            server: "faulty".into(),
            timeout: Duration::from_millis(250)
        })
    );
    assert_eq!(
        err.to_string(),
        "tool 'faulty__work' on server 'faulty' did not answer within 0.25s; it may have run"
    );
    assert!(!err.is_retryable());
    let seen = cancellations(&log, 1).await;
    assert_eq!(seen[0]["reason"], "timeout");
    assert!(seen[0]["requestId"].is_i64());

    // The host's cancellation: before dispatch nothing is sent; mid-call a cancellation is.
    let token = CancellationToken::new();
    token.cancel();
    let ctx = Context::builder().cancellation(token).build();
    let err = work.call_json(json!({"n": 2}), &ctx).await.unwrap_err();
    assert_eq!(err.to_string(), "the run was cancelled; 'faulty__work' was not run");
    let token = CancellationToken::new();
    let ctx = Context::builder().cancellation(token.clone()).build();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        token.cancel();
    });
    let untimed = client.adopt(AdoptOptions::default()).await.unwrap();
    let err = untimed.get("work").unwrap().call_json(json!({"n": 3}), &ctx).await.unwrap_err();
    canceller.await.unwrap();
    assert_eq!(err.to_string(), "the run was cancelled while 'faulty__work' was running");
    let seen = cancellations(&log, 2).await;
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[1]["reason"], "cancelled by the client");

    client.close().await;
    assert_gone(pid).await;
    assert_no_task_left(tasks).await;
    let _ = std::fs::remove_file(&log);
}

#[tokio::test]
async fn a_server_flooding_stderr_still_answers() {
    let tasks = alive_tasks();
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        Client::connect(faulty("stderr-flood", None), ClientOptions::new("faulty")),
    )
    .await
    .expect("20 MB of stderr must not block the handshake")
    .unwrap();
    let pid = client.pid().unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let out = d.get("work").unwrap().call_json(json!({"n": 5}), &Context::new()).await.unwrap();
    assert!(out.joined_text().contains("\nworked 5\n"));
    drop(d);
    drop(client);
    // Dropping the last handle kills the child.
    assert_gone(pid).await;
    assert_no_task_left(tasks).await;
}

#[tokio::test]
async fn garbage_on_stdout_is_skipped() {
    let tasks = alive_tasks();
    let client = Client::connect(faulty("garbage", None), ClientOptions::new("faulty")).await.unwrap();
    let pid = client.pid().unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let out = d.get("work").unwrap().call_json(json!({"n": 7}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"faulty\" tool=\"faulty__work\">\nworked 7\n</untrusted-data>"
    );
    client.ping().await.unwrap();
    // Caller metadata travels in `_meta`, beside the progress token.
    let mut meta = serde_json::Map::new();
    meta.insert("run_id".into(), json!("r1"));
    let opts = toolwire::client::CallOptions::new()
        .meta(meta)
        .progress(std::sync::Arc::new(|_p: toolwire::context::Progress| {}));
    let r = client.call_tool("meta", json!({}), opts).await.unwrap();
    let toolwire::Content::Text { text } = &r.content[0] else { panic!("{r:?}") };
    let sent: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(sent["run_id"], "r1");
    assert!(sent["progressToken"].is_i64(), "{sent}");
    assert!(!process_gone(pid));
    client.close().await;
    assert_gone(pid).await;
    assert_no_task_left(tasks).await;
}

#[tokio::test]
async fn a_command_that_does_not_exist_is_a_spawn_error() {
    let err = Client::connect(StdioServer::new("/nonexistent/toolwire-server"), ClientOptions::new("ghost"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server 'ghost' could not be started: `/nonexistent/toolwire-server`: No such file or directory (os error 2)"
    );
}

fn listing(mode: Option<&str>) -> StdioServer {
    let s = StdioServer::new(peer("TOOLWIRE_PY_MCP2")).arg(fixture("client_listing.py"));
    match mode {
        Some(m) => s.arg(m),
        None => s,
    }
}

async fn lists_seen(client: &Client) -> String {
    let r = client.call_tool("count", json!({}), toolwire::client::CallOptions::default()).await.unwrap();
    match &r.content[0] {
        toolwire::Content::Text { text } => text.clone(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_tool_list_is_paged_cached_and_invalidated() {
    let options = ClientOptions::new("listing").cache_ttl(Duration::from_millis(400));
    let client = Client::connect(listing(None), options).await.unwrap();
    let names = |l: &[toolwire::client::ListedTool]| l.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    // Two pages, followed.
    assert_eq!(names(&client.list_tools(false).await.unwrap()), ["count", "grow", "t1"]);
    assert_eq!(lists_seen(&client).await, "2");
    // Cached.
    client.list_tools(false).await.unwrap();
    assert_eq!(lists_seen(&client).await, "2");
    // list_changed drops the cache.
    client.call_tool("grow", json!({}), toolwire::client::CallOptions::default()).await.unwrap();
    assert_eq!(names(&client.list_tools(false).await.unwrap()), ["count", "grow", "t1", "t2"]);
    assert_eq!(lists_seen(&client).await, "4");
    // force_refresh bypasses it.
    client.list_tools(true).await.unwrap();
    assert_eq!(lists_seen(&client).await, "6");
    // And the TTL ends it.
    client.list_tools(false).await.unwrap();
    assert_eq!(lists_seen(&client).await, "6");
    tokio::time::sleep(Duration::from_millis(450)).await;
    client.list_tools(false).await.unwrap();
    assert_eq!(lists_seen(&client).await, "8");
    client.close().await;
}

#[tokio::test]
async fn a_cursor_that_repeats_is_refused_not_followed_forever() {
    let client = Client::connect(listing(Some("loop")), ClientOptions::new("listing")).await.unwrap();
    let err = client.list_tools(false).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "server 'listing' sent a malformed answer to 'tools/list': `nextCursor` repeats an earlier cursor"
    );
    client.close().await;
}

#[tokio::test]
async fn shutdown_escalates_to_sigkill_for_a_child_that_ignores_eof_and_sigterm() {
    let grace = ShutdownGrace::new(Duration::from_millis(200), Duration::from_millis(200));
    let client =
        Client::connect(faulty("stubborn", None).grace(grace), ClientOptions::new("faulty")).await.unwrap();
    let pid = client.pid().unwrap();
    let started = std::time::Instant::now();
    client.close().await;
    assert!(started.elapsed() >= Duration::from_millis(400), "closed before both grace periods passed");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_gone(pid).await;
}

#[tokio::test]
async fn a_hung_server_with_no_timeout_set_anywhere_fails_after_the_default_30s() {
    let log = log_path("never-default");
    let client =
        Client::connect(faulty("never-answers", Some(&log)), ClientOptions::new("faulty")).await.unwrap();
    let pid = client.pid().unwrap();
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let started = std::time::Instant::now();
    let call = d.get("work").unwrap().invoke(json!({"n": 1}));
    let err = tokio::time::timeout(Duration::from_secs(40), call)
        .await
        .expect("bounded by the default")
        .unwrap_err();
    assert!(started.elapsed() >= Duration::from_secs(30), "{:?}", started.elapsed());
    assert_eq!(
        err.to_string(),
        "tool 'faulty__work' on server 'faulty' did not answer within 30s; it may have run"
    );
    assert_eq!(cancellations(&log, 1).await[0]["reason"], "timeout");
    client.close().await;
    assert_gone(pid).await;
    let _ = std::fs::remove_file(&log);
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct WorkArgs {
    n: i64,
}

#[tokio::test]
async fn the_most_specific_timeout_wins_and_the_clients_bounds_the_rest() {
    let options = ClientOptions::new("faulty").request_timeout(Duration::from_millis(400));
    let client = Client::connect(faulty("never-answers", None), options).await.unwrap();
    // Nothing set on the call, the adoption or the handle: the client's request timeout.
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let err = d.get("work").unwrap().call_json(json!({"n": 1}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'faulty__work' on server 'faulty' did not answer within 0.4s; it may have run"
    );
    let err = client.call_tool("work", json!({"n": 1}), CallOptions::new()).await.unwrap_err();
    assert_eq!(err.to_string(), "tool 'work' on server 'faulty' did not answer within 0.4s; it may have run");
    let typed = client.typed::<WorkArgs, String>("work").await.unwrap();
    let err = typed.call(&WorkArgs { n: 1 }).await.unwrap_err();
    assert_eq!(err.to_string(), "tool 'work' on server 'faulty' did not answer within 0.4s; it may have run");
    // Each more specific knob wins over the client's, longer or shorter.
    let err = client
        .call_tool("work", json!({"n": 1}), CallOptions::new().timeout(Duration::from_millis(600)))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "tool 'work' on server 'faulty' did not answer within 0.6s; it may have run");
    let err = typed.with_timeout(Duration::from_millis(150)).call(&WorkArgs { n: 1 }).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'work' on server 'faulty' did not answer within 0.15s; it may have run"
    );
    let d = client.adopt(AdoptOptions::default().timeout(Duration::from_millis(200))).await.unwrap();
    let work = d.get("work").unwrap();
    let err = work.call_json(json!({"n": 1}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'faulty__work' on server 'faulty' did not answer within 0.2s; it may have run"
    );
    // A sooner Context deadline wins over the adoption's.
    let ctx =
        Context::builder().deadline(Some(std::time::Instant::now() + Duration::from_millis(100))).build();
    let err = work.call_json(json!({"n": 1}), &ctx).await.unwrap_err();
    let ToolError::Remote(RemoteError::TimedOut { timeout, .. }) = err else { panic!("{err:?}") };
    assert!(timeout <= Duration::from_millis(100), "{timeout:?}");
    client.close().await;
}

#[tokio::test]
async fn the_list_cache_follows_the_servers_ttl_hint_not_the_clients_default() {
    // The client's own TTL is the default 30 s; the server's pages say 5000 ms and 300 ms.
    let client = Client::connect(listing(Some("ttl")), ClientOptions::new("listing")).await.unwrap();
    client.list_tools(false).await.unwrap();
    assert_eq!(lists_seen(&client).await, "2");
    client.list_tools(false).await.unwrap();
    assert_eq!(lists_seen(&client).await, "2", "fresh for the shortest page's 300 ms");
    tokio::time::sleep(Duration::from_millis(350)).await;
    client.list_tools(false).await.unwrap();
    assert_eq!(lists_seen(&client).await, "4", "stale after 300 ms, though the client's default is 30 s");
    client.close().await;
}
