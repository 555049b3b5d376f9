//! A server of sync `#[tool] fn`s that misbehave, for tests/tests/sync_tools.rs: `fast`
//! echoes at once, `whereabouts` names the thread its body runs on, `reporting`
//! reports progress twice 500 ms apart, `sleepy` sleeps 2 s, `stuck` never returns, `boom` panics, and so does `boom_inline`, a body marked
//! `#[tool(inline)]`. Served by
//! `serve_registry!`, so it takes the usual flags (`--deadline`, `--http`, ...).

use std::time::Duration;

/// Echo the text back at once.
#[toolwire::tool(read_only)]
fn fast(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// The name of the thread this body runs on.
#[toolwire::tool(read_only)]
fn whereabouts() -> String {
    std::thread::current().name().unwrap_or("unnamed").to_owned()
}

/// Report progress 1, sleep 500 ms, report progress 2, sleep 500 ms, then say so.
#[toolwire::tool(read_only)]
fn reporting(ctx: &toolwire::Context) -> String {
    ctx.report_progress(1.0, Some(2.0), None);
    std::thread::sleep(Duration::from_millis(500));
    ctx.report_progress(2.0, Some(2.0), None);
    std::thread::sleep(Duration::from_millis(500));
    "reported".to_owned()
}

/// Sleep for two seconds (a sync body that blocks its thread), then say so.
#[toolwire::tool(read_only)]
fn sleepy() -> String {
    std::thread::sleep(Duration::from_secs(2));
    "slept 2 s".to_owned()
}

/// Never return: a sync body stuck in a loop that sleeps.
#[toolwire::tool(read_only)]
fn stuck() -> String {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Panic with a fixed message.
#[toolwire::tool(read_only)]
fn boom() -> String {
    panic!("the sync body gave up")
}

/// Panic with a fixed message, from a body marked `inline` (run where the call is polled).
#[toolwire::tool(read_only, inline)]
fn boom_inline() -> String {
    panic!("the inline body gave up")
}

fn main() {
    toolwire::serve_registry!(
        name = "sync-tools",
        tools = [fast, whereabouts, reporting, sleepy, stuck, boom, boom_inline]
    );
}
