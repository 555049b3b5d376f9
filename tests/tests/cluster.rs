//! Three toolwire replicas behind a real nginx (`tests/src/cluster.rs`), all real processes on
//! loopback: every call answered once and correctly whichever replica takes it, a replica
//! killed or drained mid-run, an `input_required` round finished on another replica, and the
//! readiness endpoints a load balancer probes.
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
use toolwire_tests::http::{mcp_headers, request};
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
                echo(&client, &want).await.unwrap_or_else(|e| panic!("call {i} during the drain: {e}")),
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
    use toolwire::server::Exposure;
    let rt = runtime();
    let drain = Drain::new();
    let addr = rt.block_on(async {
        let registry = toolwire::ToolRegistry::new();
        let server = toolwire::Server::new(registry, toolwire::ServerOptions::new("drained", "0.1.0"));
        let config = HttpConfig::new(Auth::None).stateless(true).drain(drain.clone());
        let app = mcp_router(server, Exposure::TrustedHost, config);
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
    // unavailable; try again` (STORE_UNAVAILABLE); our client keeps the server's words out of
    // what a model reads and reports the code.
    assert_eq!(err.to_string(), "tool 'echo' was declined by server 'cluster' (code -32600)", "{err:?}");
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
