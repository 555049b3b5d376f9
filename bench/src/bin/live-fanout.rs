//! A live server (`ServerBuilder::live`) with 1,000 tools and 100 sessions: add one tool, or
//! remove it, and time until every session has its `notifications/tools/list_changed`.
//!
//! Each session is an engine `Session` with an open 2026-07-28 `subscriptions/listen`
//! (`toolsListChanged`), whose sink hands each message to that session's own task over a
//! channel (as the stdio writer and the HTTP outbox do); the clock runs from just before
//! `add_tool`/`remove_tool` to the moment the last of the 100 tasks has received its
//! notification. So a figure covers rebuilding the 1,000-tool listing, the swap, the
//! fan-out and one task hop per session; not the transport's write.
//!
//!     live-fanout [--reps N] [--tools N] [--sessions N]
//!
//! Prints one line: `bench kind=live-fanout tools=.. sessions=.. reps=.. p50_us=.. p90_us=..
//! max_us=..` (each repetition is one add or one remove, alternating).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use tokio::sync::{Notify, mpsc};
use toolwire::protocol::Outbound;
use toolwire::schema::Schema;
use toolwire::server::Sink;
use toolwire::tool::{Declarations, ToolFuture, ToolInfo, ToolOutput};
use toolwire::{Context, Server, ServerOptions, Tool, ToolRegistry};
use toolwire_bench::stats::percentile_sorted;

/// A tool that echoes nothing in particular; only its listing matters here.
struct Plain(ToolInfo);

impl Tool for Plain {
    fn info(&self) -> &ToolInfo {
        &self.0
    }
    fn call<'a>(&'a self, _args: &'a RawValue, _ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async { Ok(ToolOutput::text("ok")) })
    }
}

fn plain(name: String) -> Plain {
    let schema = Schema::from_value(serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text."}},
        "required": ["text"],
        "additionalProperties": false
    }));
    Plain(ToolInfo::new(name, "Echo the text back.", schema).with_declarations(Declarations::read_only()))
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name} takes a number, got {v:?}")))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps = arg(&args, "--reps", 200);
    let tools = arg(&args, "--tools", 1000);
    let sessions = arg(&args, "--sessions", 100);

    let mut registry = ToolRegistry::new();
    for i in 0..tools {
        registry.register(plain(format!("tool_{i}"))).expect("distinct names");
    }
    // An open listen holds one of the in-flight slots, so there must be a slot per session.
    let options = ServerOptions::new("live-fanout", "0.1.0").max_in_flight(sessions + 16);
    let server = Server::builder(options).tools(registry).live().build();

    // Each session's sink sends to its task; a task counts its list_changed in its own slot
    // of `heard`. Rep r is over once every session has heard r + 1 of them (`round`): a count
    // per session, so a late or a second notice can never stand in for another session's.
    let heard: Arc<Vec<AtomicUsize>> = Arc::new((0..sessions).map(|_| AtomicUsize::new(0)).collect());
    let round = Arc::new(AtomicUsize::new(0));
    let signalled = Arc::new(AtomicUsize::new(0));
    let all_heard = Arc::new(Notify::new());
    let mut kept = Vec::new();
    for i in 0..sessions {
        let (tx, mut rx) = mpsc::unbounded_channel::<Outbound>();
        let sink: Arc<dyn Sink> = Arc::new(move |m: Outbound| {
            let _ = tx.send(m);
        });
        let session = server.session();
        session.handle(
            &format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"subscriptions/listen","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}},"notifications":{{"toolsListChanged":true}}}}}}"#
            ),
            &sink,
        );
        let first = rx.recv().await.expect("the acknowledgment");
        assert!(first.as_str().contains("notifications/subscriptions/acknowledged"), "{}", first.as_str());
        let (heard, round, signalled, all_heard) =
            (heard.clone(), round.clone(), signalled.clone(), all_heard.clone());
        tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if !m.as_str().contains("notifications/tools/list_changed") {
                    continue;
                }
                heard[i].fetch_add(1, Ordering::AcqRel);
                let target = round.load(Ordering::Acquire);
                // The last session to reach the round's count wakes the bench, once a round.
                if target > 0
                    && heard.iter().all(|c| c.load(Ordering::Acquire) >= target)
                    && signalled
                        .compare_exchange(target - 1, target, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    all_heard.notify_one();
                }
            }
        });
        kept.push((session, sink));
    }

    let mut samples = Vec::with_capacity(reps);
    for rep in 0..reps {
        round.store(rep + 1, Ordering::Release);
        let waiting = all_heard.notified();
        let start = Instant::now();
        if rep % 2 == 0 {
            server.add_tool(plain("added".to_owned())).expect("a new tool");
        } else {
            assert!(server.remove_tool("added").expect("a live server"));
        }
        if tokio::time::timeout(Duration::from_secs(10), waiting).await.is_err() {
            let behind: Vec<(usize, usize)> = heard
                .iter()
                .map(|c| c.load(Ordering::Acquire))
                .enumerate()
                .filter(|&(_, n)| n < rep + 1)
                .collect();
            panic!(
                "rep {rep}: not every session heard of it within 10 s; sessions behind (session, notices heard) of {}: {behind:?}",
                rep + 1
            );
        }
        samples.push(start.elapsed().as_micros() as u64);
    }
    samples.sort_unstable();
    println!(
        "bench kind=live-fanout tools={tools} sessions={sessions} reps={reps} p50_us={} p90_us={} max_us={}",
        percentile_sorted(&samples, 50.0),
        percentile_sorted(&samples, 90.0),
        samples.last().copied().unwrap_or(0)
    );
    drop(kept);
}
