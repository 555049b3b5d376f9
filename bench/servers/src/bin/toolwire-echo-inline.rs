//! toolwire's stdio server with one sync tool marked `#[tool(inline)]`, `echo(text)`: the
//! body runs on the thread that polls the call (the stdin reader), as an async body that does
//! not wait does. Measured beside `toolwire-echo-sync` (the default sync path) and the async
//! `toolwire-echo`.

/// Echo the text back.
#[toolwire::tool(read_only, inline)]
fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-echo-inline", tools = [echo]);
}
