//! toolwire's stdio server with one tool, `echo(text)`: an async `#[toolwire::tool]` fn
//! served by `serve_registry!`, as toolwire's docs show.

/// Echo the text back.
#[toolwire::tool(read_only)]
async fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

// `pub(crate)`: toolwire-echo-workers runs this same main.
pub(crate) fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-echo", tools = [echo]);
}
