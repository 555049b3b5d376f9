//! The README's HTTP server as a user writes it: `serve_registry!` in `main`, run with
//! `--http` (and `--show-token`, so the bench can call it). The same tools as
//! `toolwire-http`: `echo(text)`, async, and `echo_sync(text)`, the README's sync fn. The
//! runtime is whatever `serve_registry!`'s main picks for `--http` (or `--worker-threads N`).
//! `http-bench` reads the lines `--http` prints and stops it with SIGTERM.

/// Echo the text back.
#[toolwire::tool(read_only)]
async fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back, from a sync fn.
#[toolwire::tool(read_only)]
fn echo_sync(
    /// The text to send back.
    text: String,
) -> String {
    text
}

fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-http-main", tools = [echo, echo_sync]);
}
