//! `toolwire-echo` built with toolwire's `multi-thread` feature, so its `serve_registry!`
//! main takes `--worker-threads N` (run.sh's `toolwire-mt` row: every call spawned onto a
//! worker of a multi-threaded runtime). A binary of its own, built on its own: `toolwire-echo`
//! is built as a tools-only crate is, without the multi-threaded runtime (and so without
//! libm). The same tool and the same main as `toolwire-echo`.

/// Echo the text back.
#[toolwire::tool(read_only)]
async fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-echo", tools = [echo]);
}
