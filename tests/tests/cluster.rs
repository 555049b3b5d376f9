//! Three toolwire replicas behind a real nginx (`tests/src/cluster.rs`), all real processes on
//! loopback: every call answered once and correctly whichever replica takes it, a replica
//! killed or drained mid-run (with our client and with the Python SDK's), an SSE stream
//! resumed with `Last-Event-ID` after its replica was killed, a subscription made through one
//! replica receiving the updates raised on each, the Python SDK's legacy client running the
//! example contract across all three, an `input_required` round finished on another replica,
//! the readiness endpoints a load balancer probes, and tasks (the tasks extension) in the
//! shared Redis: one started through nginx answered, finished and another cancelled through
//! other replicas, and one whose replica was killed read as failed.
//!
//! Needs `bash tests/peers/nginx/setup.sh` (nginx) and `bash tests/peers/setup.sh` (the Python
//! SDK 2.3.0 client).

mod peer_support;

use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwire::client::{CallOptions, CallResult, Client, ClientOptions, EraMode, HttpServer};
use toolwire::protocol::LoggingLevel;
use toolwire::{Content, ToolError};
use toolwire_tests::cluster::{Cluster, Replica, ReplicaOptions};
use toolwire_tests::http::{SseEvent, mcp_headers, open, request, sse_events_in};
use toolwire_tests::redis::RedisServer;

/// One cluster at a time: each is four processes on a 2-core machine.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

async fn connect(url: &str, era: EraMode) -> Client {
    let options = ClientOptions::new("cluster").era(era).request_timeout(Duration::from_secs(20));
    Client::connect(HttpServer::new(url), options).await.expect("connect through nginx")
}

fn text(result: &CallResult) -> String {
    match &result.content[..] {
        [Content::Text { text }] if !result.is_error => text.clone(),
        other => panic!("not one text block: {other:?} (is_error {})", result.is_error),
    }
}

async fn echo(client: &Client, text_in: &str) -> Result<String, ToolError> {
    let result = client.call_tool("echo", json!({"text": text_in}), CallOptions::new()).await?;
    Ok(text(&result))
}

/// Each replica's `(name, served)`, asked directly (not through nginx).
async fn counts(replicas: &[Replica]) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for r in replicas {
        let client = connect(&r.url(), EraMode::Modern).await;
        let who = text(&client.call_tool("whoami", json!({}), CallOptions::new()).await.expect("whoami"));
        let (name, served) = who.split_once(' ').expect("`<name> <served>`");
        out.push((name.to_owned(), served.parse().expect("a count")));
        client.close().await;
    }
    out
}

/// The Python SDK client's run of `calls` echo calls in `mode`, its JSON summary.
fn python_run(url: &str, mode: &str, calls: usize) -> Value {
    let python = peer_support::peer("TOOLWIRE_PY_MCP2");
    let script = toolwire_tests::tests_dir().join("peers/clients/py_cluster.py");
    let out = Command::new(python)
        .arg(script)
        .args(["--mode", mode, "--url", url, "--calls", &calls.to_string()])
        .output()
        .expect("run the Python driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "py_cluster.py --mode {mode} failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Replicas that keep legacy sessions in the shared Redis store.
fn shared(redis: &RedisServer) -> ReplicaOptions {
    ReplicaOptions { legacy: true, redis: Some(redis.url()), ..ReplicaOptions::default() }
}

#[test]
fn a_thousand_calls_from_each_client_land_on_all_three_replicas() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Legacy sessions on, in Redis: a legacy client's session id is honoured by every replica.
    let redis = RedisServer::start();
    let cluster = Cluster::start(&shared(&redis));
    let rt = runtime();
    let started = Instant::now();
    for (era, tag) in [(EraMode::Modern, "modern"), (EraMode::Legacy, "legacy")] {
        rt.block_on(async {
            let client = connect(&cluster.url(), era).await;
            for i in 0..1000 {
                let want = format!("ours-{tag}-{i}");
                assert_eq!(echo(&client, &want).await.unwrap_or_else(|e| panic!("call {i}: {e}")), want);
            }
            client.close().await;
        });
    }
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let summary = python_run(&cluster.url(), mode, 1000);
        assert_eq!(summary["ok"], 1000, "{summary}");
        assert_eq!(summary["protocol_version"], version, "{summary}");
    }
    let counts = rt.block_on(counts(&cluster.replicas));
    eprintln!("4,000 calls through nginx in {:?}; per replica: {counts:?}", started.elapsed());
    // Every call counted once, somewhere; round-robin gives each replica a share.
    assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), 4000, "{counts:?}");
    for (name, served) in &counts {
        assert!(*served > 500, "replica {name} served only {served}: {counts:?}");
    }
}

#[test]
fn a_replica_killed_mid_run_fails_its_calls_with_a_classified_error_and_the_next_call_succeeds() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut cluster = Cluster::start(&ReplicaOptions::default());
    let rt = runtime();
    let url = cluster.url();
    let client = rt.block_on(connect(&url, EraMode::Modern));
    // Six slow calls at once: round-robin gives each replica two.
    let calls: Vec<_> = (0..6)
        .map(|i| {
            let client = client.clone();
            rt.spawn(async move {
                let args = json!({"ms": 2000, "text": format!("slow-{i}")});
                client.call_tool("slow", args, CallOptions::new()).await.map(|r| text(&r))
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    cluster.replica("b").signal("-KILL");
    let outcomes: Vec<Result<String, ToolError>> =
        calls.into_iter().map(|c| rt.block_on(c).expect("the call task")).collect();
    let failed: Vec<String> =
        outcomes.iter().filter_map(|o| o.as_ref().err().map(ToString::to_string)).collect();
    let answered = outcomes.iter().filter(|o| o.is_ok()).count();
    assert_eq!((answered, failed.len()), (4, 2), "{outcomes:?}\n{}", cluster.access_log());
    for f in &failed {
        // nginx answered 502 for the replica it lost mid-call: the client cannot know whether
        // the call ran, so it is an unknown outcome, not re-run (at-most-once by default).
        assert_eq!(
            f,
            "the outcome of tool 'slow' is unknown: the call was cut off (server 'cluster' answered HTTP 502); it may have run, and it must not be re-run",
            "{outcomes:?}"
        );
    }
    // The next calls all succeed: nginx takes b out of the rotation (a refused connect is
    // retried on another replica, whatever the method).
    rt.block_on(async {
        for i in 0..30 {
            let want = format!("after-{i}");
            assert_eq!(
                echo(&client, &want).await.unwrap_or_else(|e| panic!("call {i} after the kill: {e}")),
                want
            );
        }
    });
}

#[test]
fn a_replica_drained_with_sigterm_loses_nothing_in_flight_and_exits_0() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut cluster =
        Cluster::start(&ReplicaOptions { drain_grace: Some(10.0), ..ReplicaOptions::default() });
    let rt = runtime();
    let client = rt.block_on(connect(&cluster.url(), EraMode::Modern));
    let calls: Vec<_> = (0..6)
        .map(|i| {
            let client = client.clone();
            rt.spawn(async move {
                let args = json!({"ms": 1500, "text": format!("slow-{i}")});
                client.call_tool("slow", args, CallOptions::new()).await.map(|r| text(&r))
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    cluster.replica("b").signal("-TERM");
    // While b drains, new calls keep coming: b refuses their connections and nginx passes
    // them on to a or c.
    rt.block_on(async {
        for i in 0..50 {
            let want = format!("during-{i}");
            assert_eq!(
                echo(&client, &want).await.unwrap_or_else(|e| panic!(
                    "call {i} during the drain: {e}\n{}\n{}",
                    cluster.error_log(),
                    cluster.access_log()
                )),
                want
            );
        }
    });
    for (i, call) in calls.into_iter().enumerate() {
        assert_eq!(
            rt.block_on(call).expect("the call task").expect("a slow call in flight"),
            format!("slow-{i}")
        );
    }
    let (status, stderr) = cluster.replica("b").wait(Duration::from_secs(10));
    assert!(status.success(), "b exited with {status}: {stderr}");
    assert_eq!(stderr.trim(), "replica b served 2, cut off 0");
}

/// A 2026-07-28 `tools/call` of `ask` straight to `replica`, with `extra` params.
fn ask(replica: &Replica, extra: Value) -> Value {
    let mut params = json!({
        "name": "ask",
        "arguments": {"question": "Who?"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        },
    });
    params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let mut headers = mcp_headers(replica.addr);
    headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    headers.push(("Mcp-Method".into(), "tools/call".into()));
    headers.push(("Mcp-Name".into(), "ask".into()));
    let response = request(replica.addr, "POST", "/mcp", &headers, &body);
    assert_eq!(response.status, 200, "{}", response.body);
    response.json()
}

#[test]
fn an_input_required_round_started_on_one_replica_is_finished_on_another() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let shared =
        ReplicaOptions { request_state_key: Some("cluster-key-0123456789".into()), ..Default::default() };
    let a = Replica::start("a", 0, &shared);
    let b = Replica::start("b", 0, &shared);
    let other =
        ReplicaOptions { request_state_key: Some("another-key-9876543210".into()), ..Default::default() };
    let x = Replica::start("x", 0, &other);
    let first = ask(&a, json!({}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    let answer = json!({"action": "accept", "content": {"name": "Ada"}});
    let retry = json!({"inputResponses": {"ask-1": answer}, "requestState": state});
    let done = ask(&b, retry.clone());
    assert_eq!(done["result"]["content"], json!([{"type": "text", "text": "Ada answered on b"}]), "{done}");
    // A replica with another key cannot read the state: the round cannot finish there.
    let refused = ask(&x, retry);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "invalid params: requestState failed its integrity check (it was altered, or issued by another server); retry without requestState and inputResponses to start over"
    );
}

#[test]
fn readyz_says_draining_and_mcp_refuses_new_requests_once_the_drain_began() {
    use toolwire::http::{Auth, Drain, HttpConfig, mcp_router};
    let rt = runtime();
    let drain = Drain::new();
    let addr = rt.block_on(async {
        let registry = toolwire::ToolRegistry::new();
        let server = toolwire::Server::new(registry, toolwire::ServerOptions::new("drained", "0.1.0"));
        let config = HttpConfig::new(Auth::None).stateless(true).drain(drain.clone());
        let app = mcp_router(server, config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // Served without graceful shutdown, so the listener stays open and the refusals show.
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    });
    let get = |path: &str| request(addr, "GET", path, &[("Host".into(), addr.to_string())], "");
    let healthz = get("/healthz");
    assert_eq!((healthz.status, healthz.body.as_str()), (200, "ok"));
    let readyz = get("/readyz");
    assert_eq!((readyz.status, readyz.body.as_str()), (200, "ready"));
    drain.begin();
    let readyz = get("/readyz");
    assert_eq!((readyz.status, readyz.body.as_str()), (503, "not ready: draining"));
    let healthz = get("/healthz");
    assert_eq!((healthz.status, healthz.body.as_str()), (200, "ok"), "the process is still up");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).to_string();
    let refused = request(addr, "POST", "/mcp", &mcp_headers(addr), &body);
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("connection"), Some("close"));
    assert_eq!(refused.json()["error"]["code"], -32600);
    assert_eq!(
        refused.json()["error"]["message"],
        "service unavailable: this replica is draining; send the request again (to another replica)"
    );
}

/// `level` through the cluster `n` times: the replicas that answered, each saying whether the
/// session logs at debug.
async fn levels(client: &Client, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..n {
        let result = client.call_tool("level", json!({}), CallOptions::new()).await;
        out.push(text(&result.unwrap_or_else(|e| panic!("level: {e}"))));
    }
    out
}

#[test]
fn a_legacy_session_lives_on_with_its_state_when_its_replica_is_killed() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let mut cluster = Cluster::start(&shared(&redis));
    let rt = runtime();
    let client = rt.block_on(connect(&cluster.url(), EraMode::Legacy));
    rt.block_on(client.set_level(LoggingLevel::Debug)).expect("logging/setLevel");
    // The level set on one replica is the session's on every replica.
    let before = rt.block_on(levels(&client, 6));
    let mut all: Vec<&str> = before.iter().map(|l| l.split(' ').next().unwrap()).collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all, ["a", "b", "c"], "{before:?}");
    assert!(before.iter().all(|l| l.ends_with(" logs debug: true")), "{before:?}");
    cluster.replica("b").signal("-KILL");
    let _ = cluster.replica("b").wait(Duration::from_secs(5));
    // No new handshake: the same session, its level intact, served by the two left.
    let after = rt.block_on(levels(&client, 6));
    let expected: Vec<bool> =
        after.iter().map(|l| l == "a logs debug: true" || l == "c logs debug: true").collect();
    assert_eq!(expected, vec![true; 6], "{after:?}");
}

#[test]
fn redis_down_is_a_classified_error_no_replica_crashes_and_service_resumes() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut redis = RedisServer::start();
    let cluster = Cluster::start(&shared(&redis));
    let rt = runtime();
    let legacy = rt.block_on(connect(&cluster.url(), EraMode::Legacy));
    let modern = rt.block_on(connect(&cluster.url(), EraMode::Modern));
    assert_eq!(rt.block_on(echo(&legacy, "before")).expect("a call with Redis up"), "before");
    redis.stop();
    let err = rt.block_on(echo(&legacy, "down")).expect_err("a legacy call needs the session store");
    // The replica answered 503 with -32600 `service unavailable: the session store is
    // unavailable; try again` (STORE_UNAVAILABLE): the call was not run, and may be sent
    // again. Our client says so in its own words (the server's stay out of what a model reads).
    assert_eq!(
        err.to_string(),
        "tool 'echo' is unavailable: server 'cluster' answered HTTP 503 (service unavailable)",
        "{err:?}"
    );
    assert!(err.is_retryable(), "{err:?}");
    // The modern era keeps no session: served as usual.
    assert_eq!(rt.block_on(echo(&modern, "modern")).expect("a modern call without Redis"), "modern");
    for r in &cluster.replicas {
        let readyz = request(r.addr, "GET", "/readyz", &[("Host".into(), r.addr.to_string())], "");
        assert_eq!(readyz.status, 503, "{}", readyz.body);
        assert!(readyz.body.starts_with("not ready: session store: unavailable: "), "{}", readyz.body);
    }
    redis.restart();
    // Each replica's connection manager reconnects on its own; /readyz says when.
    let until = Instant::now() + Duration::from_secs(15);
    for r in &cluster.replicas {
        loop {
            let readyz = request(r.addr, "GET", "/readyz", &[("Host".into(), r.addr.to_string())], "");
            if (readyz.status, readyz.body.as_str()) == (200, "ready") {
                break;
            }
            assert!(Instant::now() < until, "replica {} is not ready again: {}", r.name, readyz.body);
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // Every replica is still up, and a new session is served again.
    let counts = rt.block_on(counts(&cluster.replicas));
    assert_eq!(counts.len(), 3);
    let again = rt.block_on(connect(&cluster.url(), EraMode::Legacy));
    assert_eq!(rt.block_on(echo(&again, "after")).expect("a call with Redis back"), "after");
}

#[test]
fn the_http_main_drains_on_sigterm_finishing_the_call_in_flight() {
    use std::io::BufRead;
    let mut server = Command::new(env!("CARGO_BIN_EXE_drain-main"))
        .args(["--http", "--show-token", "--drain-grace", "5", "--log-level", "off"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn drain-main");
    let mut out = std::io::BufReader::new(server.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..4 {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        lines.push(line.trim_end().to_owned());
    }
    let url = lines[0].rsplit(' ').next().unwrap().to_owned();
    let addr: std::net::SocketAddr =
        url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let auth = lines[3].strip_prefix("header: Authorization: ").expect("the token line").to_owned();
    let mut headers = mcp_headers(addr);
    headers.push(("Authorization".into(), auth));
    headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    headers.push(("Mcp-Method".into(), "tools/call".into()));
    headers.push(("Mcp-Name".into(), "slow".into()));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"ms": 1000},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}},
    }})
    .to_string();
    let ready = request(addr, "GET", "/readyz", &[("Host".into(), addr.to_string())], "");
    assert_eq!((ready.status, ready.body.as_str()), (200, "ready"));
    let call = std::thread::spawn(move || request(addr, "POST", "/mcp", &headers, &body));
    std::thread::sleep(Duration::from_millis(300));
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    std::thread::sleep(Duration::from_millis(100));
    // Draining: the listener is closed, so a new connection is refused.
    assert!(std::net::TcpStream::connect(addr).is_err(), "a new connection was accepted while draining");
    let answered = call.join().expect("the call thread");
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.json()["result"]["content"], json!([{"type": "text", "text": "slept 1000 ms"}]));
    let until = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < until, "drain-main did not exit after the drain");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

/// The replica (`a`, `b` or `c`) whose address is `upstream` in nginx's access log.
fn replica_at<'c>(cluster: &'c Cluster, upstream: &str) -> &'c str {
    let found = cluster.replicas.iter().find(|r| r.addr.to_string() == upstream);
    &found.unwrap_or_else(|| panic!("no replica at {upstream}")).name
}

/// The upstream of the first access-log line that `matches`.
fn upstream_of(log: &str, matches: impl Fn(&str) -> bool) -> String {
    let line = log.lines().find(|l| matches(l)).unwrap_or_else(|| panic!("no such request in:\n{log}"));
    line.split(' ').nth(3).expect("`METHOD URI STATUS UPSTREAM …`").to_owned()
}

#[test]
fn a_subscription_made_through_one_replica_receives_updates_raised_on_every_replica() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let cluster = Cluster::start(&shared(&redis));
    redis.await_listeners("toolwire-cluster", 3);
    // The Python SDK's legacy client, through nginx: its GET stream on one replica, its
    // subscribe (after the stream opened) on another; `touch` raised on each replica in turn.
    let python = peer_support::peer("TOOLWIRE_PY_MCP2");
    let mut command = Command::new(python);
    command.arg(toolwire_tests::tests_dir().join("peers/clients/py_cluster.py")).args([
        "--scenario",
        "subscribe",
        "--url",
        &cluster.url(),
    ]);
    for r in &cluster.replicas {
        command.args(["--replica", &r.url()]);
    }
    let out = peer_support::run_bounded(command, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "py_cluster.py --scenario subscribe failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let log = cluster.access_log();
    let stream = upstream_of(&log, |l| l.starts_with("GET /mcp 200 "));
    let subscribed = upstream_of(&log, |l| l.contains("resources/subscribe"));
    let unsubscribed = upstream_of(&log, |l| l.contains("resources/unsubscribe"));
    let (stream, subscribed, unsubscribed) = (
        replica_at(&cluster, &stream),
        replica_at(&cluster, &subscribed),
        replica_at(&cluster, &unsubscribed),
    );
    eprintln!("GET stream on {stream}, subscribe on {subscribed}, unsubscribe on {unsubscribed}: {summary}");
    // What the test is about: the subscription was not made where the stream is.
    assert_ne!(stream, subscribed, "round-robin put both on one replica:\n{log}");
    assert_ne!(stream, unsubscribed, "round-robin put both on one replica:\n{log}");
    // One update per replica that raised it, none for the URI not subscribed to, and none
    // once unsubscribed (on yet another replica).
    let watched = "cluster://watched";
    assert_eq!(summary["updates"], json!([watched, watched, watched]), "{summary}");
    assert_eq!(summary["after_unsubscribe"], json!([]), "{summary}");
}

#[test]
fn the_python_sdk_clients_calls_cut_off_by_a_sigkill_fail_and_their_next_calls_succeed() {
    use std::io::BufRead;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let mut cluster = Cluster::start(&shared(&redis));
    // A modern and a legacy client, three 2 s calls each at once through nginx; b is killed
    // while they run.
    let mut child = Command::new(peer_support::peer("TOOLWIRE_PY_MCP2"))
        .arg(toolwire_tests::tests_dir().join("peers/clients/py_cluster.py"))
        .args(["--scenario", "kill", "--url", &cluster.url(), "--call-timeout", "10"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the Python driver");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next = |limit: Duration| {
        rx.recv_timeout(limit).unwrap_or_else(|_| {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("the Python driver said nothing for {limit:?}")
        })
    };
    assert_eq!(next(Duration::from_secs(30)), "calling");
    cluster.replica("b").signal("-KILL");
    let summary: Value = {
        let line = next(Duration::from_secs(60));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    let status = child.wait().expect("wait for the Python driver");
    assert!(status.success(), "{summary}");
    eprintln!("the Python SDK's calls across the SIGKILL: {summary}");
    // Each client's three calls went out as one burst of consecutive requests (py_cluster.py),
    // so round-robin gave b exactly one of each: that one fails with what the client saw (nginx's
    // 502, which the SDK raises in both eras), the other two are answered, and each client's next
    // calls succeed.
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let s = &summary[mode];
        assert_eq!(s["protocol_version"], version, "{summary}");
        assert_eq!(s["after"], 3, "{mode}: the next calls succeed: {summary}");
        assert_eq!(s["ok"], 2, "{mode}: the calls the other replicas held are answered: {summary}");
        assert_eq!(s["failed"], json!([PY_CUT_OFF]), "{mode}: {summary}\n{}", cluster.access_log());
    }
}

/// Read SSE events from `stream` until `enough` says stop or `limit` passes.
fn read_events(
    stream: &mut std::net::TcpStream,
    limit: Duration,
    enough: impl Fn(&[SseEvent]) -> bool,
) -> Vec<SseEvent> {
    use std::io::Read;
    let deadline = Instant::now() + limit;
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let events = sse_events_in(&raw);
        let left = deadline.saturating_duration_since(Instant::now());
        if enough(&events) || left.is_zero() {
            return events;
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return sse_events_in(&raw),
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
}

/// A `steps` log event's step and replica.
fn step_of(data: &str) -> Option<(u64, String)> {
    let v: Value = serde_json::from_str(data).ok()?;
    let d = &v["params"]["data"];
    Some((d["step"].as_u64()?, d["replica"].as_str()?.to_owned()))
}

/// A legacy POST's headers through nginx at `addr`, in session `sid` when given.
fn legacy_headers(addr: std::net::SocketAddr, sid: Option<&str>) -> Vec<(String, String)> {
    let mut h = mcp_headers(addr);
    if let Some(sid) = sid {
        h.push(("Mcp-Session-Id".into(), sid.into()));
        h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
    }
    h
}

/// A GET resuming session `sid`'s stream after `last` through nginx at `addr`: its events
/// and its whole body (the stream ends after the replay when no replica runs the call).
fn resume(addr: std::net::SocketAddr, sid: &str, last: &str) -> (Vec<SseEvent>, String) {
    let get = [
        ("Host".to_owned(), addr.to_string()),
        ("Accept".to_owned(), "text/event-stream".to_owned()),
        ("Mcp-Session-Id".to_owned(), sid.to_owned()),
        ("MCP-Protocol-Version".to_owned(), "2025-11-25".to_owned()),
        ("Last-Event-ID".to_owned(), last.to_owned()),
    ];
    let r = request(addr, "GET", "/mcp", &get, "");
    assert_eq!(r.status, 200, "{}", r.body);
    (sse_events_in(r.body.as_bytes()), r.body)
}

#[test]
fn an_sse_client_resumes_through_nginx_after_its_replica_was_killed_and_misses_no_stored_event() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let mut cluster = Cluster::start(&shared(&redis));
    let addr = cluster.addr;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let r = request(addr, "POST", "/mcp", &legacy_headers(addr, None), &init.to_string());
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(request(addr, "POST", "/mcp", &legacy_headers(addr, Some(&sid)), initialized).status, 202);
    // Eight steps 300 ms apart, streamed as SSE on the replica that takes the call. The client
    // reads two, then its connection drops (a legacy call goes on without it).
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "steps", "arguments": {"count": 8, "gap_ms": 300}}});
    let mut stream = open(addr, "POST", "/mcp", &legacy_headers(addr, Some(&sid)), &call.to_string());
    let first = read_events(&mut stream, Duration::from_secs(10), |e| {
        e.iter().filter(|(_, d)| step_of(d).is_some()).count() >= 2
    });
    drop(stream);
    let seen: Vec<(u64, String)> = first.iter().filter_map(|(_, d)| step_of(d)).collect();
    let x = seen[0].1.clone();
    assert_eq!(seen, [(1, x.clone()), (2, x.clone())], "{first:?}");
    let last_id = first.iter().rev().find_map(|(id, _)| id.clone()).expect("events carry ids");
    let (stream_id, seq) = last_id.rsplit_once(':').expect("`<stream>:<seq>`");
    let seq: u64 = seq.parse().expect("a number");
    // Once step 4 is in Redis, the replica running the call is killed: steps 5 to 8 and the
    // answer never happen.
    let key = format!("toolwire-cluster:events:{sid}:{stream_id}");
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let newest = redis.command(&["LINDEX", &key, "-1"]).unwrap_or_default();
        let data =
            serde_json::from_str::<Value>(&newest).ok().and_then(|e| e["data"].as_str().map(str::to_owned));
        if data.as_deref().and_then(step_of).is_some_and(|(step, _)| step == 4) {
            break;
        }
        assert!(Instant::now() < until, "step 4 never reached Redis: {newest}");
        std::thread::sleep(Duration::from_millis(10));
    }
    cluster.replica(&x).signal("-KILL");
    let _ = cluster.replica(&x).wait(Duration::from_secs(5));
    let stored = redis.command(&["LLEN", &key]).expect("LLEN");
    // The client comes back through nginx with its Last-Event-ID: another replica replays
    // what X stored after it, each event once, in order, with the ids going on from the
    // client's; then it ends the stream with `retry:`, since no replica runs the call now.
    let (rest, body) = resume(addr, &sid, &last_id);
    let steps: Vec<(u64, String)> = rest.iter().filter_map(|(_, d)| step_of(d)).collect();
    assert_eq!(steps, [(3, x.clone()), (4, x.clone())], "{rest:?}");
    let ids: Vec<String> = rest.iter().filter_map(|(id, _)| id.clone()).collect();
    assert_eq!(ids, [format!("{stream_id}:{}", seq + 1), format!("{stream_id}:{}", seq + 2)], "{rest:?}");
    assert_eq!(stored, format!(":{}", seq + 2), "Redis holds exactly the events up to step 4");
    assert!(body.contains("\nretry: 1000\n") || body.starts_with("retry: 1000\n"), "{body:?}");
    // The call's answer died with X: polling again from the last event gets nothing more.
    let (again, body) = resume(addr, &sid, &ids[1]);
    assert_eq!(again, [], "{body:?}");
}

/// What the Python SDK 2.3.0 legacy client raises for a call its replica took and lost
/// (nginx answered 502).
/// What the Python SDK 2.3.0 raises, in either era, for a call nginx answered 502.
const PY_CUT_OFF: &str = "MCPError: Server returned an error response";

#[test]
fn the_python_sdks_legacy_client_runs_the_example_contract_through_nginx_on_every_replica() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let cluster = Cluster::start(&ReplicaOptions { example_tools: true, ..shared(&redis) });
    // `tests/peers/clients/py_http_client.py`: the handshake at 2025-11-25, then every POST
    // with its `Mcp-Session-Id`; its GET stream; good calls, the exact error texts, progress
    // (SSE), concurrent slow calls. (Without a token: the replicas sit behind nginx with auth
    // off; the 401 is `http_interop.rs`'s.)
    let mut command = Command::new(peer_support::peer("TOOLWIRE_PY_MCP2"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/py_http_client.py")).args([
        "--mode",
        "legacy",
        "--url",
        &cluster.url(),
    ]);
    let out = peer_support::run_bounded(command, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "py_http_client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
    for check in [
        "connect",
        "protocol_version",
        "server_info",
        "wire_handshake",
        "echo",
        "fail",
        "progress",
        "slow_concurrent",
        "wire_json_and_sse",
        "wire_era_headers",
    ] {
        assert!(stdout.lines().any(|l| l == format!("ok {check}")), "no `ok {check}` in:\n{stdout}");
    }
    // Every replica served requests of the client's sessions (a POST that is not
    // `initialize` names its session: `wire_era_headers` checked it).
    let log = cluster.access_log();
    let in_session = |r: &Replica| {
        let at = r.addr.to_string();
        log.lines()
            .filter(|l| l.starts_with("POST ") && l.split(' ').nth(3) == Some(at.as_str()))
            .filter(|l| !l.contains(r"\x22method\x22:\x22initialize\x22"))
            .count()
    };
    let counts: Vec<usize> = cluster.replicas.iter().map(in_session).collect();
    eprintln!("session requests per replica: {counts:?}");
    assert!(counts.iter().all(|&n| n >= 3), "every replica served the client's sessions: {counts:?}\n{log}");
}

// ─── The tasks extension across replicas (tasks in the shared Redis) ───

/// A 2026-07-28 request declaring the tasks extension, POSTed to `addr` (nginx or one
/// replica) with the headers it routes by (`Mcp-Name` is the tool, or the task id); the
/// JSON-RPC response.
fn task_post(addr: std::net::SocketAddr, method: &str, mut params: Value, name: &str) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut headers = mcp_headers(addr);
    headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    headers.push(("Mcp-Method".into(), method.into()));
    headers.push(("Mcp-Name".into(), name.into()));
    let response = request(addr, "POST", "/mcp", &headers, &body);
    assert_eq!(response.status, 200, "{method}: {}", response.body);
    if response.header("content-type").is_some_and(|c| c.starts_with("text/event-stream")) {
        response.sse_events().pop().expect("an answer on the stream")
    } else {
        response.json()
    }
}

/// Start `job` through `addr`; its task id.
fn start_job(addr: std::net::SocketAddr, ms: u64, confirm: bool, label: &str) -> String {
    let arguments = json!({"ms": ms, "confirm": confirm, "label": label});
    let created = task_post(addr, "tools/call", json!({"name": "job", "arguments": arguments}), "job");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().expect("a task id").to_owned()
}

/// `tasks/get` of `id` through `addr`, polled until `done` says so (10 s at most).
fn task_until(addr: std::net::SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let got = task_post(addr, "tasks/get", json!({"taskId": id}), id)["result"].clone();
        if done(&got) {
            return got;
        }
        assert!(Instant::now() < until, "task {id} through {addr}: still {got}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The replica running task `id` (its status message says `0: running on <name>`), asked
/// through `addr`.
fn owner_of(addr: std::net::SocketAddr, id: &str) -> String {
    let got = task_until(addr, id, |t| t["statusMessage"].is_string());
    let message = got["statusMessage"].as_str().unwrap_or_default();
    message.strip_prefix("0: running on ").unwrap_or_else(|| panic!("status message {message:?}")).to_owned()
}

fn tasks_cluster(redis: &RedisServer) -> Cluster {
    Cluster::start(&ReplicaOptions { redis: Some(redis.url()), ..ReplicaOptions::default() })
}

#[test]
fn a_task_started_through_nginx_is_answered_cancelled_and_finished_through_other_replicas() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let cluster = tasks_cluster(&redis);
    let other =
        |owner: &str| cluster.replicas.iter().find(|r| r.name != owner).expect("another replica").addr;

    // Answered on another replica: the answer waits in the task's inbox in Redis until its
    // owner takes it; the result, made on the owner, is read on the other.
    let id = start_job(cluster.addr, 200, true, "one");
    let owner = owner_of(cluster.addr, &id);
    let elsewhere = other(&owner);
    let asking = task_until(elsewhere, &id, |t| t["status"] == "input_required");
    assert_eq!(asking["inputRequests"]["go"]["method"], "elicitation/create", "{asking}");
    let answer =
        json!({"taskId": id, "inputResponses": {"go": {"action": "accept", "content": {"go": true}}}});
    let ack = task_post(elsewhere, "tasks/update", answer, &id);
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = task_until(elsewhere, &id, |t| t["status"] != "input_required" && t["status"] != "working");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], format!("job one done on {owner}"));

    // Cancelled on another replica.
    let id = start_job(cluster.addr, 60_000, false, "two");
    let owner = owner_of(cluster.addr, &id);
    let elsewhere = other(&owner);
    let ack = task_post(elsewhere, "tasks/cancel", json!({"taskId": id}), &id);
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let cancelled = task_until(elsewhere, &id, |t| t["status"] != "working");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["statusMessage"], "cancelled by the client (tasks/cancel)");
}

#[test]
fn a_task_whose_replica_was_killed_reads_as_failed_on_the_others() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let redis = RedisServer::start();
    let mut cluster = tasks_cluster(&redis);
    let id = start_job(cluster.addr, 60_000, false, "doomed");
    let owner = owner_of(cluster.addr, &id);
    let killed = Instant::now();
    cluster.replica(&owner).signal("-KILL");
    let elsewhere = cluster.replicas.iter().find(|r| r.name != owner).expect("another replica").addr;
    let failed = task_until(elsewhere, &id, |t| t["status"] != "working");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(
        failed["statusMessage"],
        "the server replica running this task stopped renewing its lease (it stopped or was killed); the task's result is lost"
    );
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    // Within the lease (1.5 s) and a poll or two of it.
    assert!(killed.elapsed() < Duration::from_secs(5), "took {:?}", killed.elapsed());
}

// ─── end of the tasks extension's block ───
