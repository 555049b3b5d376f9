//! A server binary whose whole `main` is `serve_registry!`, with one slow tool, for the drain
//! of the `--http` main (`tests/tests/cluster.rs`): `slow(ms)` sleeps `ms` milliseconds, then
//! returns `slept <ms> ms`.

use std::time::Duration;

use toolwire::{serve_registry, tool};

/// Sleep, then say so.
#[tool(read_only)]
async fn slow(
    /// How long to sleep, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

fn main() {
    serve_registry!(name = "drain-main", tools = [slow])
}
