//! toolwire's client against a peer's task server: rmcp 3.11 (the official Rust SDK) serving
//! the tasks extension (SEP-2663, 2026-07-28) with its `TaskManager`, in its own process on a
//! loopback socket (`rmcp-task-server`, tests/src/bin). toolwire's client starts calls that
//! rmcp answers with a task, polls them to their end through `call_tool`, an adopted tool and
//! `get_task`, reads a failed task as the error a model reads, and cancels with `tasks/cancel`
//! (a call's cancellation, and `cancel_task` by id): the server's stderr shows it saw each.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwire::client::{AdoptOptions, CallOptions, Client, ClientOptions, Direction, EraMode, HttpServer};
use toolwire::protocol::wire::TaskStatus;
use toolwire::{Content, Context, Tool, ToolError};

/// The rmcp task server, running; killed when dropped.
struct RmcpServer {
    child: Child,
    /// Held open: the server serves until its stdin closes.
    _stdin: ChildStdin,
    url: String,
    /// Every line it wrote to stderr so far.
    stderr: Arc<Mutex<Vec<String>>>,
}

impl RmcpServer {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rmcp-task-server"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn rmcp-task-server");
        let stdin = child.stdin.take().unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut url).unwrap();
        let url = url.trim().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&stderr);
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        RmcpServer { child, _stdin: stdin, url, stderr }
    }

    /// Wait (up to 5 s) until the server wrote `line` to stderr.
    fn saw(&self, line: &str) {
        let start = Instant::now();
        while !self.stderr.lock().unwrap().iter().any(|l| l.strip_prefix("rmcp-task-server: ") == Some(line))
        {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the server never wrote {line:?}; it wrote {:?}",
                self.stderr.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for RmcpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A 2026-07-28 client, the tasks extension declared or not, noting each task id it is handed.
async fn client(url: &str, tasks: bool, ids: &Arc<Mutex<Vec<String>>>) -> Client {
    client_counting(url, tasks, ids, Arc::default()).await
}

/// [`client`], counting in `polls` the `tasks/get` requests it sends.
async fn client_counting(
    url: &str,
    tasks: bool,
    ids: &Arc<Mutex<Vec<String>>>,
    polls: Arc<std::sync::atomic::AtomicUsize>,
) -> Client {
    let seen = Arc::clone(ids);
    let options =
        ClientOptions::new("rmcp").era(EraMode::Modern).tasks(tasks).on_message(move |direction, text| {
            if direction == Direction::Sent && text.contains(r#""method":"tasks/get""#) {
                polls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            if direction == Direction::Received
                && text.contains(r#""resultType":"task""#)
                && let Ok(v) = serde_json::from_str::<Value>(text)
                && let Some(id) = v["result"]["taskId"].as_str()
            {
                seen.lock().unwrap().push(id.to_owned());
            }
        });
    Client::connect(HttpServer::new(url), options).await.unwrap()
}

/// The `n`th task id the client was handed, waiting up to 5 s for it.
async fn nth_id(ids: &Arc<Mutex<Vec<String>>>, n: usize) -> String {
    let start = Instant::now();
    loop {
        if let Some(id) = ids.lock().unwrap().get(n) {
            return id.clone();
        }
        assert!(start.elapsed() < Duration::from_secs(5), "no task id #{n}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_slow_tools_result_is_polled_from_rmcps_task() {
    let server = RmcpServer::start();
    let ids = Arc::new(Mutex::new(Vec::new()));
    let polls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let client = client_counting(&server.url, true, &ids, Arc::clone(&polls)).await;

    let start = Instant::now();
    let out = client.call_tool("slow", json!({"seconds": 1.0}), CallOptions::new()).await.unwrap();
    assert_eq!(out.content, vec![Content::text("slow done after 1s")]);
    assert!(start.elapsed() >= Duration::from_secs(1), "it waited for the task: {:?}", start.elapsed());
    // At rmcp's suggested 100 ms (not the client's own 500 ms default): about ten polls.
    let polled = polls.load(std::sync::atomic::Ordering::SeqCst);
    assert!((6..=20).contains(&polled), "{polled} polls in {:?}", start.elapsed());
    let id = nth_id(&ids, 0).await;
    server.saw(&format!("task {id} started for slow"));
    // Read back by id: rmcp keeps the ended task with its result.
    let task = client.get_task(&id).await.unwrap();
    assert_eq!(task.status, TaskStatus::Completed, "{task:?}");
    let result: Value = serde_json::from_str(task.result.as_ref().expect("a result").get()).unwrap();
    assert_eq!(result["content"][0]["text"], "slow done after 1s", "{result}");
    assert_eq!(task.poll_interval_ms, Some(100));

    // An adopted tool runs as a task too.
    let adopted = client.adopt(AdoptOptions::default()).await.unwrap();
    let slow = adopted.get("slow").expect("adopted");
    let out = slow.call_json(json!({"seconds": 0.3}), &Context::builder().build()).await.unwrap();
    assert_eq!(
        out.content,
        vec![Content::text(
            "<untrusted-data source=\"mcp\" server=\"rmcp\" tool=\"rmcp__slow\">\nslow done after 0.3s\n</untrusted-data>"
        )]
    );
    let id = nth_id(&ids, 1).await;
    server.saw(&format!("task {id} started for slow"));
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_or_erring_task_reads_as_the_error_a_model_sees() {
    let server = RmcpServer::start();
    let ids = Arc::new(Mutex::new(Vec::new()));
    let client = client(&server.url, true, &ids).await;

    // `failed` with a JSON-RPC error: the tool ran and failed (never "declined": a model told
    // that would think nothing ran). The server's words stay out of the message (they are
    // untrusted): sealed in the envelope, unsealed for code in `reported()`, and in `get_task`.
    let err = client.call_tool("failing", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'failing' failed on server 'rmcp'; its report is in the untrusted-data envelope"
    );
    assert_eq!(err.reported(), Some("the disk is full"));
    let task = client.get_task(&nth_id(&ids, 0).await).await.unwrap();
    assert_eq!(task.status, TaskStatus::Failed, "{task:?}");
    let error: Value = serde_json::from_str(task.error.as_ref().expect("an error").get()).unwrap();
    assert_eq!(error, json!({"code": -32603, "message": "the disk is full"}));

    // The same through an adopted tool: what the model reads.
    let adopted = client.adopt(AdoptOptions::default()).await.unwrap();
    let failing = adopted.get("failing").expect("adopted");
    let err = failing.call_json(json!({}), &Context::builder().build()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'rmcp__failing' failed on server 'rmcp'; its report is in the untrusted-data envelope"
    );
    assert_eq!(err.reported(), Some("the disk is full"));

    // `completed` with a tool execution error: a result the model reads, flagged an error.
    let out = client.call_tool("broken", json!({}), CallOptions::new()).await.unwrap();
    assert!(out.is_error, "{out:?}");
    assert_eq!(out.content, vec![Content::text("broken: no input file")]);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancellation_reaches_rmcps_task() {
    let server = RmcpServer::start();
    let ids = Arc::new(Mutex::new(Vec::new()));
    let client = client(&server.url, true, &ids).await;

    // The call's cancellation: the client sends tasks/cancel, rmcp's task ends cancelled.
    let token = toolwire::context::CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        cancel.cancel();
    });
    let err = client.call_tool("waiter", json!({}), CallOptions::new().cancel(token)).await.unwrap_err();
    assert_eq!(err, ToolError::CancelledWhileRunning { tool: "waiter".into() });
    let id = nth_id(&ids, 0).await;
    server.saw(&format!("tasks/cancel {id}"));
    server.saw(&format!("task {id} cancelled"));
    let task = client.get_task(&id).await.unwrap();
    assert_eq!(task.status, TaskStatus::Cancelled, "{task:?}");

    // By id, while another call of the same client waits on it: that call ends cancelled.
    let waiting = client.clone();
    let call = tokio::spawn(async move { waiting.call_tool("waiter", json!({}), CallOptions::new()).await });
    let id = nth_id(&ids, 1).await;
    let task = client.get_task(&id).await.unwrap();
    assert_eq!(task.status, TaskStatus::Working, "{task:?}");
    assert_eq!((task.result.is_none(), task.error.is_none()), (true, true), "{task:?}");
    client.cancel_task(&id).await.unwrap();
    server.saw(&format!("tasks/cancel {id}"));
    server.saw(&format!("task {id} cancelled"));
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.to_string(), "the run was cancelled while 'waiter' was running");

    // A task rmcp does not know: its words.
    let unknown = client.get_task("nope").await.unwrap_err();
    assert_eq!(unknown.to_string(), "server 'rmcp' answered 'tasks/get' with error code -32602");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_without_the_extension_is_told_what_is_missing() {
    let server = RmcpServer::start();
    let ids = Arc::new(Mutex::new(Vec::new()));
    let client = client(&server.url, false, &ids).await;
    let err = client.call_tool("slow", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'slow' was declined by server 'rmcp' (code -32021): it runs only as a task, and this client does not take tasks: set `ClientOptions::tasks(true)`"
    );
    assert!(ids.lock().unwrap().is_empty());
    client.close().await;
}
