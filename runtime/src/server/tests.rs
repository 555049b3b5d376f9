//! Unit tests of the dispatch engine: a [`Session`] fed text, its sink collected, every
//! answer compared whole.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::context::Context;
use crate::protocol::Outbound;
use crate::registry::ToolRegistry;
use crate::schema::Schema;
use crate::tool::{Declarations, Tool, ToolError, ToolFuture, ToolInfo, ToolOutput};

use super::{Server, ServerOptions, Session, Sink};

#[derive(Clone, Copy)]
enum Behaviour {
    /// Answer with the raw arguments.
    Echo,
    Fail,
    Panic,
    Progress(u32),
    /// Never return; set the flag when dropped.
    Forever,
    /// A sync body (as `#[tool] fn` runs one): answers with the name of the thread it ran on.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Sync,
    /// A sync body that waits (up to 5 s) until its context reads cancelled, then sets the
    /// flag and answers.
    WatchCancel,
}

struct TestTool {
    info: ToolInfo,
    behaviour: Behaviour,
    dropped: Arc<AtomicBool>,
}

struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Tool for TestTool {
    fn info(&self) -> &ToolInfo {
        &self.info
    }

    fn call<'a>(&'a self, args: &'a RawValue, ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move {
            let name = self.info.name();
            match self.behaviour {
                Behaviour::Echo => Ok(ToolOutput::text(args.get())),
                Behaviour::Fail => Err(ToolError::failed(name, "the database is on fire")),
                Behaviour::Panic => panic!("boom"),
                Behaviour::Progress(n) => {
                    for i in 1..=n {
                        ctx.report_progress(f64::from(i), Some(f64::from(n)), None);
                        ctx.report_progress(0.5, None, None); // goes backwards: dropped
                        tokio::task::yield_now().await;
                    }
                    Ok(ToolOutput::text(format!("done {n}")))
                }
                Behaviour::Sync => {
                    let ran_on = crate::tool::run_blocking(name, || {
                        std::thread::current().name().unwrap_or("unnamed").to_owned()
                    });
                    Ok(ToolOutput::text(ran_on.await?))
                }
                Behaviour::WatchCancel => {
                    let (ctx, seen) = (ctx.clone(), self.dropped.clone());
                    crate::tool::run_blocking(name, move || {
                        let until = std::time::Instant::now() + Duration::from_secs(5);
                        while !ctx.is_cancelled() && std::time::Instant::now() < until {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        seen.store(ctx.is_cancelled(), Ordering::SeqCst);
                    })
                    .await?;
                    Ok(ToolOutput::text("watched"))
                }
                Behaviour::Forever => {
                    let _flag = DropFlag(self.dropped.clone());
                    std::future::pending::<()>().await;
                    Ok(ToolOutput::default())
                }
            }
        })
    }
}

struct Fixture {
    server: Server,
    dropped: Arc<AtomicBool>,
}

fn fixture(options: ServerOptions) -> Fixture {
    fixture_of(
        options,
        &[
            ("echo", Behaviour::Echo),
            ("fail", Behaviour::Fail),
            ("panic", Behaviour::Panic),
            ("progress", Behaviour::Progress(3)),
            ("forever", Behaviour::Forever),
        ],
    )
}

/// A server of these tools.
fn fixture_of(options: ServerOptions, tools: &[(&'static str, Behaviour)]) -> Fixture {
    let dropped = Arc::new(AtomicBool::new(false));
    let mut registry = ToolRegistry::new();
    for &(name, behaviour) in tools {
        let info = ToolInfo::new(name, format!("The {name} tool."), Schema::empty_object())
            .with_declarations(Declarations::read_only());
        registry.register(TestTool { info, behaviour, dropped: dropped.clone() }).unwrap();
    }
    Fixture { server: Server::new(registry, options), dropped }
}

fn options() -> super::ServerOptions {
    ServerOptions::new("demo", "1.0.0")
}

/// A session and everything it sent.
struct Wire {
    session: Session,
    sink: Arc<dyn Sink>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Wire {
    fn new(server: &Server) -> Wire {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink: Arc<dyn Sink> = {
            let seen = seen.clone();
            Arc::new(move |m: Outbound| seen.lock().unwrap().push(m.into_string()))
        };
        Wire { session: server.session(), sink, seen }
    }

    fn send(&self, line: &str) {
        self.session.handle(line, &self.sink);
    }

    /// [`send`](Self::send), each request polled first as `inline` says (as a transport asks).
    fn send_polled(&self, line: &str, inline: super::Inline) {
        self.session.handle_polled(line, &self.sink, inline);
    }

    /// What was sent since the last call.
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }

    /// Send `line` and return the one message it got back at once.
    fn ask(&self, line: &str) -> String {
        self.send(line);
        let mut got = self.take();
        assert_eq!(got.len(), 1, "expected exactly one answer to {line}: {got:?}");
        got.remove(0)
    }

    /// Wait until `n` messages are in, then take them.
    async fn wait(&self, n: usize) -> Vec<String> {
        for _ in 0..400 {
            if self.seen.lock().unwrap().len() >= n {
                return self.take();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("timed out waiting for {n} messages; have {:?}", self.seen.lock().unwrap());
    }

    fn initialize(&self, version: &str) -> String {
        let answer = self.ask(&format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        ));
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        answer
    }
}

const MODERN: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const SERVER_META: &str =
    r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}}"#;

fn call(id: u32, tool: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}{extra}}}}}"#
    )
}

fn text_result(id: u32, text: &str, is_error: bool) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}],"isError":{is_error}}}}}"#
    )
}

#[tokio::test]
async fn initialize_echoes_supported_versions_and_counter_offers_unknown_ones() {
    let f = fixture(options().instructions("Be brief."));
    for (asked, served) in
        [("2025-06-18", "2025-06-18"), ("1900-01-01", "2025-11-25"), ("2026-07-28", "2025-11-25")]
    {
        let wire = Wire::new(&f.server);
        assert_eq!(
            wire.initialize(asked),
            format!(
                r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{served}","capabilities":{{"tools":{{"listChanged":false}},"logging":{{}}}},"serverInfo":{{"name":"demo","version":"1.0.0"}},"instructions":"Be brief."}}}}"#
            )
        );
        assert!(wire.session.is_initialized());
        assert_eq!(wire.session.protocol_version().unwrap().as_str(), served);
    }
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#),
        r#"{"jsonrpc":"2.0","id":"again","error":{"code":-32600,"message":"invalid request: the session is already initialized (protocol version 2025-11-25)"}}"#
    );
    assert_eq!(
        Wire::new(&f.server).ask(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params for 'initialize': missing field `protocolVersion`"}}"#
    );
}

#[tokio::test]
async fn legacy_requests_need_the_handshake_but_ping_does_not() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#),
        r#"{"jsonrpc":"2.0","id":"p","result":{}}"#
    );
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: no session: send `initialize` first (protocol versions up to 2025-11-25), or put io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in this request's `_meta` (2026-07-28)"}}"#
    );
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method 'resources/list' not found"}}"#
    );
}

#[cfg(feature = "http")]
#[tokio::test]
async fn a_session_without_handshake_serves_at_its_version_and_refuses_a_second_initialize() {
    use crate::protocol::ProtocolVersion;
    let f = fixture(options());
    let session = f.server.session_without_handshake(ProtocolVersion::parse("2025-06-18").unwrap());
    assert_eq!(session.protocol_version().map(|v| v.as_str()), Some("2025-06-18"));
    assert!(session.is_initialized());
    let wire = Wire { session, ..Wire::new(&f.server) };
    assert!(wire.ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).contains(r#""tools":["#));
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: the session is already initialized (protocol version 2025-06-18)"}}"#
    );
}

#[tokio::test]
async fn modern_requests_are_served_from_their_own_meta() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    assert_eq!(
        wire.ask(&format!(
            r#"{{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{{MODERN}}}}}"#
        )),
        format!(
            r#"{{"jsonrpc":"2.0","id":"d","result":{{{SERVER_META},"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{"listChanged":false}},"logging":{{}}}},"ttlMs":300000,"cacheScope":"public"}}}}"#
        )
    );
    assert_eq!(
        wire.ask(&format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{{MODERN}}}}}"#)),
        format!(r#"{{"jsonrpc":"2.0","id":3,"result":{{{SERVER_META},"resultType":"complete"}}}}"#)
    );
    // No handshake happened: the modern requests left the session's legacy state alone.
    assert_eq!(wire.session.protocol_version(), None);
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#),
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32022,"message":"Unsupported protocol version '1900-01-01': this server takes 2026-07-28 in `_meta`, and 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 through `initialize`","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1900-01-01"}}}"#
    );
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#),
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: `_meta` is missing the required key io.modelcontextprotocol/clientCapabilities"}}"#
    );
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}}}"#),
        r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"invalid params: `_meta` key io.modelcontextprotocol/protocolVersion must be a string, got a number"}}"#
    );
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":7,"method":"server/discover"}"#),
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"invalid params: 'server/discover' needs `_meta` with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities (2026-07-28 and later)"}}"#
    );
    wire.send(&call(8, "echo", &format!(",{MODERN}")));
    assert_eq!(
        wire.wait(1).await,
        [format!(
            r#"{{"jsonrpc":"2.0","id":8,"result":{{{SERVER_META},"resultType":"complete","content":[{{"type":"text","text":"{{}}"}}],"isError":false}}}}"#
        )]
    );
}

#[tokio::test]
async fn capabilities_are_what_was_registered() {
    // Nothing registered: only `logging` (any server serves `logging/setLevel`), and the
    // tools methods are not there.
    let bare = Server::builder(options().title("De\"mo").instructions("Line 1\nLine 2")).build();
    assert_eq!(bare.calls_seen(), 0);
    assert!(bare.registry().is_empty());
    let wire = Wire::new(&bare);
    assert_eq!(
        wire.initialize("2025-11-25"),
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"demo","title":"De\"mo","version":"1.0.0"},"instructions":"Line 1\nLine 2"}}"#
    );
    for (id, method) in [(1, "tools/list"), (2, "tools/call")] {
        assert_eq!(
            wire.ask(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"name":"echo"}}}}"#
            )),
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"method '{method}' not found"}}}}"#
            )
        );
    }
    assert_eq!(
        wire.ask(&format!(
            r#"{{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{{MODERN}}}}}"#
        )),
        r#"{"jsonrpc":"2.0","id":"d","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","title":"De\"mo","version":"1.0.0"}},"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"logging":{}},"instructions":"Line 1\nLine 2","ttlMs":300000,"cacheScope":"public"}}"#
    );

    // Tools registered, even none: advertised, and an unknown tools method is -32601.
    let empty = Server::builder(options()).tools(ToolRegistry::new()).build();
    let wire = Wire::new(&empty);
    assert_eq!(
        wire.initialize("2025-06-18"),
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false},"logging":{}},"serverInfo":{"name":"demo","version":"1.0.0"}}}"#
    );
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#
    );
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":2,"method":"tools/subscribe"}"#),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method 'tools/subscribe' not found"}}"#
    );
}

#[tokio::test]
async fn listing_is_paginated_with_opaque_cursors() {
    let f = fixture(options().page_size(2));
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    let first: serde_json::Value =
        serde_json::from_str(&wire.ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#))
            .unwrap();
    let names = |page: &serde_json::Value| -> Vec<String> {
        page["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&first), ["echo", "fail"]);
    let mut cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let mut all = names(&first);
    for id in 2.. {
        let page: serde_json::Value = serde_json::from_str(&wire.ask(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"cursor":"{cursor}"}}}}"#
        )))
        .unwrap();
        all.extend(names(&page));
        match page["result"]["nextCursor"].as_str() {
            Some(c) => cursor = c.to_owned(),
            None => break,
        }
    }
    assert_eq!(all, ["echo", "fail", "forever", "panic", "progress"]);
    for bad in
        ["nope", "", "0000000000000000-1", &format!("{}-0", &cursor[..16]), &format!("{}-9", &cursor[..16])]
    {
        assert_eq!(
            wire.ask(&format!(
                r#"{{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{{"cursor":"{bad}"}}}}"#
            )),
            format!(
                r#"{{"jsonrpc":"2.0","id":9,"error":{{"code":-32602,"message":"invalid cursor \"{bad}\": it is not one this server issued; list again without a cursor"}}}}"#
            )
        );
    }
    let modern: serde_json::Value = serde_json::from_str(
        &wire.ask(&format!(r#"{{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{{{MODERN}}}}}"#)),
    )
    .unwrap();
    assert_eq!(modern["result"]["resultType"], "complete");
    assert_eq!(modern["result"]["ttlMs"], 300000);
    assert_eq!(modern["result"]["cacheScope"], "public");
    assert_eq!(modern["result"]["nextCursor"], first["result"]["nextCursor"]);
}

#[tokio::test]
async fn the_error_contract_holds_and_the_session_survives() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    assert_eq!(
        wire.ask(&call(1, "nope", "")),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool 'nope'; available tools: ['echo', 'fail', 'forever', 'panic', 'progress']"}}"#
    );
    wire.send(&call(2, "fail", ""));
    assert_eq!(wire.wait(1).await, [text_result(2, "tool 'fail' failed: the database is on fire", true)]);
    wire.send(&call(3, "panic", ""));
    assert_eq!(wire.wait(1).await, [text_result(3, "tool 'panic' failed: panicked: boom", true)]);
    // Absent arguments reach the tool as `{}`; given ones as the bytes that arrived.
    wire.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}"#);
    assert_eq!(wire.wait(1).await, [text_result(4, "{}", false)]);
    wire.send(
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{ "a" :1 }}}"#,
    );
    assert_eq!(wire.wait(1).await, [text_result(5, r#"{ \"a\" :1 }"#, false)]);
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{}}}"#),
        r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"invalid params for 'tools/call': missing field `name`"}}"#
    );
    assert_eq!(f.server.calls_seen(), 6);
}

#[tokio::test]
async fn host_cancellation_before_and_during_a_call() {
    let host = CancellationToken::new();
    let f = fixture(options().cancellation(host.clone()));
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(1, "forever", ""));
    tokio::time::sleep(Duration::from_millis(20)).await;
    host.cancel();
    assert_eq!(
        wire.wait(1).await,
        [text_result(1, "the run was cancelled while 'forever' was running", true)]
    );
    assert!(f.dropped.load(Ordering::SeqCst), "the running future was dropped");
    wire.send(&call(2, "echo", ""));
    assert_eq!(wire.wait(1).await, [text_result(2, "the run was cancelled; 'echo' was not run", true)]);
}

#[tokio::test]
async fn the_servers_deadline_abandons_a_call() {
    let f = fixture(options().deadline(Some(Duration::from_millis(50))));
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(1, "forever", ""));
    assert_eq!(
        wire.wait(1).await,
        [text_result(1, "tool 'forever' did not return within 0.05s and was abandoned", true)]
    );
    // A tool's own failure is never reported as the deadline.
    wire.send(&call(2, "fail", ""));
    assert_eq!(wire.wait(1).await, [text_result(2, "tool 'fail' failed: the database is on fire", true)]);
}

#[tokio::test]
async fn client_cancellation_drops_the_call_and_sends_nothing() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(7, "forever", ""));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(wire.session.in_flight(), 1);
    // A second call under an id in flight is refused.
    assert_eq!(
        wire.ask(&call(7, "echo", "")),
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request: request id 7 is already in use by a call in flight"}}"#
    );
    // The string "7" is a different id from the integer 7: nothing happens.
    wire.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}"#);
    assert_eq!(wire.session.in_flight(), 1);
    wire.send(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}"#,
    );
    assert_eq!(wire.session.in_flight(), 0);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(f.dropped.load(Ordering::SeqCst), "the call's future was dropped");
    // Late, unknown and malformed cancellations are ignored; nothing answers any of them.
    wire.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#);
    wire.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#);
    wire.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
    assert!(wire.take().is_empty());
    // The session serves on, and the id is free again.
    wire.send(&call(7, "echo", ""));
    assert_eq!(wire.wait(1).await, [text_result(7, "{}", false)]);
}

/// A body still running after its call was cancelled (a sync body on a blocking thread)
/// sees the cancellation through its context, whether the client cancelled the call or the
/// host cancelled the run, though nothing had asked for the call's token before.
///
/// On a current-thread runtime the body goes to a sync worker: on a multi-threaded one it
/// would run in place and hold the process's one in-place seat for a 2-worker runtime while
/// it waits, which another test expects to find free.
#[tokio::test]
async fn a_running_sync_body_sees_its_call_cancelled() {
    let watched = |f: &Fixture| {
        let until = std::time::Instant::now() + Duration::from_secs(3);
        while !f.dropped.load(Ordering::SeqCst) && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        f.dropped.load(Ordering::SeqCst)
    };
    let f = fixture_of(options(), &[("watch", Behaviour::WatchCancel)]);
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(7, "watch", ""));
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert!(!f.dropped.load(Ordering::SeqCst));
    wire.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#);
    assert!(watched(&f), "the body saw the client's cancellation");
    assert!(wire.take().is_empty(), "a cancelled call is not answered");

    let host = CancellationToken::new();
    let f = fixture_of(options().cancellation(host.clone()), &[("watch", Behaviour::WatchCancel)]);
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(8, "watch", ""));
    tokio::time::sleep(Duration::from_millis(30)).await;
    host.cancel();
    assert!(watched(&f), "the body saw the host's cancellation");
}

#[tokio::test]
async fn progress_goes_out_only_with_a_token_increasing_and_before_the_response() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(1, "progress", r#","_meta":{"progressToken":"tok"}"#));
    let progress = |n: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"tok","progress":{n},"total":3}}}}"#
        )
    };
    assert_eq!(wire.wait(4).await, [progress(1), progress(2), progress(3), text_result(1, "done 3", false)]);
    wire.send(&call(2, "progress", ""));
    assert_eq!(wire.wait(1).await, [text_result(2, "done 3", false)]);
    // A token that is neither a string nor an integer is no token.
    wire.send(&call(3, "progress", r#","_meta":{"progressToken":1.5}"#));
    assert_eq!(wire.wait(1).await, [text_result(3, "done 3", false)]);
}

#[tokio::test]
async fn a_full_in_flight_bound_queues_calls_but_never_ping() {
    let f = fixture(options().max_in_flight(1));
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(1, "forever", ""));
    wire.send(&call(2, "echo", ""));
    assert_eq!(
        wire.ask(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#),
        r#"{"jsonrpc":"2.0","id":3,"result":{}}"#
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(wire.take().is_empty(), "echo waits for the slot");
    wire.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    assert_eq!(wire.wait(1).await, [text_result(2, "{}", false)]);
}

#[tokio::test]
async fn bad_messages_get_exact_errors_and_notifications_get_nothing() {
    let f = fixture(options().max_message_size(256));
    let wire = Wire::new(&f.server);
    let cases = [
        (
            "{",
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: EOF while parsing an object at column 1"}}"#,
        ),
        (
            "[]",
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: JSON-RPC batches are only allowed in a session that negotiated 2025-03-26; send each message on its own"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the request id must not be null"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the request id must be a string or an integer, got a number with a fraction or an exponent"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params for 'ping': params must be an object, got an array"}}"#,
        ),
    ];
    for (sent, want) in cases {
        assert_eq!(wire.ask(sent), want, "for {sent}");
    }
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#, "y".repeat(300));
    assert_eq!(
        wire.ask(&big),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the message is over the 256-byte limit and was discarded"}}"#
    );
    for quiet in
        ["", "   ", r#"{"jsonrpc":"2.0","method":"no/such"}"#, r#"{"jsonrpc":"2.0","id":99,"result":{}}"#]
    {
        wire.send(quiet);
    }
    assert!(wire.take().is_empty());
    wire.session.handle_bytes(b"\xff\xfe", &wire.sink);
    assert_eq!(
        wire.take(),
        [
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: the message is not UTF-8 (invalid utf-8 sequence of 1 bytes from index 0)"}}"#
        ]
    );
}

#[tokio::test]
async fn batches_are_answered_as_one_array_in_2025_03_26_only() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    assert_eq!(
        wire.ask(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not part of MCP 2025-11-25; send each message on its own"}}"#
    );
    let wire = Wire::new(&f.server);
    wire.initialize("2025-03-26");
    wire.send(&format!(
        r#"[{},{{"jsonrpc":"2.0","id":2,"method":"ping"}},{{"jsonrpc":"2.0","method":"notifications/x"}},5,{{"jsonrpc":"2.0","id":3,"method":"initialize","params":{{}}}}]"#,
        call(1, "echo", "")
    ));
    let got = wire.wait(1).await;
    assert_eq!(
        got,
        [concat!(
            r#"[{"jsonrpc":"2.0","id":2,"result":{}},"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: a batch element must be a JSON object, got a number"}},"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: `initialize` must not be part of a batch"}},"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{}"}],"isError":false}}]"#
        )]
    );
    assert_eq!(
        wire.ask("[]"),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request: the batch is empty"}}"#
    );
    // A batch of notifications only is answered with nothing.
    wire.send(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#);
    assert!(wire.take().is_empty());
}

#[tokio::test]
async fn drain_answers_what_finishes_and_drops_the_rest() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    wire.send(&call(1, "forever", ""));
    wire.send(&call(2, "echo", ""));
    wire.session.drain(Duration::from_millis(50)).await;
    assert_eq!(wire.take(), [text_result(2, "{}", false)]);
    assert_eq!(wire.session.in_flight(), 0);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(wire.take().is_empty(), "the dropped call never answers");
}

#[tokio::test]
async fn the_server_can_ping_a_legacy_client() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    assert_eq!(
        wire.session.ping(&wire.sink, Duration::from_millis(10)).await,
        Err(super::PingError::NotInitialized)
    );
    wire.initialize("2025-11-25");
    let session = wire.session.clone();
    let sink = wire.sink.clone();
    let pinger = tokio::spawn(async move { session.ping(&sink, Duration::from_secs(5)).await });
    assert_eq!(wire.wait(1).await, [r#"{"jsonrpc":"2.0","id":"toolwire-ping-1","method":"ping"}"#]);
    wire.send(r#"{"jsonrpc":"2.0","id":"toolwire-ping-1","result":{}}"#);
    assert!(pinger.await.unwrap().is_ok());
    let timed_out = wire.session.ping(&wire.sink, Duration::from_millis(20)).await;
    assert_eq!(timed_out, Err(super::PingError::TimedOut(Duration::from_millis(20))));
}

/// What the stdio reader thread does: on a current-thread runtime, a call that completes on
/// its first poll is answered before `handle` returns; one that waits is spawned, and is
/// cancelled, aborted and drained like any other.
#[tokio::test(flavor = "current_thread")]
async fn calls_polled_inline_answer_at_once_and_the_rest_are_spawned() {
    let f = fixture(options());
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    let inline = |line: &str| wire.send_polled(line, super::Inline::Reader);

    inline(&call(1, "echo", ""));
    assert_eq!(wire.take(), [text_result(1, "{}", false)], "answered without yielding to the runtime");
    assert_eq!(wire.session.in_flight(), 0);
    inline(&call(2, "panic", ""));
    let got = wire.take();
    assert!(got.len() == 1 && got[0].contains("panicked: boom"), "{got:?}");

    // Progress yields between reports: the rest of the call runs as a task, in order.
    inline(&call(3, "progress", r#","_meta":{"progressToken":"tok"}"#));
    let got = wire.wait(4).await;
    assert!(got[..3].iter().all(|m| m.contains("notifications/progress")), "{got:?}");
    assert_eq!(got[3], text_result(3, "done 3", false));

    inline(&call(4, "forever", ""));
    assert_eq!(wire.session.in_flight(), 1);
    assert_eq!(
        wire.ask(&call(4, "echo", "")),
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"invalid request: request id 4 is already in use by a call in flight"}}"#
    );
    inline(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#);
    assert_eq!(wire.session.in_flight(), 0);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(f.dropped.load(Ordering::SeqCst), "the spawned call was aborted");
    assert!(wire.take().is_empty());
    // Not polled inline, nothing changes: the call is a task.
    wire.send(&call(5, "echo", ""));
    assert!(wire.take().is_empty());
    assert_eq!(wire.wait(1).await, [text_result(5, "{}", false)]);
}

/// What the HTTP handler does: on any runtime, a call that completes on its first poll is
/// answered before `handle` returns. A sync body is held back from that poll, and runs in
/// the spawned task, whenever something could answer for its call while it runs (a client's
/// cancellation in a session that outlives the request, the deadline, the host): it can
/// never block the handler that carries that answer. With nothing of the kind (a stateless
/// request, default options), it runs in the handler's poll.
#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_polled_in_the_handler_answer_at_once_and_sync_bodies_wait_for_their_task() {
    // This test's thread is no runtime worker: a sync body polled here, not held back,
    // runs in place right here (a seat is free on a 2-worker runtime).
    let here = std::thread::current().name().unwrap_or("unnamed").to_owned();
    let ran_here = format!(r#"{{"type":"text","text":"{here}"}}"#);
    let tools = [("echo", Behaviour::Echo), ("sync", Behaviour::Sync)];

    // A session that outlives the request (its client may cancel the call): held back.
    let f = fixture_of(options(), &tools);
    let wire = Wire::new(&f.server);
    wire.initialize("2025-11-25");
    let in_handler = |line: &str| wire.send_polled(line, super::Inline::Handler);
    in_handler(&call(1, "echo", ""));
    assert_eq!(wire.take(), [text_result(1, "{}", false)], "answered in the handler's poll");
    assert_eq!(wire.session.in_flight(), 0);
    // (Whether the answer is out when `in_handler` returns is a race with the other worker,
    // which may run the spawned task at once; the thread the body ran on is not.)
    in_handler(&call(2, "sync", ""));
    let got = wire.wait(1).await;
    assert!(got[0].starts_with(r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"#), "{got:?}");
    assert!(!got[0].contains(&ran_here), "ran on the handler's thread: {got:?}");
    // Not polled in the handler, a call on a multi-threaded runtime is a task.
    wire.send(&call(3, "echo", ""));
    assert_eq!(wire.wait(1).await, [text_result(3, "{}", false)]);

    // A session for this request alone (stateless HTTP), default options: nothing could
    // answer for the call meanwhile, so the body runs in the handler's poll, and is answered
    // before it returns.
    let one_shot = Wire::new(&f.server);
    one_shot.initialize("2025-11-25");
    one_shot.session.inner.asking.set_one_shot();
    one_shot.send_polled(&call(4, "sync", ""), super::Inline::Handler);
    let got = one_shot.take();
    assert_eq!(got.len(), 1, "answered in the handler's poll: {got:?}");
    assert!(got[0].contains(&ran_here), "ran on the handler's thread: {got:?}");

    // The same with a deadline (or a host cancellation): held back, since the deadline's
    // answer must go out while the body runs.
    let timed = [
        options().deadline(Some(Duration::from_secs(30))),
        options().cancellation(tokio_util::sync::CancellationToken::new()),
    ];
    for (i, options) in timed.into_iter().enumerate() {
        let f = fixture_of(options, &tools);
        let one_shot = Wire::new(&f.server);
        one_shot.initialize("2025-11-25");
        one_shot.session.inner.asking.set_one_shot();
        one_shot.send_polled(&call(5, "sync", ""), super::Inline::Handler);
        let got = one_shot.wait(1).await;
        assert!(!got[0].contains(&ran_here), "options {i}: ran on the handler's thread: {got:?}");
    }
}

#[cfg(feature = "tower")]
mod layer;
mod live;
mod resources;
