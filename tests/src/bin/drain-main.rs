//! A server binary whose whole `main` is `serve_registry!`, with one slow tool, for the drain
//! of the `--http` main (`tests/tests/cluster.rs`): `slow(ms)` sleeps `ms` milliseconds, then
//! returns `slept <ms> ms`. It serves one resource, `test://drain-note`, so that it serves
//! 2026-07-28 `subscriptions/listen` too (`tests/tests/http_drain_streams.rs`).

use std::time::Duration;

use toolwire::{resource, serve_registry, tool};

/// Sleep, then say so.
#[tool(read_only)]
async fn slow(
    /// How long to sleep, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// A fixed note.
#[resource(uri = "test://drain-note", name = "note", mime_type = "text/plain")]
fn note() -> &'static str {
    "a note"
}

fn main() {
    serve_registry!(name = "drain-main", tools = [slow], resources = [note])
}
