//! The two echo tools toolwire's HTTP bench servers share: `echo(text)`, an async
//! `#[toolwire::tool]` fn, and `echo_sync(text)`, the same echo as a sync fn (the README's
//! style), so the servers that measure them serve the same tools.
//!
//! Included by `src/bin/toolwire-http.rs` and `src/bin/toolwire-http-main.rs` with `#[path]`.

/// Echo the text back.
#[toolwire::tool(read_only)]
pub(crate) async fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Echo the text back, from a sync fn.
#[toolwire::tool(read_only)]
pub(crate) fn echo_sync(
    /// The text to send back.
    text: String,
) -> String {
    text
}
