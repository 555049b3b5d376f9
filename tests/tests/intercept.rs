//! The interceptor seam and the request in the tool's hands, against real peers:
//!
//! - the Python SDK 2.3.0 client (`tests/peers/clients/py_intercept.py`), legacy and
//!   2026-07-28, over stdio (the `intercepted` example binary) and over streamable HTTP (the
//!   same server, `toolwire_examples::intercept_demo`, on a real socket), calls a tool the
//!   server's interceptor refuses (the error text a model reads), one it answers itself, one
//!   it only watches, and `whoami`, which reports the headers, session id, request id,
//!   `_meta` and client name of the request it came in;
//! - toolwire's own client, with a client interceptor, calling the Python SDK 2.3.0 server
//!   (`tests/peers/fixtures/py_meta_echo.py`): what the interceptor adds to `_meta` reaches
//!   the server, a refused call never leaves, an answered one is the interceptor's;
//! - in process (`testing::pair`), what no peer can show from outside: a server watch's
//!   `enter` is current in the tool's body and nowhere else, and each outcome it is told.

mod peer_support;

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use peer_support::{peer, run_bounded};
use serde_json::{Value, json};
use toolwire::Tool as _;
use toolwire::client::{
    CallOptions, Client, ClientOptions, HttpServer, SendOutcome, SendVerdict, SendWatch, Sending,
};
use toolwire::http::{Auth, HttpConfig};
use toolwire_examples::intercept_demo::{Seen, plain_server, server};

const REFUSAL: &str = "tools/call of 'deploy' refused: deploys are frozen until Monday";

/// Run the Python driver with `args`; its report.
fn python(args: &[&str]) -> Value {
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command.arg(toolwire_tests::tests_dir().join("peers/clients/py_intercept.py")).args(args);
    let out = run_bounded(command, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "py_intercept {args:?} failed:\n{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("not a report ({e}): {stdout}\n{stderr}"))
}

/// What `whoami` said about its request.
fn whoami(report: &Value) -> Value {
    let text = report["whoami"]["texts"][0].as_str().unwrap_or_else(|| panic!("no whoami text: {report}"));
    serde_json::from_str(text).unwrap()
}

/// The checks every transport and era share: the refusal's text and code, the interceptor's
/// own answer, a watched call served as usual, and `whoami`'s request id, `_meta` and client.
fn common(report: &Value, modern: bool) {
    assert_eq!(report["deploy"]["error"], json!({"code": -32030, "message": REFUSAL}), "{report}");
    assert_eq!(report["canned"], json!({"texts": ["answered by the interceptor for mcp"], "isError": false}));
    assert_eq!(report["hello"], json!({"texts": ["hello, py"], "isError": false}));
    let me = whoami(report);
    assert_eq!(me["client_name"], "mcp", "{me}");
    assert_eq!(me["meta"]["com.example/run"], "run-7", "{me}");
    assert!(me["request_id"].as_str().is_some_and(|id| id.parse::<u64>().is_ok()), "{me}");
    assert_eq!(
        me["meta"]["io.modelcontextprotocol/protocolVersion"].as_str(),
        modern.then_some("2026-07-28"),
        "{me}"
    );
}

#[test]
fn python_over_stdio_is_refused_answered_and_watched_and_its_tool_reads_the_request() {
    let binary = toolwire_tests::example_server::example_binary("intercepted");
    let binary = binary.to_str().unwrap();
    for (mode, modern) in [("legacy", false), ("auto", true)] {
        let report = python(&["--mode", mode, "--", binary]);
        common(&report, modern);
        let me = whoami(&report);
        assert_eq!((&me["tenant"], &me["session_id"]), (&Value::Null, &Value::Null), "stdio: {me}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn python_over_http_is_refused_answered_and_watched_and_its_tool_reads_headers_and_session() {
    for (mode, modern) in [("legacy", false), ("auto", true)] {
        let seen = Arc::new(Seen::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(toolwire::http::serve(listener, server(seen.clone()), HttpConfig::new(Auth::None)));
        let report =
            tokio::task::spawn_blocking(move || python(&["--mode", mode, "--url", &url])).await.unwrap();
        common(&report, modern);
        let me = whoami(&report);
        assert_eq!(me["tenant"], "acme", "the header the client set: {me}");
        // A legacy session has an id (`Mcp-Session-Id`); a modern request has none.
        assert_eq!(me["session_id"].as_str().is_some_and(|s| s.len() >= 32), !modern, "{me}");
        // Watched: every request but the refused and the answered call, each told how it ended.
        let finished = seen.finished.load(Ordering::SeqCst);
        assert!(finished >= 3, "whoami, hello and the handshake or listing at least: {finished}");
        assert_eq!(seen.failed.load(Ordering::SeqCst), 0, "nothing watched failed");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_interceptor_a_tool_still_reads_its_request_over_http() {
    // No interceptor: a `tools/call` takes the one-pass read, and `whoami` still gets the
    // header, the session, the id, `_meta` and the client's name; `deploy` runs.
    for (mode, modern) in [("legacy", false), ("auto", true)] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(toolwire::http::serve(listener, plain_server(), HttpConfig::new(Auth::None)));
        let report =
            tokio::task::spawn_blocking(move || python(&["--mode", mode, "--url", &url])).await.unwrap();
        assert_eq!(report["deploy"], json!({"texts": ["deployed to prod"], "isError": false}), "{report}");
        let me = whoami(&report);
        assert_eq!(me["tenant"], "acme", "{me}");
        assert_eq!(me["client_name"], "mcp", "{me}");
        assert_eq!(me["meta"]["com.example/run"], "run-7", "{me}");
        assert!(me["request_id"].as_str().is_some_and(|id| id.parse::<u64>().is_ok()), "{me}");
        assert_eq!(me["session_id"].as_str().is_some_and(|s| s.len() >= 32), !modern, "{me}");
    }
}

mod client_support;

/// What a client watch was told, one line per request: `method outcome`.
#[derive(Clone, Default)]
struct Told(Arc<std::sync::Mutex<Vec<String>>>);

struct Noting(Told, String);

impl SendWatch for Noting {
    fn finished(self: Box<Self>, outcome: SendOutcome<'_>) {
        let said = match outcome {
            SendOutcome::Completed(body) if body.contains("\"isError\":true") => "tool error".to_owned(),
            SendOutcome::Completed(_) => "result".to_owned(),
            SendOutcome::Error { code, .. } => format!("error {code}"),
            SendOutcome::Failed { reason } | SendOutcome::Cancelled { reason } => format!("failed: {reason}"),
            _ => "?".to_owned(),
        };
        self.0.0.lock().unwrap().push(format!("{} {said}", self.1));
    }
}

/// The client interceptor: `_meta` and a header added to every request, `forbidden`
/// refused, `canned` answered, everything sent watched.
fn client_options(told: Told) -> ClientOptions {
    ClientOptions::new("echo").intercept(move |request: &mut Sending<'_>| {
        request.meta_mut().insert("com.example/run".into(), "run-9".into());
        request.add_header("x-run", "run-9");
        match (request.method(), request.name()) {
            ("tools/call", Some("forbidden")) => SendVerdict::refuse("not from this client"),
            ("tools/call", Some("canned")) => SendVerdict::Answer(
                json!({"content": [{"type": "text", "text": "answered before sending"}], "isError": false}),
            ),
            (method, name) => SendVerdict::watch(Noting(
                told.clone(),
                format!("{method}{}", name.map(|n| format!(" {n}")).unwrap_or_default()),
            )),
        }
    })
}

/// Calls through `client` that show the interceptor at work against the Python server.
async fn client_checks(client: &Client, told: &Told, http: bool) {
    // A refused call never leaves: the tool error says so, in the program's own words.
    let refused = client.call_tool("forbidden", json!({}), CallOptions::default()).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "tool 'forbidden' failed: refused before it was sent to server 'echo': not from this client"
    );
    let canned = client.call_tool("canned", json!({}), CallOptions::default()).await.unwrap();
    assert_eq!(canned.text(), "answered before sending");
    // What the interceptor added reached the Python server; `forbidden` never ran there.
    let echoed = client.call_tool("echo_meta", json!({}), CallOptions::default()).await.unwrap();
    let echoed: Value = serde_json::from_str(&echoed.text()).unwrap();
    assert_eq!(echoed["meta"]["com.example/run"], "run-9", "{echoed}");
    assert_eq!(echoed["forbidden_ran"], false, "{echoed}");
    assert_eq!(echoed["x_run"], if http { json!("run-9") } else { Value::Null }, "{echoed}");
    let told = told.0.lock().unwrap().clone();
    assert!(told.contains(&"tools/call echo_meta result".to_owned()), "{told:?}");
    assert!(
        told.iter().any(|l| l.starts_with("initialize result") || l.starts_with("server/discover")),
        "{told:?}"
    );
    assert!(!told.iter().any(|l| l.contains("forbidden") || l.contains("canned")), "{told:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn toolwires_client_interceptor_against_the_python_server_over_stdio() {
    let told = Told::default();
    let server = client_support::py2("py_meta_echo.py");
    let client = Client::connect(server, client_options(told.clone())).await.unwrap();
    client_checks(&client, &told, false).await;
    // An adopted tool's call goes through the same seam: what it sends carries the
    // interceptor's `_meta`, and a refused one is the tool error the model reads.
    let adopted = client.adopt(toolwire::client::AdoptOptions::default()).await.unwrap();
    let ctx = toolwire::Context::new();
    let echo = adopted.get("echo_meta").unwrap();
    let out = echo.call_json(json!({}), &ctx).await.unwrap();
    assert!(format!("{out:?}").contains("run-9"), "{out:?}");
    let forbidden = adopted.get("forbidden").unwrap();
    let refused = forbidden.call_json(json!({}), &ctx).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "tool 'echo__forbidden' failed: refused before it was sent to server 'echo': not from this client"
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn toolwires_client_interceptor_against_the_python_server_over_http() {
    let port = client_support::free_port();
    let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
    command.arg(client_support::fixture("py_meta_echo.py")).args(["http", &port.to_string()]);
    let _server = client_support::start(&mut command, port);
    let told = Told::default();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::connect(HttpServer::new(url), client_options(told.clone())).await.unwrap();
    client_checks(&client, &told, true).await;
    // Refused outside tools/call: the client error names the method and the reason.
    let refusing = ClientOptions::new("echo").intercept(|r: &mut Sending<'_>| {
        if r.method() == "tools/list" { SendVerdict::refuse("no listing today") } else { SendVerdict::Pass }
    });
    let client2 =
        Client::connect(HttpServer::new(format!("http://127.0.0.1:{port}/mcp")), refusing).await.unwrap();
    let refused = client2.list_tools(true).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "'tools/list' to server 'echo' was refused before it was sent: no listing today"
    );
    client.close().await;
    client2.close().await;
}

thread_local! {
    /// What the watch made current around the poll of the tool's body (a stand-in for a
    /// tracing span or a telemetry context).
    static CURRENT: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// Say what the interceptor's watch made current while this body ran.
#[toolwire::tool(read_only)]
async fn current() -> String {
    CURRENT.with(|c| c.get()).unwrap_or("nothing").to_owned()
}

/// Fail, as a tool error.
#[toolwire::tool(read_only)]
async fn failing() -> Result<String, String> {
    Err("no luck".into())
}

/// Makes `watched` current around each poll, and notes each outcome.
struct Entering(Told, String);

impl toolwire::server::Watch for Entering {
    fn enter(&self) -> Option<toolwire::server::Entered> {
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(None));
            }
        }
        CURRENT.with(|c| c.set(Some("watched")));
        Some(Box::new(Reset))
    }

    fn finished(self: Box<Self>, outcome: toolwire::server::Outcome<'_>) {
        let said = match outcome {
            toolwire::server::Outcome::Completed(_) if outcome.is_tool_error() => "tool error".to_owned(),
            toolwire::server::Outcome::Completed(_) => "result".to_owned(),
            toolwire::server::Outcome::Error(e) => format!("error {}", e.code),
            _ => "unanswered".to_owned(),
        };
        self.0.0.lock().unwrap().push(format!("{} {said}", self.1));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_watch_is_entered_around_the_body_and_told_each_outcome() {
    let told = Told::default();
    let noted = told.clone();
    let server = toolwire::Server::builder(toolwire::ServerOptions::new("watched", "1.0.0"))
        .tools(toolwire::tools![current, failing].unwrap())
        .intercept(move |r: &toolwire::server::Intercepted<'_>| {
            toolwire::server::Ruling::watch(Entering(
                noted.clone(),
                format!("{} {}", r.method(), r.name().unwrap_or("-")),
            ))
        })
        .build();
    let client = toolwire::testing::pair(server).await;
    let out = client.call_tool("current", json!({}), CallOptions::default()).await.unwrap();
    assert_eq!(out.text(), "watched", "the watch's context is current in the body");
    assert_eq!(CURRENT.with(|c| c.get()), None, "and only there");
    let failed = client.call_tool("failing", json!({}), CallOptions::default()).await.unwrap();
    assert!(failed.is_error);
    let _ = client.call_tool("missing", json!({}), CallOptions::default()).await.unwrap_err();
    client.close().await;
    let told = told.0.lock().unwrap().clone();
    for line in [
        "initialize - result",
        "tools/call current result",
        "tools/call failing tool error",
        "tools/call missing error -32602",
    ] {
        assert!(told.contains(&line.to_owned()), "no `{line}` in {told:?}");
    }
}

/// Say what was asked; takes nothing from its context.
#[toolwire::tool(read_only)]
fn says(
    /// The words.
    text: String,
) -> String {
    text
}

/// Say what was asked, and to whom: takes its context.
#[toolwire::tool(read_only)]
fn says_to(
    /// The words.
    text: String,
    ctx: &toolwire::Context,
) -> String {
    format!("{text}, {}", ctx.peer().name.as_deref().unwrap_or("?"))
}

/// Say which request asked: takes the request.
#[toolwire::tool(read_only)]
fn says_which(request: toolwire::context::CallRequest<'_>) -> String {
    request.id.map(ToString::to_string).unwrap_or_default()
}

/// A server keeps a call's request (and copies its HTTP headers) only for a tool that can
/// read it: `#[tool]` says so for a fn that takes something from its context, and a tool
/// built by hand reads it unless it says otherwise (`whoami` above reads the headers over a
/// real socket through this).
#[test]
fn only_a_tool_that_takes_from_its_context_keeps_its_request() {
    assert!(!says {}.info().reads_request());
    assert!(says_to {}.info().reads_request());
    assert!(says_which {}.info().reads_request());
    let by_hand = toolwire::ToolInfo::new("by_hand", "Built by hand.", toolwire::Schema::empty_object());
    assert!(by_hand.reads_request());
}

/// Wherever a body runs, its request's watch is entered there: the Python SDK 2.3.0 client,
/// over stdio, calls the `watched-tools` server (tests/src/bin), whose watch makes
/// `watch of <tool>` current in a thread-local, and whose tools say what is current where
/// their body runs: an async body on a runtime worker, a sync body handed to a sync worker
/// and (while two sleeping bodies hold those) to tokio's blocking pool, and `local` bodies,
/// async and sync, on a local thread. A sync body nobody watches, on the same sync workers,
/// sees nothing: what a watch entered there was left when its body returned.
#[test]
fn python_over_stdio_every_body_runs_under_its_watch_on_the_thread_that_runs_it() {
    for mode in ["legacy", "2026-07-28"] {
        let mut command = Command::new(peer("TOOLWIRE_PY_MCP2"));
        command.arg(toolwire_tests::tests_dir().join("peers/clients/py_watched_client.py")).args([
            "--mode",
            mode,
            "--",
            env!("CARGO_BIN_EXE_watched-tools"),
        ]);
        let out = run_bounded(command, Duration::from_secs(60));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{mode}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{mode}: not a report ({e}): {stdout}"));
        let text =
            |case: &str| report[case].as_str().unwrap_or_else(|| panic!("{mode}: no {case}: {report}"));
        assert_eq!(text("async"), "watch of seen_async on tokio-rt-worker", "{mode}");
        assert_eq!(text("sync"), "watch of seen_sync on toolwire-sync", "{mode}");
        assert_eq!(text("sync_pooled"), "watch of seen_sync on tokio-rt-worker", "{mode}: the blocking pool");
        for (case, tool) in [("local", "seen_local"), ("local_sync", "seen_local_sync")] {
            let seen = text(case);
            let prefix = format!("watch of {tool} on toolwire-local-");
            assert!(seen.starts_with(&prefix), "{mode}: {case}: {seen}");
        }
        assert_eq!(text("unwatched"), "nothing on toolwire-sync", "{mode}");
        assert!(text("unwatched_after").starts_with("nothing on "), "{mode}: {report}");
        assert_eq!(text("sleepy_0"), "slept 1500 ms", "{mode}");
    }
}
