//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), the server's half, on the
//! wire of toolwire's own HTTP listener on a real loopback socket: a call that becomes a task
//! once its body waits, polled to its result; a task's input requests answered with
//! `tasks/update`; a cancellation; a panic (failed); progress as the status message; the TTL;
//! a body that finishes at once (no task); and every error a client reads, with its text.
//!
//! The client's half: toolwire's client driving tasks to their end (a result, an input
//! request, progress, a failure, a cancellation and a timeout that cancel the task).
//!
//! A real peer: the MCP Inspector 2.12.0's CLI, whose tool calls go through
//! `@modelcontextprotocol/ext-tasks` 0.2.2 (its requester sessions with 2026-07-28 framing),
//! runs toolwire's tasks: one that runs only as a task (so the Inspector declared the
//! extension and drove the task), and one that fails.
//!
//! The conformance suite's ten `tasks-*` scenarios run against the conformance example in
//! `conformance.rs`; this file covers what they do not (progress, TTL, the texts, a client).

mod peer_support;

use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwire::context::AskError;
use toolwire::http::{Auth, HttpConfig};
use toolwire::{Context, Server, ServerOptions, Tool, tool, tools};
use toolwire_tests::http::request;

/// Sleep `seconds`, then say so.
#[tool(read_only, task = "optional")]
async fn build(seconds: f64) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    format!("built in {seconds}s")
}

/// Answer at once: never waits, so never a task.
#[tool(read_only, task = "optional")]
async fn quick() -> String {
    "done at once".to_owned()
}

/// A yes or no.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Go {
    go: bool,
}

/// Prepare, then ask whether to go on (an input request of the task).
#[tool(read_only, task = "optional")]
async fn deploy(ctx: &Context) -> Result<String, AskError> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    let answer: Go = ctx.elicit_as("go", "Deploy now?").await?;
    Ok(format!("deploy: go = {}", answer.go))
}

/// Runs only as a task.
#[tool(read_only, task = "required")]
async fn migrate() -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    "migrated".to_owned()
}

/// Work a little, then panic.
#[tool(read_only, task = "optional")]
async fn boom() -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    panic!("the disk caught fire")
}

/// Report half the work done, then wait to be cancelled or to run past the TTL.
#[tool(read_only, task = "optional")]
async fn report(ctx: &Context) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    ctx.report_progress(1.0, Some(2.0), Some("halfway"));
    tokio::time::sleep(Duration::from_secs(30)).await;
    "never".to_owned()
}

/// The name of the thread this runs on.
fn thread_name() -> String {
    std::thread::current().name().unwrap_or("unnamed").to_owned()
}

/// A `local` body that may run as a task: its future holds an `Rc` across its wait, so it is
/// not `Send`, and it says where it ran.
#[tool(read_only, local, task = "optional")]
async fn local_build(ms: u64) -> String {
    let held = Rc::new(ms);
    tokio::time::sleep(Duration::from_millis(*held)).await;
    format!("built locally in {} ms on {}", *held, thread_name())
}

/// How many times a `local_quick` body ran.
static LOCAL_QUICK_RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A `local` body that never waits, so never a task; counts its runs.
#[tool(read_only, local, task = "optional")]
async fn local_quick() -> String {
    let held = Rc::new("done locally at once");
    LOCAL_QUICK_RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    (*held).to_owned()
}

/// The threads `local_wait` bodies were dropped on, in order.
static LOCAL_DROPS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Notes in [`LOCAL_DROPS`] the thread it is dropped on.
struct DropNote;

impl Drop for DropNote {
    fn drop(&mut self) {
        LOCAL_DROPS.lock().unwrap().push(thread_name());
    }
}

/// A `local` task body holding an `Rc` that waits to be cancelled; its drop is noted.
#[tool(read_only, local, task = "optional")]
async fn local_wait() -> String {
    let _note = DropNote;
    let _held = Rc::new(());
    tokio::time::sleep(Duration::from_secs(30)).await;
    "never".to_owned()
}

/// A server with the tools above on `127.0.0.1:P`, served on a runtime of its own; its address.
fn serve(options: ServerOptions) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let server = Server::builder(options)
                .tools(
                    tools![build, quick, deploy, migrate, boom, report, local_build, local_wait, local_quick]
                        .unwrap(),
                )
                .build();
            toolwire::http::serve(listener, server, HttpConfig::new(Auth::None)).await;
        });
    });
    rx.recv().unwrap()
}

fn options() -> ServerOptions {
    ServerOptions::new("tasks-test", "1.0.0")
}

/// The capabilities a request declares: with the tasks extension, or without.
fn capabilities(tasks: bool) -> Value {
    if tasks {
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({"elicitation": {}})
    }
}

/// POST one 2026-07-28 request with the headers it routes by (`Mcp-Name` as `name`, when
/// given); the status and the JSON-RPC response.
fn post(addr: SocketAddr, method: &str, mut params: Value, tasks: bool, name: Option<&str>) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities(tasks),
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut headers = toolwire_tests::http::mcp_headers(addr);
    headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    headers.push(("Mcp-Method".into(), method.into()));
    if let Some(name) = name {
        headers.push(("Mcp-Name".into(), name.into()));
    }
    let response = request(addr, "POST", "/mcp", &headers, &body);
    let value = if response.header("content-type").is_some_and(|c| c.starts_with("text/event-stream")) {
        response.sse_events().pop().expect("an answer on the stream")
    } else {
        response.json()
    };
    (response.status, value)
}

fn call(addr: SocketAddr, tool: &str, arguments: Value, tasks: bool) -> Value {
    post(addr, "tools/call", json!({"name": tool, "arguments": arguments}), tasks, Some(tool)).1
}

fn task_request(addr: SocketAddr, method: &str, id: &str, extra: Value) -> Value {
    let mut params = json!({"taskId": id});
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    post(addr, method, params, true, Some(id)).1
}

/// Poll `tasks/get` until the task's status is `status` (or terminal).
fn until(addr: SocketAddr, id: &str, status: &str) -> Value {
    let start = Instant::now();
    loop {
        let got = task_request(addr, "tasks/get", id, json!({}));
        let now = got["result"]["status"].as_str().unwrap_or("").to_owned();
        if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
            return got["result"].clone();
        }
        assert!(start.elapsed() < Duration::from_secs(10), "task {id} never reached {status}: {got}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_call_that_waits_becomes_a_task_polled_to_its_result() {
    let addr = serve(options());
    let created = call(addr, "build", json!({"seconds": 0.3}), true)["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    assert_eq!(created["ttlMs"], 3_600_000);
    assert_eq!(created["pollIntervalMs"], 500);
    for absent in ["result", "error", "inputRequests", "requestState", "task"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    let created_at = created["createdAt"].as_str().unwrap();
    assert!(
        created_at.len() == 27 && created_at.ends_with('Z') && &created_at[10..11] == "T",
        "{created_at}"
    );
    let id = created["taskId"].as_str().unwrap();
    assert!(id.len() >= 22, "an unguessable id: {id}");

    // Found at once (created before the handle went out), and still working.
    let got = task_request(addr, "tasks/get", id, json!({}))["result"].clone();
    assert_eq!((got["resultType"].as_str(), got["status"].as_str()), (Some("complete"), Some("working")));

    let done = until(addr, id, "completed");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "built in 0.3s");
    assert_eq!(done["result"]["isError"], false);
    // Cancelling a finished task acknowledges and changes nothing.
    let ack = task_request(addr, "tasks/cancel", id, json!({}))["result"].clone();
    assert_eq!(ack, json!({"_meta": ack["_meta"], "resultType": "complete"}));
    assert_eq!(until(addr, id, "completed")["status"], "completed");
}

#[test]
fn a_body_that_does_not_wait_and_a_client_without_the_extension_get_results() {
    let addr = serve(options());
    let quick = call(addr, "quick", json!({}), true)["result"].clone();
    assert_eq!(
        (quick["resultType"].as_str(), quick["content"][0]["text"].as_str()),
        (Some("complete"), Some("done at once"))
    );
    let plain = call(addr, "build", json!({"seconds": 0.05}), false)["result"].clone();
    assert_eq!(plain["resultType"], "complete", "{plain}");
    assert_eq!(plain["content"][0]["text"], "built in 0.05s");
}

#[test]
fn a_tasks_input_requests_are_answered_with_tasks_update() {
    let addr = serve(options());
    let id = call(addr, "deploy", json!({}), true)["result"]["taskId"].as_str().unwrap().to_owned();
    let asking = until(addr, &id, "input_required");
    assert_eq!(asking["status"], "input_required", "{asking}");
    assert_eq!(asking["inputRequests"]["go"]["method"], "elicitation/create");
    assert_eq!(asking["inputRequests"]["go"]["params"]["message"], "Deploy now?");

    // An answer to a key nobody asked is acknowledged and ignored.
    let stray = json!({"inputResponses": {"nope": {"action": "accept", "content": {"go": false}}}});
    assert_eq!(task_request(addr, "tasks/update", &id, stray)["result"]["resultType"], "complete");
    assert_eq!(task_request(addr, "tasks/get", &id, json!({}))["result"]["status"], "input_required");

    let answer = json!({"inputResponses": {"go": {"action": "accept", "content": {"go": true}}}});
    let ack = task_request(addr, "tasks/update", &id, answer)["result"].clone();
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("taskId").is_none() && ack.get("status").is_none(), "{ack}");
    let done = until(addr, &id, "completed");
    assert_eq!(done["result"]["content"][0]["text"], "deploy: go = true", "{done}");
    assert!(done.get("inputRequests").is_none());
}

#[test]
fn a_cancelled_task_ends_cancelled_and_a_panic_fails_it() {
    let addr = serve(options());
    let id = call(addr, "report", json!({}), true)["result"]["taskId"].as_str().unwrap().to_owned();
    // Progress reads as the status message.
    let start = Instant::now();
    let message = loop {
        let got = task_request(addr, "tasks/get", &id, json!({}))["result"].clone();
        if let Some(m) = got["statusMessage"].as_str() {
            break m.to_owned();
        }
        assert!(start.elapsed() < Duration::from_secs(5), "no progress: {got}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(message, "1/2: halfway");
    assert_eq!(task_request(addr, "tasks/cancel", &id, json!({}))["result"]["resultType"], "complete");
    let cancelled = until(addr, &id, "cancelled");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["statusMessage"], "cancelled by the client (tasks/cancel)");

    let id = call(addr, "boom", json!({}), true)["result"]["taskId"].as_str().unwrap().to_owned();
    let failed = until(addr, &id, "failed");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(failed["error"]["message"], "internal error: tool 'boom' panicked: the disk caught fire");
    assert!(failed.get("result").is_none());
}

/// `task` and `local` on one tool: the call becomes a task once its body waits on its local
/// thread, its `!Send` body runs to the end there, and its result is read through
/// `tasks/get`; a body that never waits is an ordinary call, run once; a cancelled task ends
/// `cancelled`, its body dropped on its local thread (as the call's first attempt was, when
/// the call became a task).
#[test]
fn a_local_body_runs_as_a_task_and_a_cancelled_one_is_dropped_on_its_thread() {
    let addr = serve(options());
    let created = call(addr, "local_build", json!({"ms": 200}), true)["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    let done = until(addr, created["taskId"].as_str().unwrap(), "completed");
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("built locally in 200 ms on toolwire-local-"), "{done}");

    // A `local` body that never waits is answered with its result, not made a task (its
    // call waits for its first poll on its thread), and it ran once.
    let quick = call(addr, "local_quick", json!({}), true)["result"].clone();
    assert_eq!(
        (quick["resultType"].as_str(), quick["content"][0]["text"].as_str()),
        (Some("complete"), Some("done locally at once")),
        "{quick}"
    );
    assert_eq!(LOCAL_QUICK_RUNS.load(std::sync::atomic::Ordering::SeqCst), 1, "it ran once");

    let created = call(addr, "local_wait", json!({}), true)["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap();
    // The call's first attempt, stopped when it became a task, was dropped on its thread.
    let start = Instant::now();
    while LOCAL_DROPS.lock().unwrap().is_empty() {
        assert!(start.elapsed() < Duration::from_secs(5), "the first attempt was never dropped");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(LOCAL_DROPS.lock().unwrap().len(), 1, "the task's body runs on");
    assert_eq!(until(addr, id, "working")["status"], "working");
    assert_eq!(task_request(addr, "tasks/cancel", id, json!({}))["result"]["resultType"], "complete");
    let cancelled = until(addr, id, "cancelled");
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["statusMessage"], "cancelled by the client (tasks/cancel)");
    let start = Instant::now();
    while LOCAL_DROPS.lock().unwrap().len() < 2 {
        assert!(start.elapsed() < Duration::from_secs(5), "the cancelled task's body was never dropped");
        std::thread::sleep(Duration::from_millis(10));
    }
    let drops = LOCAL_DROPS.lock().unwrap().clone();
    assert!(drops.iter().all(|t| t.starts_with("toolwire-local-")), "dropped on {drops:?}");
}

/// `max_tasks`: with its one place taken by a running task, a call of a tool that runs only
/// as a task is refused saying why, and one of a tool that may run as a task runs as an
/// ordinary call; once the task ends, its place is free again.
#[test]
fn past_max_tasks_a_task_only_tool_is_refused_and_another_runs_as_a_call() {
    let addr = serve(options().max_tasks(1));
    let running = call(addr, "report", json!({}), true)["result"].clone();
    assert_eq!(running["resultType"], "task", "{running}");
    let id = running["taskId"].as_str().unwrap().to_owned();

    let refused = call(addr, "migrate", json!({}), true)["error"].clone();
    assert_eq!(refused["code"], -32032, "{refused}");
    assert_eq!(
        refused["message"],
        "tool 'migrate' runs only as a task, and this server runs 1 task already, the most it runs at once; try again when one has ended"
    );
    let ordinary = call(addr, "build", json!({"seconds": 0.2}), true)["result"].clone();
    assert_eq!(
        (ordinary["resultType"].as_str(), ordinary["content"][0]["text"].as_str()),
        (Some("complete"), Some("built in 0.2s")),
        "{ordinary}"
    );

    assert_eq!(task_request(addr, "tasks/cancel", &id, json!({}))["result"]["resultType"], "complete");
    assert_eq!(until(addr, &id, "cancelled")["status"], "cancelled");
    // The place is given back when the task's driver ends, just after the record says so.
    let start = Instant::now();
    let migrating = loop {
        let answer = call(addr, "migrate", json!({}), true);
        if answer["error"]["code"] != -32032 {
            break answer["result"].clone();
        }
        assert!(start.elapsed() < Duration::from_secs(5), "the place was never given back: {answer}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(migrating["resultType"], "task", "{migrating}");
    let done = until(addr, migrating["taskId"].as_str().unwrap(), "completed");
    assert_eq!(done["result"]["content"][0]["text"], "migrated", "{done}");
}

#[test]
fn a_task_past_its_ttl_fails_saying_so() {
    let addr =
        serve(options().task_ttl(Duration::from_secs(1)).task_poll_interval(Duration::from_millis(50)));
    let created = call(addr, "report", json!({}), true)["result"].clone();
    assert_eq!((created["ttlMs"].as_u64(), created["pollIntervalMs"].as_u64()), (Some(1000), Some(50)));
    let id = created["taskId"].as_str().unwrap();
    let failed = until(addr, id, "failed");
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(
        failed["statusMessage"],
        "internal error: the task did not finish within its TTL of 1s and was stopped"
    );
}

#[test]
fn every_refusal_says_what_was_wrong() {
    let addr = serve(options());
    let refused = call(addr, "migrate", json!({}), false)["error"].clone();
    assert_eq!(refused["code"], -32021, "{refused}");
    assert_eq!(
        refused["message"],
        "tool 'migrate' runs only as a task, so it needs the tasks extension (io.modelcontextprotocol/tasks), which this request did not declare (a 2026-07-28 request declares it under `extensions` in its `_meta` client capabilities)"
    );
    assert_eq!(
        refused["data"],
        json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
    );

    let undeclared = post(addr, "tasks/get", json!({"taskId": "t"}), false, Some("t")).1["error"].clone();
    assert_eq!(undeclared["code"], -32021);
    assert_eq!(
        undeclared["message"],
        "`tasks/get` needs the tasks extension (io.modelcontextprotocol/tasks), which this request did not declare (a 2026-07-28 request declares it under `extensions` in its `_meta` client capabilities)"
    );

    let unknown = task_request(addr, "tasks/get", "nope", json!({}))["error"].clone();
    assert_eq!(unknown["code"], -32602);
    assert_eq!(unknown["message"], "task not found: 'nope' (it never existed, or expired)");
    assert_eq!(task_request(addr, "tasks/cancel", "nope", json!({}))["error"]["code"], -32602);

    let bad = task_request(addr, "tasks/update", "nope", json!({"inputResponses": [1]}))["error"].clone();
    assert_eq!(bad["code"], -32602);
    assert_eq!(
        bad["message"],
        "invalid params: inputResponses must be an object of the client's results by key, got an array"
    );

    let (status, mismatch) = post(addr, "tasks/get", json!({"taskId": "a"}), true, Some("b"));
    assert_eq!(status, 400);
    assert_eq!(mismatch["error"]["code"], -32020);
    assert_eq!(mismatch["error"]["message"], "header mismatch: Mcp-Name is 'b' but the body names 'a'");

    for removed in ["tasks/result", "tasks/list"] {
        let (_, answer) = post(addr, removed, json!({"taskId": "x"}), true, None);
        assert_eq!(answer["error"]["code"], -32601, "{removed}: {answer}");
    }
}

// ─── The client's half: toolwire's client driving tasks to their end ───

/// Report two steps as progress, working between them, then finish.
#[tool(read_only, task = "optional")]
async fn steps(ctx: &Context) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    ctx.report_progress(1.0, Some(2.0), Some("copying"));
    tokio::time::sleep(Duration::from_millis(150)).await;
    ctx.report_progress(2.0, Some(2.0), Some("checking"));
    tokio::time::sleep(Duration::from_millis(150)).await;
    "two steps done".to_owned()
}

/// A server with the client tests' tools on its own runtime; its MCP URL.
fn serve_for_client() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let options = options().task_poll_interval(Duration::from_millis(30));
            let server = Server::builder(options)
                .tools(tools![build, deploy, steps, report, boom, migrate].unwrap())
                .build();
            toolwire::http::serve(listener, server, HttpConfig::new(Auth::None)).await;
        });
    });
    format!("http://{}/mcp", rx.recv().unwrap())
}

/// A modern client that takes tasks, answers `go` with yes, and notes every task id it is
/// handed.
async fn task_client(
    url: &str,
    ids: &std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) -> toolwire::client::Client {
    use toolwire::client::{ClientOptions, Direction, Elicited, EraMode, HttpServer};
    let seen = std::sync::Arc::clone(ids);
    let options = ClientOptions::new("tasks")
        .era(EraMode::Modern)
        .tasks(true)
        .on_elicit(|_| async {
            let mut content = serde_json::Map::new();
            content.insert("go".into(), true.into());
            Ok(Elicited::accept(content))
        })
        .on_message(move |direction, text| {
            if direction == Direction::Received
                && text.contains(r#""resultType":"task""#)
                && let Ok(v) = serde_json::from_str::<Value>(text)
                && let Some(id) = v["result"]["taskId"].as_str()
            {
                seen.lock().unwrap().push(id.to_owned());
            }
        });
    toolwire::client::Client::connect(HttpServer::new(url), options).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_client_drives_a_task_to_its_result_answering_its_input_and_reporting_progress() {
    use toolwire::client::{AdoptOptions, CallOptions};
    let url = serve_for_client();
    let ids = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let client = task_client(&url, &ids).await;

    let built = client.call_tool("build", json!({"seconds": 0.2}), CallOptions::new()).await.unwrap();
    assert_eq!(built.content, vec![toolwire::Content::text("built in 0.2s")]);
    assert_eq!(ids.lock().unwrap().len(), 1, "it ran as a task");

    // Its input request answered through the elicitation handler, with tasks/update.
    let deployed = client.call_tool("deploy", json!({}), CallOptions::new()).await.unwrap();
    assert_eq!(deployed.content, vec![toolwire::Content::text("deploy: go = true")]);

    // An adopted tool runs as a task too, its status messages as progress.
    let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&reports);
    let progress = std::sync::Arc::new(move |p: toolwire::context::Progress| {
        sink.lock().unwrap().push((p.progress, p.message.unwrap_or_default()));
    });
    let adopted = client.adopt(AdoptOptions::default()).await.unwrap();
    let steps = adopted.get("steps").expect("adopted");
    let ctx = Context::builder().progress(progress).build();
    let out = steps.call_json(json!({}), &ctx).await.unwrap();
    // Adopted: the server's words come sealed in the untrusted-data envelope.
    assert_eq!(
        out.content,
        vec![toolwire::Content::text(
            "<untrusted-data source=\"mcp\" server=\"tasks\" tool=\"tasks__steps\">\ntwo steps done\n</untrusted-data>"
        )]
    );
    let reports = reports.lock().unwrap().clone();
    assert!(reports.contains(&(1.0, "1/2: copying".to_owned())), "{reports:?}");
    assert!(reports.iter().any(|(_, m)| m == "2/2: checking"), "{reports:?}");
    assert_eq!(ids.lock().unwrap().len(), 3);

    // A typed handle runs as a task too.
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct BuildArgs {
        seconds: f64,
    }
    let typed = client.typed::<BuildArgs, String>("build").await.unwrap();
    assert_eq!(typed.call(&BuildArgs { seconds: 0.1 }).await.unwrap(), "built in 0.1s");
    assert_eq!(ids.lock().unwrap().len(), 4, "the typed call ran as a task");

    // A panic fails the task: the tool ran and failed (not "declined", which says nothing ran).
    let failed = client.call_tool("boom", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        failed.to_string(),
        "tool 'boom' failed on server 'tasks'; its report is in the untrusted-data envelope"
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_or_timed_out_call_cancels_its_task_on_the_server() {
    use toolwire::client::CallOptions;
    let url = serve_for_client();
    let ids = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let client = task_client(&url, &ids).await;

    let token = toolwire::context::CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let err = client.call_tool("report", json!({}), CallOptions::new().cancel(token)).await.unwrap_err();
    assert_eq!(err, toolwire::ToolError::CancelledWhileRunning { tool: "report".into() });
    let id = ids.lock().unwrap()[0].clone();
    let task = client.get_task(&id).await.unwrap();
    assert_eq!(task.status, toolwire::protocol::wire::TaskStatus::Cancelled, "{task:?}");

    let err = client
        .call_tool("report", json!({}), CallOptions::new().timeout(Duration::from_millis(300)))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'report' on server 'tasks' did not answer within 0.3s; it may have run"
    );
    let id = ids.lock().unwrap()[1].clone();
    let start = Instant::now();
    loop {
        let task = client.get_task(&id).await.unwrap();
        if task.status == toolwire::protocol::wire::TaskStatus::Cancelled {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "{task:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A task asked for by id that does not exist: the server's words.
    let unknown = client.get_task("nope").await.unwrap_err();
    assert_eq!(unknown.to_string(), "server 'tasks' answered 'tasks/get' with error code -32602");
    client.close().await;
}

/// A tool that runs only as a task, called by a client that does not take tasks: the error
/// says what to set (`ClientOptions::tasks(true)`), for a call, an adopted tool and
/// `get_task`; on a legacy connection that takes tasks, that it needs a 2026-07-28 one.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_does_not_take_tasks_is_told_what_to_set() {
    use toolwire::client::{AdoptOptions, CallOptions, Client, ClientOptions, EraMode, HttpServer};
    let url = serve_for_client();
    let options = ClientOptions::new("tasks").era(EraMode::Modern);
    let client = Client::connect(HttpServer::new(&url), options).await.unwrap();
    let err = client.call_tool("migrate", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'migrate' was declined by server 'tasks' (code -32021): it runs only as a task, and this client does not take tasks: set `ClientOptions::tasks(true)`"
    );
    assert!(!err.is_retryable());
    let adopted = client.adopt(AdoptOptions::default()).await.unwrap();
    let err =
        adopted.get("migrate").expect("adopted").call_json(json!({}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'tasks__migrate' was declined by server 'tasks' (code -32021): it runs only as a task, and this client does not take tasks: set `ClientOptions::tasks(true)`"
    );
    let err = client.get_task("t").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "server 'tasks' declined 'tasks/get' (code -32021): it needs the tasks extension, and this client does not take tasks: set `ClientOptions::tasks(true)`"
    );
    client.close().await;

    let options = ClientOptions::new("tasks").era(EraMode::Legacy).tasks(true);
    let legacy = Client::connect(HttpServer::new(&url), options).await.unwrap();
    let err = legacy.call_tool("migrate", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'migrate' was declined by server 'tasks' (code -32021): it runs only as a task, and this client declares tasks only on a 2026-07-28 connection, which this one is not: connect with `EraMode::Modern`"
    );
    legacy.close().await;
}

// ─── A real peer: the Inspector's ext-tasks requester ───

/// The Inspector CLI (2.12.0, `@modelcontextprotocol/ext-tasks` 0.2.2 inside) calling `tool`
/// on `addr` in the 2026-07-28 era; (exit code, stdout, stderr).
fn inspector_call(addr: SocketAddr, tool: &str) -> (i32, String, String) {
    let home = peer_support::TempDir::new("inspector-tasks");
    let mut command = peer_support::peer_command("TOOLWIRE_INSPECTOR");
    command
        .args(["--cli", &format!("http://{addr}/mcp"), "--transport", "http", "--protocol-era", "modern"])
        .args(["--format", "json", "-q", "--connect-timeout", "20000"])
        .args(["--method", "tools/call", "--tool-name", tool])
        .env("HOME", &home.0)
        .env("MCP_CATALOG_PATH", home.0.join("mcp.json"));
    let out = peer_support::run_bounded(command, Duration::from_secs(90));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_inspectors_ext_tasks_requester_runs_toolwire_tasks() {
    let addr = serve(options().task_poll_interval(Duration::from_millis(50)));
    // `migrate` runs only as a task: a result means the Inspector declared the extension,
    // took the task and polled it to its end.
    let (code, out, err) = inspector_call(addr, "migrate");
    assert_eq!(code, 0, "{out}\n{err}");
    let out: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(out["result"]["content"], json!([{"type": "text", "text": "migrated"}]), "{out}");
    // A task that fails reaches it as the task's JSON-RPC error.
    let (code, out, err) = inspector_call(addr, "boom");
    assert_eq!(code, 1, "{out}\n{err}");
    let err: Value = serde_json::from_str(err.trim()).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(
        err["error"]["message"], "internal error: tool 'boom' panicked: the disk caught fire",
        "{err}"
    );
}

// ─── Status notifications on `subscriptions/listen` ───

#[test]
fn a_listen_stream_carries_a_tasks_status_notifications() {
    use std::io::Read;
    let addr = serve(options().task_poll_interval(Duration::from_millis(50)));
    let id = call(addr, "deploy", json!({}), true)["result"]["taskId"].as_str().unwrap().to_owned();

    let listen = || {
        let mut params = json!({"notifications": {"taskIds": [id]}});
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities(true),
        });
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": params});
        let mut headers = toolwire_tests::http::mcp_headers(addr);
        headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
        headers.push(("Mcp-Method".into(), "subscriptions/listen".into()));
        toolwire_tests::http::open(addr, "POST", "/mcp", &headers, &body.to_string())
    };
    // Read the stream's events until `enough` (10 s at most).
    let read = |stream: &mut std::net::TcpStream, enough: &dyn Fn(&[Value]) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(10);
        let (mut raw, mut buf) = (Vec::new(), [0u8; 4096]);
        loop {
            let events: Vec<Value> = toolwire_tests::http::sse_events_in(&raw)
                .into_iter()
                .map(|(_, data)| serde_json::from_str(&data).unwrap())
                .collect();
            let left = deadline.saturating_duration_since(Instant::now());
            if enough(&events) || left.is_zero() {
                return events;
            }
            stream.set_read_timeout(Some(left)).unwrap();
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => return events,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
            }
        }
    };

    let mut stream = listen();
    let asking = read(&mut stream, &|e| e.iter().any(|m| m["params"]["status"] == "input_required"));
    assert_eq!(asking[0]["method"], "notifications/subscriptions/acknowledged", "{asking:?}");
    assert_eq!(asking[0]["params"]["notifications"]["taskIds"], json!([id]));
    let note = asking.iter().find(|m| m["method"] == "notifications/tasks").expect("a task notification");
    assert_eq!(
        (note["params"]["taskId"].as_str(), note["params"]["status"].as_str()),
        (Some(id.as_str()), Some("input_required"))
    );
    assert_eq!(note["params"]["inputRequests"]["go"]["method"], "elicitation/create", "{note}");

    let answer = json!({"inputResponses": {"go": {"action": "accept", "content": {"go": false}}}});
    task_request(addr, "tasks/update", &id, answer);
    let done = read(&mut stream, &|e| e.iter().any(|m| m["params"]["status"] == "completed"));
    let last = done.iter().rfind(|m| m["method"] == "notifications/tasks").unwrap();
    assert_eq!(last["params"]["status"], "completed", "{done:?}");
    assert_eq!(last["params"]["result"]["content"][0]["text"], "deploy: go = false");

    // Without the extension declared: refused, saying what is missing.
    let params = json!({"notifications": {"taskIds": [id]}});
    let error = post(addr, "subscriptions/listen", params, false, None).1["error"].clone();
    assert_eq!(error["code"], -32021, "{error}");
    assert_eq!(
        error["message"],
        "`subscriptions/listen` for task notifications needs the tasks extension (io.modelcontextprotocol/tasks), which this request did not declare (a 2026-07-28 request declares it under `extensions` in its `_meta` client capabilities)"
    );
}
