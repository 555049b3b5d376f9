//! The client's side of talking back, against real servers: the same typed handlers
//! (`on_elicit`, `on_sample`, roots) answer a Python SDK 2.3.0 server in the legacy era
//! (server-to-client requests) and on 2026-07-28 (`input_required` rounds); server-everything
//! (npm) gets its sampling, form and URL elicitation, roots and logs answered over stdio and
//! HTTP, with `set_level` filtering and `set_roots` announcing new roots; and a hand-rolled
//! 2026-07-28 server (`client_mrtr_faulty.py`) asks for what the client cannot give. Needs
//! the peers: `bash tests/peers/setup.sh`.

mod client_support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use client_support::{everything, peer, py2};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolwire::client::{
    CallOptions, CallResult, Client, ClientOptions, CreateMessageResult, ElicitationMode, Elicited, EraMode,
    HandlerError, HttpServer, ListChanged, LogMessage, Root,
};
use toolwire::protocol::LoggingLevel;
use toolwire::tool::Content;

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

/// What the handlers were asked: elicitation messages (or `url:<url>`) and sampled texts.
#[derive(Default)]
struct Seen {
    elicited: Vec<String>,
    sampled: Vec<String>,
}

fn roots(uris: &[&str]) -> Vec<Root> {
    uris.iter().map(|u| Root::new(*u, Some(u.rsplit('/').next().unwrap_or_default().to_owned()))).collect()
}

/// Handlers a test user would write: a form is accepted with its defaults and the name Ada,
/// a URL is accepted, the model always says "sunny".
fn talking(name: &str, seen: &Arc<Mutex<Seen>>) -> ClientOptions {
    let (s1, s2) = (Arc::clone(seen), Arc::clone(seen));
    ClientOptions::new(name)
        .on_elicit(move |request| {
            let seen = Arc::clone(&s1);
            async move {
                let answer = match &request.mode {
                    ElicitationMode::Url { url, .. } => {
                        seen.lock().unwrap().elicited.push(format!("url:{url}"));
                        Elicited::accept_url()
                    }
                    _ => {
                        seen.lock().unwrap().elicited.push(request.message.clone());
                        let mut content = request.defaults();
                        content.insert("name".into(), "Ada".into());
                        Elicited::accept(content)
                    }
                };
                Ok(answer)
            }
        })
        .on_sample(move |request| {
            let seen = Arc::clone(&s2);
            async move {
                seen.lock().unwrap().sampled.push(request.last_text().unwrap_or_default());
                Ok(CreateMessageResult::text("fake-model", "sunny"))
            }
        })
        .roots(roots(&["file:///work/a", "file:///work/b"]))
}

async fn call(client: &Client, tool: &str, args: Value) -> String {
    let r = client.call_tool(tool, args, CallOptions::new()).await.unwrap();
    assert!(!r.is_error, "{tool}: {r:?}");
    text(&r)
}

#[tokio::test]
async fn a_python_sdk_server_is_answered_by_the_same_handlers_in_both_eras() {
    for (era, version) in [(EraMode::Legacy, "2025-11-25"), (EraMode::Modern, "2026-07-28")] {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let options = talking("talkback", &seen).era(era);
        let client = Client::connect(py2("client_talkback.py"), options).await.unwrap();
        assert_eq!(client.server_info().protocol_version, version);
        assert_eq!(call(&client, "greet", json!({"city": "Paris"})).await, "hello Ada from Paris");
        assert_eq!(
            call(&client, "ask_model", json!({"question": "rain?"})).await,
            "model said: sunny (by fake-model)"
        );
        assert_eq!(call(&client, "show_roots", json!({})).await, "file:///work/a, file:///work/b");
        assert_eq!(call(&client, "both", json!({})).await, "Ada / sunny");
        // Two rounds on 2026-07-28: the sampling question needs the elicited name.
        assert_eq!(call(&client, "chain", json!({})).await, "chain: sunny");
        let (elicited, sampled) = {
            let seen = seen.lock().unwrap();
            (seen.elicited.clone(), seen.sampled.clone())
        };
        assert_eq!(elicited, ["Who is asking about Paris?", "Who are you?", "Who are you?"], "{version}");
        assert_eq!(sampled, ["rain?", "weather?", "a poem for Ada"], "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_python_sdk_prompt_asking_for_input_is_rendered_after_its_round() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let options = talking("talkback", &seen).era(EraMode::Modern);
    let client = Client::connect(py2("client_talkback.py"), options).await.unwrap();
    // The server seals its requestState: it renders only if the state came back untouched.
    let rendered = client.get_prompt("briefing", &Default::default()).await.unwrap();
    assert_eq!(rendered.text(), "Brief Ada on the weather (state brief-1).");
    assert_eq!(seen.lock().unwrap().elicited, ["Who is the briefing for?"]);
    client.close().await;
}

#[tokio::test]
async fn a_failing_handler_and_the_round_limit_end_a_modern_call_with_our_words() {
    let offline = ClientOptions::new("talkback")
        .era(EraMode::Modern)
        .on_sample(|_| async {
            Err::<CreateMessageResult, _>(HandlerError::new(-32603, "the model is offline"))
        })
        .on_elicit(|_| async {
            let mut c = Map::new();
            c.insert("name".into(), "Ada".into());
            Ok(Elicited::accept(c))
        })
        .max_input_rounds(1);
    let client = Client::connect(py2("client_talkback.py"), offline).await.unwrap();
    let err =
        client.call_tool("ask_model", json!({"question": "rain?"}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'ask_model' on server 'talkback' did not complete: this client's handler for its sampling/createMessage input request failed: the model is offline"
    );
    assert!(!err.is_retryable());
    let err = client.call_tool("chain", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'chain' on server 'talkback' did not complete: it still asked for more input after 1 round, this client's limit (ClientOptions::max_input_rounds)"
    );
    // One round is enough for a tool that asks once.
    assert_eq!(call(&client, "greet", json!({"city": "Oslo"})).await, "hello Ada from Oslo");
    client.close().await;
}

#[tokio::test]
async fn the_calls_timeout_and_cancellation_bound_its_rounds_too() {
    // A user who never answers.
    let away = ClientOptions::new("talkback")
        .era(EraMode::Modern)
        .on_elicit(|_| async { std::future::pending::<Result<Elicited, HandlerError>>().await });
    let client = Client::connect(py2("client_talkback.py"), away).await.unwrap();
    let options = CallOptions::new().timeout(Duration::from_secs(1));
    let err = client.call_tool("greet", json!({"city": "Rome"}), options).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'greet' on server 'talkback' did not answer within 1s; it may have run"
    );
    let token = toolwire::context::CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let err = client
        .call_tool("greet", json!({"city": "Rome"}), CallOptions::new().cancel(token))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "the run was cancelled while 'greet' was running");
    client.close().await;
}

/// Collect what a channel holds now.
fn drain<T>(rx: &mut mpsc::UnboundedReceiver<T>) -> Vec<T> {
    let mut out = Vec::new();
    while let Ok(x) = rx.try_recv() {
        out.push(x);
    }
    out
}

#[tokio::test]
async fn a_legacy_python_sdk_server_logs_announces_changes_and_completes_a_url_elicitation() {
    let (log_tx, mut logs) = mpsc::unbounded_channel::<LogMessage>();
    let (changed_tx, mut changed) = mpsc::unbounded_channel::<ListChanged>();
    let (done_tx, mut done) = mpsc::unbounded_channel::<String>();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let options = talking("talkback", &seen)
        .elicitation_url(true)
        .on_log(move |m| drop(log_tx.send(m)))
        .on_list_changed(move |c| {
            let _ = changed_tx.send(c);
        })
        .on_elicitation_complete(move |id| drop(done_tx.send(id.to_owned())));
    let client = Client::connect(py2("client_talkback.py"), options).await.unwrap();
    let before = client.list_tools(false).await.unwrap();
    assert_eq!(call(&client, "legacy_talk", json!({})).await, "done");
    let logs = drain(&mut logs);
    let logs: Vec<(LoggingLevel, Option<&str>, &Value)> =
        logs.iter().map(|m| (m.level, m.logger.as_deref(), &m.data)).collect();
    assert_eq!(
        logs,
        [
            (LoggingLevel::Info, Some("talk"), &json!("starting")),
            (LoggingLevel::Warning, Some("talk"), &json!({"disk": "low"}))
        ]
    );
    assert_eq!(drain(&mut changed), [ListChanged::Tools, ListChanged::Resources, ListChanged::Prompts]);
    // The tool cache was dropped: the next listing is a new one.
    assert_eq!(client.tools_list_changed(), 1);
    assert!(!Arc::ptr_eq(&before, &client.list_tools(false).await.unwrap()));

    assert_eq!(call(&client, "visit", json!({})).await, "visit: accept");
    assert_eq!(seen.lock().unwrap().elicited, ["url:https://weather.example/sign-in"]);
    // "unknown-1" was never accepted and "visit-1" completes once.
    assert_eq!(drain(&mut done), ["visit-1"]);
    client.close().await;

    // Without URL mode declared, the Python server refuses the call and the handler never
    // sees a URL request.
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = Client::connect(py2("client_talkback.py"), talking("talkback", &seen)).await.unwrap();
    let err = client.call_tool("visit", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(err.to_string(), "tool 'visit' was declined by server 'talkback' (code -32602)");
    assert!(seen.lock().unwrap().elicited.is_empty());
    client.close().await;
}

#[tokio::test]
async fn a_modern_server_asking_what_the_client_cannot_give_is_refused_in_our_words() {
    let faulty = || py2("client_mrtr_faulty.py");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let bare = ClientOptions::new("faulty").era(EraMode::Modern);
    let client = Client::connect(faulty(), bare).await.unwrap();
    let err = client.call_tool("ask_sampling", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'ask_sampling' on server 'faulty' did not complete: it asked for sampling (sampling/createMessage), a capability this client did not declare"
    );
    let err = client.get_prompt("p", &Default::default()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "server 'faulty' did not complete 'prompts/get' of 'p': it asked for elicitation (elicitation/create), a capability this client did not declare"
    );
    client.close().await;

    let client = Client::connect(faulty(), talking("faulty", &seen).era(EraMode::Modern)).await.unwrap();
    let err = client.call_tool("ask_unknown", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'ask_unknown' on server 'faulty' did not complete: it asked for 'tasks/get', which is not an input request this client knows"
    );
    let err = client.call_tool("forever", json!({}), CallOptions::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'forever' on server 'faulty' did not complete: it still asked for more input after 8 rounds, this client's limit (ClientOptions::max_input_rounds)"
    );
    assert_eq!(call(&client, "stateless", json!({})).await, "hello Ada");
    assert_eq!(client.get_prompt("p", &Default::default()).await.unwrap().text(), "prompt for Ada");
    assert_eq!(client.read_resource_text("r://x").await.unwrap(), "resource for Ada");

    // What the server saw: each retry a new id, the state echoed exactly, none when none
    // was given, the answers under the server's keys.
    let retries: Vec<Value> = serde_json::from_str(&call(&client, "rounds_seen", json!({})).await).unwrap();
    let forever: Vec<&Value> = retries
        .iter()
        .filter(|r| {
            r["method"] == "tools/call"
                && r["hasState"] == true
                && r["requestState"].as_str().is_some_and(|s| s.starts_with("state-"))
        })
        .collect();
    let states: Vec<&str> = forever.iter().map(|r| r["requestState"].as_str().unwrap()).collect();
    assert_eq!(states, (1..=8).map(|n| format!("state-{n}")).collect::<Vec<_>>());
    assert_eq!(
        forever[0]["inputResponses"],
        json!({"roots": {"roots": [
        {"uri": "file:///work/a", "name": "a"}, {"uri": "file:///work/b", "name": "b"}]}})
    );
    let mut ids: Vec<i64> = retries.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "{retries:?}");
    let stateless = retries
        .iter()
        .find(|r| r["inputResponses"].get("who").is_some() && r["method"] == "tools/call")
        .unwrap();
    assert_eq!(stateless["hasState"], false);
    assert_eq!(stateless["inputResponses"], json!({"who": {"action": "accept", "content": {"name": "Ada"}}}));
    let prompt = retries.iter().find(|r| r["method"] == "prompts/get").unwrap();
    assert_eq!(prompt["requestState"], "p-state");
    client.close().await;
}

#[tokio::test]
async fn set_level_asks_a_modern_python_sdk_server_for_logs_in_each_requests_meta() {
    let (tx, mut logs) = mpsc::unbounded_channel::<LogMessage>();
    let options = ClientOptions::new("talkback").era(EraMode::Modern).on_log(move |m| drop(tx.send(m)));
    let client = Client::connect(py2("client_talkback.py"), options).await.unwrap();
    // No level asked for: a 2026-07-28 server logs nothing for the request.
    assert_eq!(call(&client, "log_only", json!({})).await, "logged");
    assert!(drain(&mut logs).is_empty());
    // `info`: the request carries it, the server drops its debug line and sends the warning.
    client.set_level(LoggingLevel::Info).await.unwrap();
    assert_eq!(call(&client, "log_only", json!({})).await, "logged");
    let got: Vec<(LoggingLevel, Option<String>, Value)> =
        drain(&mut logs).into_iter().map(|m| (m.level, m.logger, m.data)).collect();
    assert_eq!(got, [(LoggingLevel::Warning, Some("talk".to_owned()), json!("careful"))]);
    client.close().await;
}

/// Wait up to 10 s for a log whose data is `want`.
async fn log_saying(rx: &mut mpsc::UnboundedReceiver<LogMessage>, want: &str) -> LogMessage {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = tokio::time::timeout(left, rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no log {want:?}"))
            .unwrap();
        if m.data == json!(want) {
            return m;
        }
    }
}

/// Everything server-everything can ask, on one connected client.
async fn everything_talks(
    client: &Client,
    seen: &Arc<Mutex<Seen>>,
    logs: &mut mpsc::UnboundedReceiver<LogMessage>,
) {
    // server-everything asks for the roots 350 ms after the handshake, and logs what it got.
    let m = log_saying(logs, "Roots updated: 2 root(s) received from client").await;
    assert_eq!((m.level, m.logger.as_deref()), (LoggingLevel::Info, Some("everything-server")));

    let out = call(client, "trigger-sampling-request", json!({"prompt": "rain?", "maxTokens": 50})).await;
    assert!(out.contains(r#""model": "fake-model""#) && out.contains(r#""text": "sunny""#), "{out}");
    let out = call(client, "trigger-elicitation-request", json!({})).await;
    assert!(
        out.starts_with("✅ User provided the requested information!\nUser inputs:\n- Name: Ada\n"),
        "{out}"
    );
    assert!(out.contains("- Favorite Integer: 42\n"), "{out}");
    let out = call(client, "trigger-url-elicitation", json!({"url": "https://example.com/sign-in"})).await;
    assert!(out.starts_with("✅ User completed the URL elicitation flow.\n"), "{out}");
    // The error path: -32042 names a prerequisite URL; the user accepts it and the call is
    // sent again, once, which server-everything then lets through to its own URL request.
    let args = json!({"url": "https://example.com/pay", "errorPath": true});
    let out = call(client, "trigger-url-elicitation", args).await;
    assert!(out.starts_with("✅ User completed the URL elicitation flow.\n"), "{out}");
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.sampled, ["Resource trigger-sampling-request context: rain?"]);
        assert_eq!(
            seen.elicited,
            [
                "Please provide inputs for the following fields:",
                "url:https://example.com/sign-in",
                "url:https://modelcontextprotocol.io",
                "url:https://example.com/pay"
            ]
        );
    }

    // New roots: server-everything is told, asks again, and logs it.
    client.set_level(LoggingLevel::Info).await.unwrap();
    client.set_roots(roots(&["file:///work/a", "file:///work/b", "file:///work/c"])).unwrap();
    log_saying(logs, "Roots updated: 3 root(s) received from client").await;
    let out = call(client, "get-roots-list", json!({})).await;
    assert!(out.starts_with("Current MCP Roots (3 total):\n\n1. a\n   URI: file:///work/a\n"), "{out}");

    // At `warning` its info log is filtered out by the server: the roots change, no log comes.
    client.set_level(LoggingLevel::Warning).await.unwrap();
    client.set_roots(roots(&["file:///work/z"])).unwrap();
    let start = Instant::now();
    while !call(client, "get-roots-list", json!({})).await.starts_with("Current MCP Roots (1 total)") {
        assert!(start.elapsed() < Duration::from_secs(10), "the roots never changed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    client.ping().await.unwrap();
    let infos: Vec<LogMessage> =
        drain(logs).into_iter().filter(|m| m.level < LoggingLevel::Warning).collect();
    assert!(infos.is_empty(), "{infos:?}");
}

fn everything_options(seen: &Arc<Mutex<Seen>>) -> (ClientOptions, mpsc::UnboundedReceiver<LogMessage>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (talking("ev", seen).elicitation_url(true).on_log(move |m| drop(tx.send(m))), rx)
}

#[tokio::test]
async fn server_everything_is_answered_over_stdio() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (options, mut logs) = everything_options(&seen);
    let client = Client::connect(everything(), options).await.unwrap();
    everything_talks(&client, &seen, &mut logs).await;
    client.close().await;
}

/// A child killed when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn server_everything_is_answered_over_http() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(peer("TOOLWIRE_NODE22"))
        .arg(peer("TOOLWIRE_SERVER_EVERYTHING"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _server = Server(child);
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "server-everything did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (options, mut logs) = everything_options(&seen);
    let client =
        Client::connect(HttpServer::new(format!("http://127.0.0.1:{port}/mcp")), options).await.unwrap();
    everything_talks(&client, &seen, &mut logs).await;
    client.close().await;
}

#[tokio::test]
async fn set_roots_needs_declared_roots() {
    let client = Client::connect(py2("client_talkback.py"), ClientOptions::new("talkback")).await.unwrap();
    assert_eq!(
        client.set_roots(roots(&["file:///x"])).unwrap_err().to_string(),
        "server 'talkback': this client did not declare the 'roots' capability (ClientOptions::roots), so its roots cannot change"
    );
    client.close().await;
}
