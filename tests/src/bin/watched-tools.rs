//! A server whose interceptor watches every `tools/call` but `unwatched_sync` with a watch
//! whose `enter` makes `watch of <tool>` current in a thread-local (a stand-in for a tracing
//! span or a telemetry context), for tests/tests/intercept.rs. Each `seen_*` tool answers
//! `<what is current> on <its thread>`, from wherever its body runs:
//!
//! - `seen_async`: an async body, polled inside the call's own poll;
//! - `seen_sync`: a sync body, which this server's runtime (one worker: no seat for a body in
//!   place) hands to a sync worker, or to tokio's blocking pool while `sleepy` bodies hold
//!   the sync workers;
//! - `seen_local`, `seen_local_sync`: `#[tool(local)]` bodies (one holding an `Rc` across an
//!   await, one sync), on a local thread;
//! - `unwatched_sync`: a sync body nobody watches, on the same sync workers: nothing is
//!   current there once a watched body returned.
//!
//! `sleepy` sleeps `ms` milliseconds (a sync body holding its thread). Served over stdio.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use toolwire::server::{Entered, Intercepted, Outcome, Ruling, Server, Watch};
use toolwire::{ServerOptions, tool, tools};

thread_local! {
    /// What a watch made current on this thread.
    static CURRENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// `<what is current> on <this thread>`.
fn seen() -> String {
    let current = CURRENT.with(|c| c.borrow().clone()).unwrap_or_else(|| "nothing".to_owned());
    format!("{current} on {}", std::thread::current().name().unwrap_or("unnamed"))
}

/// An async body.
#[tool(read_only)]
async fn seen_async() -> String {
    tokio::task::yield_now().await;
    seen()
}

/// A sync body.
#[tool(read_only)]
fn seen_sync() -> String {
    seen()
}

/// A sync body nobody watches.
#[tool(read_only)]
fn unwatched_sync() -> String {
    seen()
}

/// A `local` body holding an `Rc` across an await: what is current at its second poll.
#[tool(read_only, local)]
async fn seen_local() -> String {
    let held = Rc::new(());
    tokio::task::yield_now().await;
    let seen = seen();
    drop(held);
    seen
}

/// A sync `local` body.
#[tool(read_only, local)]
fn seen_local_sync() -> String {
    seen()
}

/// Sleep `ms` milliseconds, holding the thread.
#[tool(read_only)]
fn sleepy(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("slept {ms} ms")
}

/// Makes `watch of <tool>` current while entered.
struct Current(String);

/// Puts back what was current before.
struct Restore(Option<String>);

impl Drop for Restore {
    fn drop(&mut self) {
        let before = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = before);
    }
}

impl Watch for Current {
    fn enter(&self) -> Option<Entered> {
        let before = CURRENT.with(|c| c.borrow_mut().replace(self.0.clone()));
        Some(Box::new(Restore(before)))
    }

    fn finished(self: Box<Self>, _outcome: Outcome<'_>) {}
}

fn main() {
    let server = Server::builder(ServerOptions::new("watched-tools", "1.0.0"))
        .tools(
            tools![seen_async, seen_sync, unwatched_sync, seen_local, seen_local_sync, sleepy]
                .expect("the tools"),
        )
        .intercept(|request: &Intercepted<'_>| match (request.method(), request.name()) {
            ("tools/call", Some(name)) if name != "unwatched_sync" => {
                Ruling::watch(Current(format!("watch of {name}")))
            }
            _ => Ruling::Pass,
        })
        .build();
    // One worker: a sync body never runs in place on it (a worker must be left to serve the
    // rest), so every one is handed to another thread.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(e) = runtime.block_on(toolwire::serve_stdio(server, toolwire::stdio::StdioConfig::new())) {
        eprintln!("watched-tools: {e}");
        std::process::exit(1);
    }
}
