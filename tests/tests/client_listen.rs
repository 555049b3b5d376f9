//! The client's 2026-07-28 `subscriptions/listen` (issue 47), against real servers: the
//! Python SDK 2.3.0's `MCPServer` (`tests/peers/fixtures/client_listen.py`) over stdio and
//! over Streamable HTTP, toolwire's `resource-server` over stdio, and toolwire's `--http`
//! main (`drain-main`) closing the listen gracefully when it drains. Needs the peers:
//! `bash tests/peers/setup.sh`.

mod client_support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use client_support::{fixture, peer, py2};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolwire::client::{
    CallOptions, Client, ClientError, ClientOptions, Direction, EraMode, HttpServer, ListChanged,
    StdioServer, UpdateFn,
};

/// Modern options recording every message, and a channel of the list changes heard.
fn options(
    log: &Arc<Mutex<Vec<(Direction, Value)>>>,
) -> (ClientOptions, mpsc::UnboundedReceiver<ListChanged>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let log = Arc::clone(log);
    let options = ClientOptions::new("listen")
        .era(EraMode::Modern)
        .request_timeout(Duration::from_secs(10))
        .on_list_changed(move |which| {
            let _ = tx.send(which);
        })
        .on_message(move |dir, text| {
            if let Ok(v) = serde_json::from_str(text) {
                log.lock().unwrap().push((dir, v));
            }
        });
    (options, rx)
}

/// A subscription callback sending each URI to a channel.
fn updates() -> (UpdateFn, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (Arc::new(move |uri: &str| drop(tx.send(uri.to_owned()))), rx)
}

/// The next item within 5 s.
async fn next<T>(rx: &mut mpsc::UnboundedReceiver<T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("within 5 s").expect("open")
}

/// No item within 300 ms (a channel whose sender was dropped counts as none).
async fn nothing<T: std::fmt::Debug>(rx: &mut mpsc::UnboundedReceiver<T>) {
    if let Ok(Some(got)) = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await {
        panic!("expected nothing, got {got:?}");
    }
}

/// The `subscriptions/listen` requests sent so far.
fn listens(log: &Arc<Mutex<Vec<(Direction, Value)>>>) -> Vec<Value> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|(d, v)| *d == Direction::Sent && v["method"] == "subscriptions/listen")
        .map(|(_, v)| v.clone())
        .collect()
}

async fn call(client: &Client, name: &str, args: Value) {
    client.call_tool(name, args, CallOptions::default()).await.unwrap_or_else(|e| panic!("{name}: {e}"));
}

/// What the Python server publishes reaches the client's callbacks and caches; what the
/// client did not ask for does not.
async fn python_listen(
    client: &Client,
    log: &Arc<Mutex<Vec<(Direction, Value)>>>,
    lists: &mut mpsc::UnboundedReceiver<ListChanged>,
) {
    // The listen is open with what the server announces, and no resource yet.
    let start = Instant::now();
    while listens(log).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(5), "no subscriptions/listen was sent");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        listens(log)[0]["params"]["notifications"],
        json!({"toolsListChanged": true, "resourcesListChanged": true, "promptsListChanged": true})
    );
    assert_eq!(client.list_tools(false).await.unwrap().len(), 3);
    let before = client.tools_list_changed();
    call(client, "add_tool", json!({})).await;
    assert_eq!(next(lists).await, ListChanged::Tools);
    assert_eq!(client.tools_list_changed(), before + 1);
    assert_eq!(client.list_tools(false).await.unwrap().len(), 4);
    call(client, "prompts_changed", json!({})).await;
    assert_eq!(next(lists).await, ListChanged::Prompts);

    // A subscription reopens the listen with the URI, acknowledged before subscribe returns.
    let (on_update, mut seen) = updates();
    client.subscribe("note://a", on_update).await.unwrap();
    let last = listens(log).last().cloned().unwrap();
    assert_eq!(last["params"]["notifications"]["resourceSubscriptions"], json!(["note://a"]));
    call(client, "touch", json!({"uri": "note://a"})).await;
    assert_eq!(next(&mut seen).await, "note://a");
    call(client, "touch", json!({"uri": "note://b"})).await;
    nothing(&mut seen).await;
    // Unsubscribed: the listen is reopened without it, and no update arrives.
    client.unsubscribe("note://a").await.unwrap();
    let start = Instant::now();
    while listens(log).last().unwrap()["params"]["notifications"].get("resourceSubscriptions").is_some() {
        assert!(start.elapsed() < Duration::from_secs(5), "the listen was not reopened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    call(client, "touch", json!({"uri": "note://a"})).await;
    nothing(&mut seen).await;
    // No legacy request was sent.
    let legacy = log.lock().unwrap().iter().any(|(_, v)| {
        v["method"]
            .as_str()
            .is_some_and(|m| m.starts_with("resources/subscribe") || m == "resources/unsubscribe")
    });
    assert!(!legacy, "a legacy subscription request was sent on a 2026-07-28 connection");
}

#[tokio::test]
async fn python_server_over_stdio_delivers_list_changes_and_resource_updates_on_the_listen() {
    let log = Arc::default();
    let (options, mut lists) = options(&log);
    let client = Client::connect(py2("client_listen.py"), options).await.unwrap();
    python_listen(&client, &log, &mut lists).await;
    client.close().await;
}

/// A free loopback port.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A child killed when dropped, so a failing test leaves no server behind.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The Python fixture over HTTP on `port`, once it answers.
async fn python_http(port: u16) -> Killed {
    let child = Command::new(peer("TOOLWIRE_PY_MCP2"))
        .args([fixture("client_listen.py"), "http".into(), port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the Python server");
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(15), "the Python server did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Killed(child)
}

#[tokio::test]
async fn python_server_over_http_and_a_dropped_stream_is_listened_again() {
    let port = free_port();
    let server = python_http(port).await;
    let log = Arc::default();
    let (options, mut lists) = options(&log);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::connect(HttpServer::new(url.clone()), options).await.unwrap();
    python_listen(&client, &log, &mut lists).await;
    let (on_update, mut seen) = updates();
    client.subscribe("note://a", on_update).await.unwrap();

    // The server dies: the listen's stream drops with no answer. A new server on the same
    // port gets a fresh listen (with the subscription) and its updates arrive.
    drop(server);
    let before = listens(&log).len();
    let server = python_http(port).await;
    let start = Instant::now();
    loop {
        let acked =
            log.lock().unwrap().iter().rev().take_while(|(_, v)| v["method"] != "subscriptions/listen").any(
                |(d, v)| {
                    *d == Direction::Received && v["method"] == "notifications/subscriptions/acknowledged"
                },
            );
        if listens(&log).len() > before && acked {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no new listen was acknowledged");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        listens(&log).last().unwrap()["params"]["notifications"]["resourceSubscriptions"],
        json!(["note://a"])
    );
    call(&client, "touch", json!({"uri": "note://a"})).await;
    assert_eq!(next(&mut seen).await, "note://a");
    client.close().await;
    drop(server);
}

#[tokio::test]
async fn toolwire_resource_server_acknowledges_what_it_serves_and_the_client_says_what_it_did_not() {
    let log = Arc::default();
    let (options, _lists) = options(&log);
    let server = StdioServer::new(env!("CARGO_BIN_EXE_resource-server"));
    let client = Client::connect(server, options).await.unwrap();
    let (on_update, mut seen) = updates();
    client.subscribe("test://static-text", on_update).await.unwrap();
    call(&client, "touch", json!({"uri": "test://static-text"})).await;
    assert_eq!(next(&mut seen).await, "test://static-text");

    // A URI the server leaves out of its acknowledgment is refused, and not registered.
    let (on_update, mut other) = updates();
    let refused = client.subscribe("test://no-such", on_update).await;
    match refused {
        Err(e @ ClientError::NotSubscribed { .. }) => assert_eq!(
            e.to_string(),
            "server 'listen' did not acknowledge a subscription to 'test://no-such' (subscriptions/listen)"
        ),
        other => panic!("expected NotSubscribed, got {other:?}"),
    }
    call(&client, "touch", json!({"uri": "test://no-such"})).await;
    nothing(&mut other).await;
    // The first subscription still works.
    call(&client, "touch", json!({"uri": "test://static-text"})).await;
    assert_eq!(next(&mut seen).await, "test://static-text");
    client.close().await;
}

/// `drain-main --http`: its URL and bearer token.
fn spawn_drain_main() -> (Child, String, String) {
    use std::io::BufRead;
    let mut server = Command::new(env!("CARGO_BIN_EXE_drain-main"))
        .args(["--http", "--show-token", "--log-level", "off"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
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
    let token = lines[3].strip_prefix("header: Authorization: Bearer ").expect("the token line").to_owned();
    (server, url, token)
}

/// toolwire's `--http` main answers the open listen with its graceful closure when it
/// drains: the client listens again at once, and, the server being gone, gives up after a
/// bounded number of tries.
#[tokio::test]
async fn a_graceful_closure_on_drain_is_followed_by_a_bounded_relisten() {
    let (server, url, token) = spawn_drain_main();
    let mut server = Killed(server);
    let log = Arc::default();
    let (options, _lists) = options(&log);
    let client = Client::connect(HttpServer::new(url).bearer(token), options).await.unwrap();
    let (on_update, _seen) = updates();
    client.subscribe("test://drain-note", on_update).await.unwrap();
    let before = listens(&log).len();
    let listen_id = listens(&log).last().unwrap()["id"].clone();

    let _ = Command::new("kill").args(["-TERM", &server.0.id().to_string()]).status();
    let start = Instant::now();
    loop {
        let closed = log.lock().unwrap().iter().any(|(d, v)| {
            *d == Direction::Received && v["id"] == listen_id && v["result"]["resultType"] == "complete"
        });
        if closed {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "no graceful closure of listen {listen_id}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.0.wait().unwrap();
    // Listened again, and stopped: the count stays put for 4 s, at most the bound.
    let mut count = listens(&log).len();
    let mut still = Instant::now();
    while still.elapsed() < Duration::from_secs(4) {
        assert!(start.elapsed() < Duration::from_secs(20), "the client kept listening");
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = listens(&log).len();
        if now != count {
            (count, still) = (now, Instant::now());
        }
    }
    let after = count - before;
    assert!((1..=6).contains(&after), "{after} listens after the closure");
    eprintln!("{after} listens after the graceful closure");
    client.close().await;
}
