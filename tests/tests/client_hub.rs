//! The hub (issue 48) against real servers: server-everything over stdio and HTTP,
//! mcp-server-time, server-filesystem, Python SDK 2.3.0 servers (`client_hub.py`) killed
//! and respawned, an HTTP one taken down and brought back, a command that does not exist,
//! one that hangs at start-up, one disabled. Needs the peers: `bash tests/peers/setup.sh`.

mod client_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use client_support::{Server, assert_gone, fixture, free_port, peer, process_gone, py2, start};
use serde_json::json;
use tokio::sync::{broadcast, watch};
use toolwire::client::hub::{
    Backoff, CallError, Collisions, ConnectMode, Declaration, ErrorCode, Health, Hub, HubCall, HubEvent,
    HubOptions, Origin, ServerDeclarations, Verdict, allow_all,
};
use toolwire::client::{HttpServer, ResourceContent, StdioServer};

fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolwire-hub-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

/// `client_hub.py NAME` over stdio.
fn py(name: &str) -> StdioServer {
    py2("client_hub.py").arg(name)
}

/// The pids of our children whose command line holds `needle`.
fn children_with(needle: &str) -> Vec<u32> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let ppid =
            stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1).map(str::to_owned));
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if ppid.as_deref() == Some(&me) && cmdline.contains(needle) && !process_gone(pid) {
            found.push(pid);
        }
    }
    found
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(str::to_owned).collect()
}

fn drain(rx: &mut broadcast::Receiver<HubEvent>) -> Vec<HubEvent> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(e);
    }
    out
}

/// Each event as `kind server`, calls as `kind server tool`.
fn labels(events: &[HubEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            HubEvent::Connecting { server } => format!("connecting {server}"),
            HubEvent::Connected { server, .. } => format!("connected {server}"),
            HubEvent::Disconnected { server, .. } => format!("disconnected {server}"),
            HubEvent::Reconnecting { server, attempt, .. } => format!("reconnecting {server} {attempt}"),
            HubEvent::Failed { server, .. } => format!("failed {server}"),
            HubEvent::Closed { server } => format!("closed {server}"),
            HubEvent::ToolCalled { server, tool, .. } => format!("called {server} {tool}"),
            HubEvent::CallFailed { server, tool, code, .. } => {
                format!("call-failed {} {tool} {code}", server.as_deref().unwrap_or("-"))
            }
            other => format!("{other:?}"),
        })
        .collect()
}

async fn wait_for(
    rx: &mut watch::Receiver<Health>,
    within: Duration,
    want: impl FnMut(&Health) -> bool,
) -> Health {
    let reached = match tokio::time::timeout(within, rx.wait_for(want)).await {
        Ok(Ok(h)) => Some(h.clone()),
        _ => None,
    };
    match reached {
        Some(h) => h,
        None => panic!("health did not reach the state wanted within {within:?}; it is {:?}", *rx.borrow()),
    }
}

fn text(out: &toolwire::ToolOutput) -> String {
    out.joined_text()
}

fn err(result: Result<toolwire::ToolOutput, CallError>) -> CallError {
    result.expect_err("the call should fail")
}

#[tokio::test]
async fn many_real_servers_behind_one_hub_lazy_routed_and_gated() {
    let dir = project("many");
    let marker = dir.join("py.started");
    let node = peer("TOOLWIRE_NODE22");
    let time = peer("TOOLWIRE_MCP_SERVER_TIME");
    let fs_server = peer("TOOLWIRE_SERVER_FILESYSTEM");
    let everything = peer("TOOLWIRE_SERVER_EVERYTHING");
    std::fs::write(dir.join("note.txt"), "remember the milk").unwrap();
    // server-everything over HTTP, connected at start-up.
    let port = free_port();
    let _evhttp =
        start(Command::new(&node).arg(&everything).arg("streamableHttp").env("PORT", port.to_string()), port);
    // The file layer: `time` and `fs` are overridden above it; a missing command, one
    // that never answers, one disabled.
    let file = dir.join(".mcp.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {
            "time": {"command": &time, "args": ["--local-timezone", "Europe/Paris"]},
            "fs": {"command": &node, "args": [&fs_server, "/nonexistent-dir"]},
            "ghost": {"command": "/nonexistent/toolwire-no-such-server"},
            "hang": {"command": "sleep", "args": ["30"], "startTimeout": 1.5},
            "off": {"command": "sleep", "args": ["31"], "connect": "disabled"}
        }})
        .to_string(),
    )
    .unwrap();
    // The environment layer (what MCP_SERVERS would hold).
    let env = json!([
        {"name": "everything", "command": &node, "args": [&everything, "stdio"], "allow": ["echo", "get-sum"],
         "maxResultBytes": 4096},
        {"name": "fs", "command": &node, "args": [&fs_server, &dir]},
        {"name": "time", "command": "/nonexistent/env-time"}
    ]);
    let declared = ServerDeclarations::new()
        .declare(Declaration::new("time", StdioServer::new(&time).args(["--local-timezone", "UTC"])))
        .declare(Declaration::new("py", py("py").env("HUB_MARKER", marker.display().to_string())))
        .declare(
            Declaration::new("evhttp", HttpServer::new(format!("http://127.0.0.1:{port}/mcp")))
                .connect(ConnectMode::Startup),
        )
        .environment(env.to_string())
        .file(&file);
    let gate = std::sync::Arc::new(|r: &toolwire::client::hub::GateRequest<'_>| match r.tool {
        "fs__write_file" => Verdict::Deny("writes are not allowed here".into()),
        t if t.starts_with("fs__") && !t.starts_with("fs__read") && !t.starts_with("fs__list") => {
            Verdict::Abstain
        }
        _ => Verdict::Allow,
    });
    let hub = Hub::start(declared, HubOptions::new(&dir).gate(gate)).await.unwrap();

    // Precedence: code > environment > file, one declaration each; the names in order.
    assert_eq!(hub.names(), ["time", "py", "evhttp", "everything", "fs", "ghost", "hang", "off"]);
    assert_eq!(hub.declaration("time").unwrap().origin, Origin::Code(1));
    assert_eq!(hub.declaration("fs").unwrap().origin, Origin::Environment(2));
    assert_eq!(hub.declaration("hang").unwrap().origin, Origin::File(file.clone(), 3)); // json! writes keys sorted
    assert_eq!(hub.declaration("hang").unwrap().start_timeout, Some(Duration::from_millis(1500)));
    assert_eq!(hub.declaration("everything").unwrap().max_result_bytes, Some(4096));
    assert_eq!(
        hub.health("handbook").unwrap_err().to_string(),
        "no server 'handbook' is declared; the declared servers are: everything, evhttp, fs, ghost, hang, off, py, time"
    );

    // Lazy: only the start-up server is connected; no child, no marker for the others.
    let states: Vec<_> = hub.names().iter().map(|n| hub.health(n).unwrap().label()).collect();
    assert_eq!(states, ["idle", "idle", "ready", "idle", "idle", "idle", "idle", "disabled"]);
    assert!(!marker.exists(), "py started before its first use");
    assert!(children_with(&time).is_empty() && children_with(&fs_server).is_empty());

    // First use of py starts it, and only it.
    let mut events = hub.events();
    let out = hub.call("py__whoami", json!({}), HubCall::new()).await.unwrap();
    let pid = hub.client("py").unwrap().unwrap().pid().unwrap();
    assert!(text(&out).contains(&format!("py {pid}")), "{}", text(&out));
    assert_eq!(lines(&marker), [pid.to_string()]);
    assert!(children_with(&time).is_empty(), "time started without being used");
    let seen = drain(&mut events);
    assert_eq!(labels(&seen), ["connecting py", "connected py", "called py py__whoami"]);
    assert!(matches!(&seen[1], HubEvent::Connected { pid: Some(p), tools: 4, .. } if *p == pid));

    // A command that does not exist: unavailable with the reason; the others unaffected.
    let e = err(hub.call("ghost__anything", json!({}), HubCall::new()).await);
    assert_eq!(e.code, ErrorCode::Network);
    assert_eq!(e.code.as_str(), "MCP_NETWORK_ERROR");
    let ghost_reason = "server 'ghost' could not be started: `/nonexistent/toolwire-no-such-server`: No such file or directory (os error 2)";
    assert_eq!(e.to_string(), format!("tool 'ghost__anything' is unavailable: {ghost_reason}"));
    assert_eq!(hub.health("ghost").unwrap(), Health::Failed { reason: ghost_reason.into() });
    let e = err(hub.call("off__x", json!({}), HubCall::new()).await);
    assert_eq!(e.to_string(), "tool 'off__x' is unavailable: server 'off' is disabled");

    // A listing is a use: every server is tried; the hung one fails at its start timeout
    // (1.5 s for `initialize`), the missing and the disabled ones with their reasons, and
    // the others serve.
    let view = hub.tools().await;
    let mut unavailable = view.unavailable.clone();
    unavailable.sort();
    assert_eq!(
        unavailable,
        [
            ("ghost".to_owned(), ghost_reason.to_owned()),
            ("hang".to_owned(), "server 'hang' did not answer 'initialize' within 1.5s".to_owned()),
            ("off".to_owned(), "server 'off' is disabled".to_owned()),
        ]
    );
    assert!(children_with("sleep 30").is_empty() && children_with("sleep 31").is_empty());
    let names = view.names();
    for want in
        ["time__get_current_time", "py__whoami", "evhttp__echo", "everything__echo", "everything__get-sum"]
    {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(names.iter().any(|n| n.starts_with("fs__read")), "{names:?}");
    assert!(!names.contains(&"everything__get-env"), "the allow-list lets only echo and get-sum in");
    assert!(view.withheld.is_empty());

    // Calls routed by the model's name, to five servers.
    let out = hub.call("time__get_current_time", json!({"timezone": "UTC"}), HubCall::new()).await.unwrap();
    assert!(text(&out).contains("\"timezone\": \"UTC\""), "{}", text(&out));
    let out = hub.call("everything__echo", json!({"message": "hub"}), HubCall::new()).await.unwrap();
    assert!(text(&out).contains("Echo: hub"));
    let out = hub.call("evhttp__get-sum", json!({"a": 2, "b": 3}), HubCall::new()).await.unwrap();
    assert!(text(&out).contains('5'), "{}", text(&out));
    let path = dir.join("note.txt").display().to_string();
    let out = hub.call("fs__read_text_file", json!({ "path": path }), HubCall::new()).await.unwrap();
    assert!(text(&out).contains("remember the milk"));

    // Run id and idempotency key as the call's _meta, read back by the Python server.
    let call = HubCall::new().run_id("run-7").idempotency_key("key-7-1");
    let out = hub.call("py__echo_meta", json!({}), call).await.unwrap();
    assert!(
        text(&out).contains(r#"{"io.toolwire/idempotency-key": "key-7-1", "io.toolwire/run-id": "run-7"}"#),
        "{}",
        text(&out)
    );

    // Stable codes and our words.
    let e = err(hub.call("everything__echo", json!({}), HubCall::new()).await);
    assert_eq!((e.code.as_str(), e.server.as_deref()), ("MCP_PARAM_ERROR", Some("everything")));
    assert!(e.to_string().starts_with("tool 'everything__echo'"), "{e}");
    let e = err(hub.call("py__boom", json!({}), HubCall::new()).await);
    assert_eq!(e.code.as_str(), "MCP_EXECUTION_ERROR");
    assert_eq!(
        e.to_string(),
        "tool 'py__boom' failed on server 'py'; its report is in the untrusted-data envelope"
    );
    let e = err(hub.call("nothing", json!({}), HubCall::new()).await);
    assert_eq!(
        (e.code.as_str(), e.to_string().as_str()),
        ("MCP_UNKNOWN_TOOL", "no declared server serves a tool named 'nothing'")
    );
    let e = err(hub.call("everything__get-env", json!({}), HubCall::new()).await);
    assert_eq!(
        e.to_string(),
        "server 'everything' has not adopted a tool named 'everything__get-env': not on the allowlist"
    );

    // The gate: a denial with its reason, an abstention denied (fail closed).
    let e = err(hub.call("fs__write_file", json!({"path": path, "content": "x"}), HubCall::new()).await);
    assert_eq!(
        (e.code.as_str(), e.to_string().as_str()),
        (
            "MCP_PERMISSION_DENIED",
            "tool 'fs__write_file' of server 'fs' was denied: writes are not allowed here"
        )
    );
    let e = err(hub.call("fs__create_directory", json!({"path": path}), HubCall::new()).await);
    assert_eq!(
        e.to_string(),
        "tool 'fs__create_directory' of server 'fs' was denied: the gate could not decide (fail closed)"
    );
    assert_eq!(std::fs::read_to_string(dir.join("note.txt")).unwrap(), "remember the milk");

    // Resources by URI, from whichever server serves them; lists across servers.
    let (server, contents) = hub.read_resource("hub://py/note").await.unwrap();
    assert_eq!(server, "py");
    assert!(
        matches!(&contents[..], [ResourceContent::Text { text, .. }] if text == "note from py"),
        "{contents:?}"
    );
    let (server, _) = hub.read_resource("demo://resource/static/document/architecture.md").await.unwrap();
    assert_eq!(server, "evhttp", "the first declared server listing it");
    let (server, contents) = hub.read_resource("demo://resource/dynamic/text/3").await.unwrap();
    assert_eq!(server, "evhttp", "served through its template");
    assert!(!contents.is_empty());
    let e = hub.read_resource("nope://x").await.unwrap_err();
    assert_eq!(e.to_string(), "no connected server serves resource 'nope://x'");
    let prompts = hub.list_prompts().await;
    assert!(prompts.items.iter().any(|(s, p)| s == "py" && p.name == "greet"));
    assert!(
        prompts.items.iter().any(|(s, _)| s == "everything")
            && prompts.items.iter().any(|(s, _)| s == "evhttp")
    );
    let templates = hub.list_resource_templates().await;
    let servers: Vec<&str> = templates.items.iter().map(|(s, _)| s.as_str()).collect();
    assert!(servers.contains(&"evhttp") && servers.contains(&"everything"), "{servers:?}");
    assert!(hub.list_resources().await.items.iter().any(|(s, r)| s == "py" && r.uri == "hub://py/note"));

    // close(name): that one is gone and stays closed; close_all() the rest.
    let time_pid = hub.client("time").unwrap().unwrap().pid().unwrap();
    hub.close("time").await.unwrap();
    assert_eq!(hub.health("time").unwrap(), Health::Closed);
    assert_gone(time_pid).await;
    let e = err(hub.call("time__get_current_time", json!({"timezone": "UTC"}), HubCall::new()).await);
    assert_eq!(e.to_string(), "tool 'time__get_current_time' is unavailable: server 'time' is closed");
    assert!(hub.call("py__whoami", json!({}), HubCall::new()).await.is_ok(), "the others keep serving");
    hub.close_all().await;
    assert_gone(pid).await;
    assert!(hub.names().iter().all(|n| hub.health(n).unwrap() == Health::Closed));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_killed_stdio_server_is_respawned_and_the_call_it_cut_off_is_not_rerun() {
    let dir = project("respawn");
    let runs = dir.join("runs");
    let declared = ServerDeclarations::new()
        .declare(Declaration::new("py", py("py").env("HUB_RUNS", runs.display().to_string())))
        .declare(
            Declaration::new("other", py("other"))
                .connect(ConnectMode::Startup)
                .timeout(Duration::from_secs(1)),
        );
    let backoff = Backoff::new(Duration::from_millis(400), Duration::from_secs(2), 5);
    let options =
        HubOptions::new(&dir).gate(allow_all()).check_every(Duration::from_millis(100)).backoff(backoff);
    let hub = Hub::start(declared, options).await.unwrap();
    // The declaration's timeout bounds its calls.
    let e = err(hub.call("other__slow", json!({"seconds": 3}), HubCall::new()).await);
    assert_eq!(
        (e.code.as_str(), e.to_string().as_str()),
        ("MCP_TIMEOUT", "tool 'other__slow' on server 'other' did not answer within 1s; it may have run")
    );
    let first = text(&hub.call("py__whoami", json!({}), HubCall::new()).await.unwrap());
    let pid = hub.client("py").unwrap().unwrap().pid().unwrap();
    assert!(first.contains(&format!("py {pid}")));
    let mut events = hub.events();
    let mut health = hub.watch("py").unwrap();

    // An at-most-once call in flight when the child is killed.
    let slow = tokio::spawn({
        let hub = hub.clone();
        async move { hub.call("py__slow", json!({"seconds": 30}), HubCall::new()).await }
    });
    let t = Instant::now();
    while lines(&runs).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(10), "slow never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let killed = Instant::now();
    assert!(Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap().success());
    let e = tokio::time::timeout(Duration::from_secs(5), slow).await.unwrap().unwrap().unwrap_err();
    assert_eq!(e.code.as_str(), "MCP_OUTCOME_UNKNOWN");
    assert_eq!(
        e.to_string(),
        "the outcome of tool 'py__slow' is unknown: the call was cut off (server 'py' was killed by signal 9); it may have run, and it must not be re-run"
    );

    // Healing: the dead server's tools are unavailable meanwhile; the other keeps serving.
    let degraded =
        wait_for(&mut health, Duration::from_secs(3), |h| matches!(h, Health::Degraded { attempt: 1.., .. }))
            .await;
    assert_eq!(degraded, Health::Degraded { reason: "was killed by signal 9".into(), attempt: 1 });
    let e = err(hub.call("py__whoami", json!({}), HubCall::new()).await);
    assert_eq!(e.code, ErrorCode::Network);
    assert_eq!(
        e.to_string(),
        "tool 'py__whoami' is unavailable: server 'py' lost its connection (was killed by signal 9) and is being reconnected"
    );
    let view = hub.tools().await;
    let reason = "server 'py' lost its connection (was killed by signal 9) and is being reconnected";
    assert_eq!(view.unavailable, [("py".to_owned(), reason.to_owned())]);
    assert!(view.names().iter().all(|n| n.starts_with("other__")), "{:?}", view.names());
    assert!(text(&hub.call("other__whoami", json!({}), HubCall::new()).await.unwrap()).contains("other "));
    wait_for(&mut health, Duration::from_secs(10), |h| *h == Health::Ready).await;
    // Within the bound: the first delay (400 ms ± 20 %, checked below) and one Python
    // start (one attempt: the events below), which takes seconds on a loaded machine.
    assert!(killed.elapsed() < Duration::from_secs(15), "{:?}", killed.elapsed());
    let new_pid = hub.client("py").unwrap().unwrap().pid().unwrap();
    assert_ne!(new_pid, pid);
    assert!(
        text(&hub.call("py__whoami", json!({}), HubCall::new()).await.unwrap())
            .contains(&format!("py {new_pid}"))
    );
    assert_eq!(lines(&runs).len(), 1, "the cut-off call was not re-run");

    let seen: Vec<HubEvent> = drain(&mut events);
    assert_eq!(
        labels(&seen),
        [
            "call-failed py py__slow MCP_OUTCOME_UNKNOWN",
            "disconnected py",
            "reconnecting py 1",
            "call-failed py py__whoami MCP_NETWORK_ERROR",
            "called other other__whoami",
            "connected py",
            "called py py__whoami",
        ]
    );
    let delay = seen.iter().find_map(|e| match e {
        HubEvent::Reconnecting { delay, .. } => Some(*delay),
        _ => None,
    });
    let delay = delay.unwrap();
    assert!(delay >= Duration::from_millis(320) && delay <= Duration::from_millis(480), "{delay:?}");
    assert!(matches!(&seen[1], HubEvent::Disconnected { reason, .. } if reason == "was killed by signal 9"));
    hub.close_all().await;
    assert_gone(new_pid).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn respawning_gives_up_after_its_bound_and_the_next_use_tries_again() {
    let dir = project("bound");
    // A launcher script the test removes, so that respawning fails.
    let launcher = dir.join("start.sh");
    let script = format!("#!/bin/sh\nexec {} {} gone\n", peer("TOOLWIRE_PY_MCP2"), fixture("client_hub.py"));
    let write_launcher = || {
        std::fs::write(&launcher, &script).unwrap();
        Command::new("chmod").arg("+x").arg(&launcher).status().unwrap();
    };
    write_launcher();
    let declared = ServerDeclarations::new().declare(Declaration::new("gone", StdioServer::new(&launcher)));
    let backoff = Backoff::new(Duration::from_millis(100), Duration::from_millis(400), 3).jitter(0.0);
    let options =
        HubOptions::new(&dir).gate(allow_all()).check_every(Duration::from_millis(50)).backoff(backoff);
    let hub = Hub::start(declared, options).await.unwrap();
    hub.call("gone__whoami", json!({}), HubCall::new()).await.unwrap();
    let pid = hub.client("gone").unwrap().unwrap().pid().unwrap();
    let mut events = hub.events();
    let mut health = hub.watch("gone").unwrap();
    std::fs::remove_file(&launcher).unwrap();
    let killed = Instant::now();
    Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    let failed = wait_for(&mut health, Duration::from_secs(5), |h| matches!(h, Health::Failed { .. })).await;
    // 100 + 200 + 400 ms of backoff, three failed spawns, one check interval.
    let took = killed.elapsed();
    assert!(took >= Duration::from_millis(700) && took < Duration::from_secs(4), "{took:?}");
    let spawn = format!(
        "server 'gone' could not be started: `{}`: No such file or directory (os error 2)",
        launcher.display()
    );
    let reason = format!("server 'gone' could not be reconnected in 3 attempts: {spawn}");
    assert_eq!(failed, Health::Failed { reason: reason.clone() });
    let seen = drain(&mut events);
    assert_eq!(
        labels(&seen),
        [
            "disconnected gone",
            "reconnecting gone 1",
            "reconnecting gone 2",
            "reconnecting gone 3",
            "failed gone"
        ]
    );
    let delays: Vec<u128> = seen
        .iter()
        .filter_map(|e| match e {
            HubEvent::Reconnecting { delay, .. } => Some(delay.as_millis()),
            _ => None,
        })
        .collect();
    assert_eq!(delays, [100, 200, 400]);
    let e = err(hub.call("gone__whoami", json!({}), HubCall::new()).await);
    assert_eq!(e.to_string(), format!("tool 'gone__whoami' is unavailable: {reason}"));
    // Back again: once the backoff's largest delay has passed, the next use reconnects.
    write_launcher();
    tokio::time::sleep(Duration::from_millis(450)).await;
    let out = hub.call("gone__whoami", json!({}), HubCall::new()).await.unwrap();
    assert!(text(&out).contains("gone "));
    assert_eq!(hub.health("gone").unwrap(), Health::Ready);
    hub.close_all().await;
    let _ = std::fs::remove_dir_all(&dir);
}

fn python_http(name: &str, port: u16) -> Server {
    start(
        Command::new(peer("TOOLWIRE_PY_MCP2")).arg(fixture("client_hub.py")).args([
            name,
            "http",
            &port.to_string(),
        ]),
        port,
    )
}

#[tokio::test]
async fn an_http_server_that_goes_down_is_reconnected_when_it_comes_back() {
    let dir = project("http");
    let port = free_port();
    let server = python_http("web", port);
    let declared = ServerDeclarations::new()
        .declare(
            Declaration::new("web", HttpServer::new(format!("http://127.0.0.1:{port}/mcp")))
                .connect(ConnectMode::Startup),
        )
        .declare(Declaration::new("other", py("other")).connect(ConnectMode::Startup));
    let backoff = Backoff::new(Duration::from_millis(250), Duration::from_secs(1), 12);
    let options =
        HubOptions::new(&dir).gate(allow_all()).check_every(Duration::from_millis(100)).backoff(backoff);
    let hub = Hub::start(declared, options).await.unwrap();
    assert_eq!(hub.health("web").unwrap(), Health::Ready);
    let before = text(&hub.call("web__whoami", json!({}), HubCall::new()).await.unwrap());
    let mut events = hub.events();
    let mut health = hub.watch("web").unwrap();

    // Down: the next call finds it gone (nothing ran), and healing starts.
    drop(server);
    let down = Instant::now();
    let e = err(hub.call("web__whoami", json!({}), HubCall::new()).await);
    assert_eq!(e.code.as_str(), "MCP_NETWORK_ERROR");
    assert!(e.to_string().starts_with("tool 'web__whoami' is unavailable: server 'web' "), "{e}");
    wait_for(&mut health, Duration::from_secs(5), |h| matches!(h, Health::Degraded { .. })).await;
    let e = err(hub.call("web__whoami", json!({}), HubCall::new()).await);
    assert!(e.to_string().ends_with("and is being reconnected"), "{e}");
    assert!(text(&hub.call("other__whoami", json!({}), HubCall::new()).await.unwrap()).contains("other "));

    // Back after about two seconds: reconnected within the backoff's bound.
    tokio::time::sleep(Duration::from_secs(2).saturating_sub(down.elapsed())).await;
    let _server = python_http("web", port);
    let back = Instant::now();
    wait_for(&mut health, Duration::from_secs(5), |h| *h == Health::Ready).await;
    // At most the largest delay (1 s + 20 %) and one handshake after it is back (with
    // room for a loaded machine).
    assert!(back.elapsed() < Duration::from_secs(4), "{:?}", back.elapsed());
    let after = text(&hub.call("web__whoami", json!({}), HubCall::new()).await.unwrap());
    assert_ne!(before, after, "a new server process answers");
    let labels = labels(&drain(&mut events));
    assert_eq!(labels[0], "call-failed web web__whoami MCP_NETWORK_ERROR");
    assert_eq!(labels[1], "disconnected web");
    assert_eq!(labels[2], "reconnecting web 1");
    let tail: Vec<&str> =
        labels.iter().map(String::as_str).filter(|l| !l.starts_with("reconnecting")).collect();
    assert_eq!(
        tail,
        [
            "call-failed web web__whoami MCP_NETWORK_ERROR",
            "disconnected web",
            "call-failed web web__whoami MCP_NETWORK_ERROR",
            "called other other__whoami",
            "connected web",
            "called web web__whoami",
        ]
    );
    let attempts = labels.iter().filter(|l| l.starts_with("reconnecting")).count();
    assert!((2..=12).contains(&attempts), "{labels:?}");
    hub.close_all().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn collisions_are_withheld_with_the_reason_or_renamed_when_asked() {
    let dir = project("collide");
    let declared = || {
        ServerDeclarations::new()
            .declare(Declaration::new("a", py("a")).prefix(""))
            .declare(Declaration::new("b", py("b")).prefix(""))
    };
    let hub =
        Hub::start(declared(), HubOptions::new(&dir).gate(allow_all()).reserved(["boom"])).await.unwrap();
    let view = hub.tools().await;
    assert_eq!(view.names(), ["whoami", "echo_meta", "slow"]);
    let mut withheld: Vec<&str> = view.withheld.iter().map(|w| w.reason.as_str()).collect();
    withheld.sort_unstable();
    assert_eq!(
        withheld,
        [
            "tool 'boom' of server 'a' is withheld: a local tool has that name",
            "tool 'boom' of server 'b' is withheld: a local tool has that name",
            "tool 'echo_meta' of server 'b' is withheld: server 'a' already serves a tool of that name",
            "tool 'slow' of server 'b' is withheld: server 'a' already serves a tool of that name",
            "tool 'whoami' of server 'b' is withheld: server 'a' already serves a tool of that name",
        ]
    );
    assert!(text(&hub.call("whoami", json!({}), HubCall::new()).await.unwrap()).contains("a "));
    hub.close_all().await;

    let options = HubOptions::new(&dir).gate(allow_all()).reserved(["boom"]).collisions(Collisions::Rename);
    let hub = Hub::start(declared(), options).await.unwrap();
    let view = hub.tools().await;
    let mut renamed: Vec<String> = view.tools.iter().map(|t| format!("{} {}", t.server, t.name)).collect();
    renamed.sort();
    assert_eq!(
        renamed,
        [
            "a boom_2",
            "a echo_meta",
            "a slow",
            "a whoami",
            "b boom_3",
            "b echo_meta_2",
            "b slow_2",
            "b whoami_2"
        ]
    );
    assert!(view.withheld.is_empty());
    assert!(text(&hub.call("whoami_2", json!({}), HubCall::new()).await.unwrap()).contains("b "));
    assert!(text(&hub.call("whoami", json!({}), HubCall::new()).await.unwrap()).contains("a "));
    // A server that is gone keeps its names: `whoami` does not fall through to b's.
    hub.close("a").await.unwrap();
    let e = err(hub.call("whoami", json!({}), HubCall::new()).await);
    assert_eq!(e.to_string(), "tool 'whoami' is unavailable: server 'a' is closed");
    assert!(text(&hub.call("whoami_2", json!({}), HubCall::new()).await.unwrap()).contains("b "));
    let view = hub.tools().await;
    assert_eq!(view.names(), ["whoami_2", "echo_meta_2", "boom_3", "slow_2"]);
    assert_eq!(view.unavailable, [("a".to_owned(), "server 'a' is closed".to_owned())]);
    hub.close_all().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn no_gate_denies_every_call() {
    let dir = project("nogate");
    let declared = ServerDeclarations::new().declare(Declaration::new("py", py("py")));
    let hub = Hub::start(declared, HubOptions::new(&dir)).await.unwrap();
    let e = err(hub.call("py__whoami", json!({}), HubCall::new()).await);
    assert_eq!(
        (e.code.as_str(), e.to_string().as_str()),
        (
            "MCP_PERMISSION_DENIED",
            "tool 'py__whoami' of server 'py' was denied: no gate is set (fail closed)"
        )
    );
    // A gate that panics denies too.
    hub.close_all().await;
    let declared = ServerDeclarations::new().declare(Declaration::new("py", py("py")));
    let gate =
        std::sync::Arc::new(|_: &toolwire::client::hub::GateRequest<'_>| -> Verdict { panic!("no rule") });
    let hub = Hub::start(declared, HubOptions::new(&dir).gate(gate)).await.unwrap();
    let e = err(hub.call("py__whoami", json!({}), HubCall::new()).await);
    assert_eq!(e.to_string(), "tool 'py__whoami' of server 'py' was denied: the gate panicked (fail closed)");
    hub.close_all().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_uvx_server_gets_a_cache_under_the_project_unless_it_sets_one() {
    let dir = project("uv");
    // A `uvx` that records the cache it was given, then runs the Python server.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let uvx = bin.join("uvx");
    std::fs::write(
        &uvx,
        format!(
            "#!/bin/sh\necho \"$UV_CACHE_DIR\" >> \"$CACHE_LOG\"\nexec {} {} \"$1\"\n",
            peer("TOOLWIRE_PY_MCP2"),
            fixture("client_hub.py")
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&uvx).status().unwrap();
    let log = dir.join("cache.log");
    let server = |name: &str| StdioServer::new(&uvx).arg(name).env("CACHE_LOG", log.display().to_string());
    let declared = ServerDeclarations::new()
        .declare(Declaration::new("mine", server("mine")))
        .declare(Declaration::new("theirs", server("theirs").env("UV_CACHE_DIR", "/srv/uv-cache")));
    let hub = Hub::start(declared, HubOptions::new(&dir).gate(allow_all())).await.unwrap();
    hub.call("mine__whoami", json!({}), HubCall::new()).await.unwrap();
    hub.call("theirs__whoami", json!({}), HubCall::new()).await.unwrap();
    assert_eq!(lines(&log), [dir.join(".uv_cache").display().to_string(), "/srv/uv-cache".to_owned()]);
    hub.close_all().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn declaration_errors_name_the_places() {
    let dir = project("decl");
    let file = dir.join(".mcp.json");
    std::fs::write(&file, r#"{"mcpServers": {"docs": {"command": "a"}, "time": {"command": "b"}, "docs": {"url": "http://127.0.0.1:9/mcp"}}}"#).unwrap();
    let e = Hub::start(ServerDeclarations::new().file(&file), HubOptions::new(&dir)).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("server 'docs' is declared twice: in {0} (entry 1) and in {0} (entry 3)", file.display())
    );
    // from_environment reads the first config file of the project.
    std::fs::write(&file, r#"{"mcpServers": {"docs": {"command": "a", "connect": "disabled"}}}"#).unwrap();
    let hub = Hub::start(ServerDeclarations::from_environment(&dir), HubOptions::new(&dir)).await.unwrap();
    if std::env::var("MCP_SERVERS").is_err() {
        assert_eq!(hub.health("docs").unwrap(), Health::Disabled);
        assert_eq!(hub.declaration("docs").unwrap().origin, Origin::File(file.clone(), 1));
        assert_eq!(
            hub.declaration("time").unwrap_err().to_string(),
            "no server 'time' is declared; the declared servers are: docs"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn start_up_events_are_seen_and_a_pinged_http_server_is_healed_before_any_call() {
    let dir = project("ping");
    let port = free_port();
    let server = python_http("pinged", port);
    let declared = ServerDeclarations::new()
        .declare(
            Declaration::new("pinged", HttpServer::new(format!("http://127.0.0.1:{port}/mcp")))
                .connect(ConnectMode::Startup),
        )
        .declare(
            Declaration::new("ghost", StdioServer::new("/nonexistent/ghost")).connect(ConnectMode::Startup),
        );
    let options = HubOptions::new(&dir)
        .gate(allow_all())
        .check_every(Duration::from_millis(100))
        .ping_every(Duration::from_millis(200))
        .backoff(Backoff::new(Duration::from_millis(200), Duration::from_millis(500), 20));
    // new() connects nothing, so the start-up connections' events can be followed.
    let hub = Hub::new(declared, options).unwrap();
    let mut events = hub.events();
    assert_eq!((hub.health("pinged").unwrap(), hub.health("ghost").unwrap()), (Health::Idle, Health::Idle));
    let failed = hub.connect_startup().await;
    assert_eq!(
        failed,
        [(
            "ghost".to_owned(),
            "server 'ghost' could not be started: `/nonexistent/ghost`: No such file or directory (os error 2)"
                .to_owned()
        )]
    );
    let mut seen = labels(&drain(&mut events));
    seen.sort();
    assert_eq!(seen, ["connected pinged", "connecting ghost", "connecting pinged", "failed ghost"]);
    assert_eq!(hub.health("pinged").unwrap(), Health::Ready);

    // Down with no call made: the periodic ping notices.
    let mut health = hub.watch("pinged").unwrap();
    drop(server);
    wait_for(&mut health, Duration::from_secs(5), |h| matches!(h, Health::Degraded { .. })).await;
    let _server = python_http("pinged", port);
    wait_for(&mut health, Duration::from_secs(8), |h| *h == Health::Ready).await;
    assert!(text(&hub.call("pinged__whoami", json!({}), HubCall::new()).await.unwrap()).contains("pinged "));
    let seen = labels(&drain(&mut events));
    assert_eq!(seen[0], "disconnected pinged", "{seen:?}");
    assert_eq!(seen[seen.len() - 2..], ["connected pinged", "called pinged pinged__whoami"]);
    hub.close_all().await;
    let _ = std::fs::remove_dir_all(&dir);
}
