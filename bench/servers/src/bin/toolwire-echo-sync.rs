//! toolwire's stdio server with one *sync* tool, `echo(text)`, as in toolwire's README: the
//! body runs on tokio's blocking pool. Measured beside the async `toolwire-echo` to show what
//! that hop costs; it is not one of the goals.

/// Echo the text back.
#[toolwire::tool(read_only)]
fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-echo-sync", tools = [echo]);
}
