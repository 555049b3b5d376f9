//! The client's transport seam (`toolwire::client::Transport`): a transport written here, over
//! a real child process (the Python SDK 2.3.0 `MCPServer` fixture), that records every
//! message both ways; one that cannot start; one whose server vanishes; `Lines` over a
//! child's pipes; and `InProcess`, a client connected to a `toolwire::Server` value in this
//! process through the whole protocol in both eras (handshake, lists, calls, progress, logs,
//! elicitation, sampling, roots, and on 2026-07-28 the `input_required` rounds); and
//! `ClientOptions::on_message` seeing every message of the built-in stdio transport. Needs the
//! peers: `bash tests/peers/setup.sh`.

mod client_support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use client_support::{assert_gone, fixture, peer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;
use toolwire::client::Progress; // a client-only program imports from `client` alone
use toolwire::client::{
    AdoptOptions, CallOptions, CallResult, Client, ClientError, ClientOptions, CloseFuture,
    CreateMessageResult, Direction, Elicited, EraMode, InProcess, Incoming, Lines, Link, LogMessage,
    Outgoing, Root, StartFuture, Transport,
};
use toolwire::tool::Content;
use toolwire::{Context, Server, ServerOptions, Tool, tool, tools};

/// The text blocks of a result, joined with newlines.
fn text(r: &CallResult) -> String {
    let parts: Vec<&str> = r
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    parts.join("\n")
}

/// Every message, in the order it crossed: `> ` what the client sent, `< ` what it received.
type Log = Arc<Mutex<Vec<String>>>;

/// A transport of the test's own: a child process spoken to one message per line, every
/// message recorded.
struct Recorder {
    program: String,
    args: Vec<String>,
    log: Log,
}

/// The running recorder: the child, and a way to close its stdin.
struct Recording {
    child: tokio::process::Child,
    close_stdin: Option<oneshot::Sender<()>>,
}

impl Transport for Recorder {
    fn start(self: Box<Self>, mut outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        Box::pin(async move {
            let mut child = tokio::process::Command::new(&self.program)
                .args(&self.args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| ClientError::Unavailable {
                    server: "recorded".into(),
                    reason: format!("could not be started: {e}"),
                })?;
            let mut stdin = child.stdin.take().unwrap();
            let stdout = child.stdout.take().unwrap();
            let (close_stdin, mut closing) = oneshot::channel::<()>();
            // The writer: each message the client sends, one line, recorded.
            let (log, writer_incoming) = (Arc::clone(&self.log), incoming.clone());
            tokio::spawn(async move {
                loop {
                    let message = tokio::select! {
                        m = outgoing.recv() => m,
                        _ = &mut closing => None,
                    };
                    let Some(message) = message else { break };
                    log.lock().unwrap().push(format!("> {}", message.json()));
                    let line = format!("{}\n", message.json());
                    if stdin.write_all(line.as_bytes()).await.is_err()
                        && let Some(id) = message.request_id()
                    {
                        writer_incoming.not_sent(id, "closed its stdin");
                    }
                }
            });
            // The reader: each line the child writes, recorded, then handed to the client.
            let log = Arc::clone(&self.log);
            tokio::spawn(async move {
                let mut lines = BufReader::new(stdout).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    log.lock().unwrap().push(format!("< {line}"));
                    incoming.deliver(&line);
                }
                incoming.closed("closed its stdout");
            });
            Ok(Box::new(Recording { child, close_stdin: Some(close_stdin) }) as Box<dyn Link>)
        })
    }
}

impl Link for Recording {
    fn close(&mut self) -> CloseFuture<'_> {
        Box::pin(async move {
            if let Some(tx) = self.close_stdin.take() {
                let _ = tx.send(());
            }
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), self.child.wait()).await;
            let _ = self.child.start_kill();
        })
    }

    fn pid(&self) -> Option<u32> {
        self.child.id()
    }
}

/// The methods of the recorded messages going one way (`>` or `<`), in order.
fn methods(log: &Log, way: &str) -> Vec<String> {
    let log = log.lock().unwrap();
    log.iter()
        .filter_map(|l| l.strip_prefix(way))
        .filter_map(|m| serde_json::from_str::<Value>(m).ok())
        .map(|m| m["method"].as_str().map_or_else(|| format!("reply {}", m["id"]), str::to_owned))
        .collect()
}

#[tokio::test]
async fn a_transport_written_outside_the_crate_carries_the_whole_protocol_to_a_real_server() {
    let log = Log::default();
    let recorder = Recorder {
        program: peer("TOOLWIRE_PY_MCP2"),
        args: vec![fixture("client_mcpserver.py")],
        log: Arc::clone(&log),
    };
    let client = Client::connect(recorder, ClientOptions::new("weather")).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    let pid = client.pid().expect("the recorder's link gives its child's pid");
    let d = client.adopt(AdoptOptions::default()).await.unwrap();
    let forecast = d.get("forecast").unwrap();
    let out = forecast.call_json(json!({"city": "Oslo"}), &Context::new()).await.unwrap();
    assert_eq!(
        out.joined_text(),
        "<untrusted-data source=\"mcp\" server=\"weather\" tool=\"weather__forecast\">\nOslo: sunny for the next 2 days\n</untrusted-data>"
    );
    client.close().await;
    assert_gone(pid).await;
    // Every message crossed the transport, in order: the handshake, the list, the call.
    assert_eq!(
        methods(&log, "> "),
        ["initialize", "notifications/initialized", "tools/list", "tools/call"],
        "{:?}",
        log.lock().unwrap()
    );
    assert_eq!(methods(&log, "< "), ["reply 1", "reply 2", "reply 3"], "{:?}", log.lock().unwrap());
    let sent = log.lock().unwrap().iter().find(|l| l.contains("tools/call")).cloned().unwrap();
    let call: Value = serde_json::from_str(sent.strip_prefix("> ").unwrap()).unwrap();
    assert_eq!(call["params"], json!({"name": "forecast", "arguments": {"city": "Oslo"}}));
}

/// A transport that cannot start, and one whose server says nothing and then is gone.
enum Broken {
    CannotStart,
    Vanishes,
}

struct Nothing;

impl Link for Nothing {
    fn close(&mut self) -> CloseFuture<'_> {
        Box::pin(async {})
    }
}

impl Transport for Broken {
    fn start(self: Box<Self>, mut outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        Box::pin(async move {
            match *self {
                Broken::CannotStart => Err(ClientError::Unavailable {
                    server: "broken".into(),
                    reason: "has no route to its host".into(),
                }),
                Broken::Vanishes => {
                    tokio::spawn(async move {
                        // The first message arrives; then the far end is gone.
                        let _ = outgoing.recv().await;
                        incoming.closed("was unplugged");
                    });
                    Ok(Box::new(Nothing) as Box<dyn Link>)
                }
            }
        })
    }
}

#[tokio::test]
async fn a_transport_that_fails_says_why_in_the_clients_error() {
    let err = Client::connect(Broken::CannotStart, ClientOptions::new("broken")).await.unwrap_err();
    assert_eq!(err.to_string(), "server 'broken' has no route to its host");
    let err = Client::connect(Broken::Vanishes, ClientOptions::new("gone")).await.unwrap_err();
    assert_eq!(err.to_string(), "server 'gone' was unplugged");
    // Chosen at run time, boxed.
    let boxed: Box<dyn Transport> = Box::new(Broken::CannotStart);
    let err = Client::connect_boxed(boxed, ClientOptions::new("broken")).await.unwrap_err();
    assert_eq!(err.to_string(), "server 'broken' has no route to its host");
}

/// Report progress twice, then say so.
#[tool(read_only)]
async fn steps(ctx: &Context, n: u32) -> String {
    for i in 1..=n {
        ctx.report_progress(f64::from(i), Some(f64::from(n)), Some("step"));
    }
    format!("{n} steps")
}

/// A server in this process: the talking tools of the examples, and `steps`.
fn local_server() -> Server {
    let mut registry = toolwire_examples::talk_tools::registry().unwrap();
    registry.merge(tools![steps].unwrap()).unwrap();
    Server::new(registry, ServerOptions::new("local", "0.1.0"))
}

/// Handlers a test writes: a form gets the name Ada, the model says "sunny", one root; the
/// logs are kept.
fn talking(logs: &Arc<Mutex<Vec<String>>>) -> ClientOptions {
    let logs = Arc::clone(logs);
    ClientOptions::new("local")
        .on_elicit(|request| async move {
            let mut content = request.defaults();
            content.insert("name".into(), "Ada".into());
            Ok(Elicited::accept(content))
        })
        .on_sample(|_| async { Ok(CreateMessageResult::text("fake-model", "sunny")) })
        .roots(vec![Root::new("file:///work/a", Some("a".into()))])
        .on_log(move |m: LogMessage| logs.lock().unwrap().push(format!("{}: {}", m.level.as_str(), m.data)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_process_the_whole_protocol_in_both_eras_with_no_socket_and_no_child() {
    for (era, version) in [(EraMode::Legacy, "2025-11-25"), (EraMode::Modern, "2026-07-28")] {
        let logs = Arc::default();
        let client = Client::connect(InProcess::new(local_server()), talking(&logs).era(era)).await.unwrap();
        assert_eq!(client.server_info().protocol_version, version);
        assert_eq!(client.server_info().name.as_deref(), Some("local"));
        assert_eq!(client.pid(), None);
        let listed = client.list_tools(true).await.unwrap();
        assert!(listed.iter().any(|t| t.name == "ask_contact"), "{era:?}");

        // Talking back: a form, the model, the roots (server requests in the legacy era,
        // `input_required` rounds on 2026-07-28), answered by the same handlers.
        let call = |name: &'static str, args: Value| client.call_tool(name, args, CallOptions::new());
        let r = call("ask_contact", json!({"question": "Who?"})).await.unwrap();
        assert_eq!(text(&r), "contact Ada (age not given)", "{era:?}");
        let r = call("ask_model", json!({"prompt": "Weather?"})).await.unwrap();
        assert_eq!(text(&r), "fake-model said \"sunny\" (stop: endTurn)", "{era:?}");
        let r = call("show_roots", json!({"path": "/work/a/x", "relative": "y"})).await.unwrap();
        assert_eq!(
            text(&r),
            "roots: file:///work/a; /work/a/x within a root: true; y resolves to /work/a/y",
            "{era:?}"
        );

        // Progress for one call, and log messages.
        let seen: Arc<Mutex<Vec<f64>>> = Arc::default();
        let s = Arc::clone(&seen);
        let progress = Arc::new(move |p: Progress| s.lock().unwrap().push(p.progress));
        let r =
            client.call_tool("steps", json!({"n": 2}), CallOptions::new().progress(progress)).await.unwrap();
        assert_eq!(text(&r), "2 steps");
        assert_eq!(*seen.lock().unwrap(), [1.0, 2.0], "{era:?}");
        client.set_level(toolwire::client::LoggingLevel::Debug).await.unwrap();
        let r = call("chatty", json!({})).await.unwrap();
        assert_eq!(text(&r), "logged");
        assert_eq!(logs.lock().unwrap().len(), 4, "{era:?}: {:?}", logs.lock().unwrap());

        // An adopted tool, validated and sealed as from any server.
        let d = client.adopt(AdoptOptions::default().allow(["ask_contact"])).await.unwrap();
        let tool = d.get("ask_contact").unwrap();
        let err = tool.call_json(json!({}), &Context::new()).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool 'local__ask_contact' call rejected: missing required argument(s) ['question']. Accepted arguments: ['question']"
        );
        client.close().await;
        let err = client.list_tools(true).await.unwrap_err();
        assert_eq!(err.to_string(), "the client for server 'local' is closed");
    }
}

/// A Python SDK 2.3.0 server (`client_mcpserver.py`) spawned here, and `Lines` over its
/// stdout and stdin.
fn python_child_lines()
-> (tokio::process::Child, Lines<tokio::process::ChildStdout, tokio::process::ChildStdin>) {
    let mut child = tokio::process::Command::new(peer("TOOLWIRE_PY_MCP2"))
        .arg(fixture("client_mcpserver.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let lines = Lines::new(child.stdout.take().unwrap(), child.stdin.take().unwrap());
    (child, lines)
}

#[tokio::test]
async fn lines_over_a_child_spawned_by_the_caller() {
    // Any stream pair: here the stdout and stdin of a Python SDK 2.3.0 server we spawned.
    let (mut child, lines) = python_child_lines();
    let client = Client::connect(lines, ClientOptions::new("weather")).await.unwrap();
    let r =
        client.call_tool("forecast", json!({"city": "Rome", "days": 3}), CallOptions::new()).await.unwrap();
    assert_eq!(text(&r), "Rome: sunny for the next 3 days");
    // Closing shuts the server's stdin: it exits on its own, as the SDK's servers do on EOF.
    client.close().await;
    let status =
        tokio::time::timeout(std::time::Duration::from_secs(10), child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");
    let err = client.call_tool("forecast", json!({"city": "Rome"}), CallOptions::new()).await.unwrap_err();
    assert_eq!(err.to_string(), "tool 'forecast' is unavailable: server 'weather' was closed by the client");
}

#[tokio::test]
async fn lines_whose_server_dies_fail_the_call_in_flight() {
    let (mut child, lines) = python_child_lines();
    let client = Client::connect(lines, ClientOptions::new("weather")).await.unwrap();
    let hang = client.call_tool("hang", json!({}), CallOptions::new());
    let kill = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        child.start_kill().unwrap();
    };
    let (result, ()) = tokio::join!(hang, kill);
    assert_eq!(
        result.unwrap_err().to_string(),
        "the outcome of tool 'hang' is unknown: the call was cut off (server 'weather' closed the connection); it may have run, and it must not be re-run"
    );
}

#[tokio::test]
async fn on_message_sees_every_message_of_a_built_in_transport() {
    // The same record as the recorder's above, from the client's side of the built-in stdio
    // transport, against the same Python SDK 2.3.0 server.
    let log = Log::default();
    let seen = Arc::clone(&log);
    let options = ClientOptions::new("weather").on_message(move |way, message| {
        let arrow = if way == Direction::Sent { "> " } else { "< " };
        seen.lock().unwrap().push(format!("{arrow}{message}"));
    });
    let client = Client::connect(client_support::py2("client_mcpserver.py"), options).await.unwrap();
    let r = client.call_tool("forecast", json!({"city": "Oslo"}), CallOptions::new()).await.unwrap();
    assert_eq!(r.text(), "Oslo: sunny for the next 2 days");
    client.close().await;
    assert_eq!(methods(&log, "> "), ["initialize", "notifications/initialized", "tools/call"]);
    assert_eq!(methods(&log, "< "), ["reply 1", "reply 2"]);
    let received = log.lock().unwrap().iter().find(|l| l.starts_with("< ") && l.contains("sunny")).cloned();
    assert!(received.is_some(), "{:?}", log.lock().unwrap());
}
