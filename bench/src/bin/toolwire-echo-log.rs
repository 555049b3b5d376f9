//! `toolwire-echo` with one filtered log line per call: `echo(text)` also calls
//! `ctx.log(Debug, text)`, below the session's default level (`info`), so nothing is sent.
//! bench/instructions.sh compares it with `toolwire-echo`: the difference is what a filtered
//! log costs (the brief: within 10% of a call that does not log).

use toolwire::Context;
use toolwire::protocol::LoggingLevel;

/// Echo the text back, logging it at debug.
#[toolwire::tool(read_only)]
async fn echo(
    ctx: &Context,
    /// The text to send back.
    text: String,
) -> String {
    ctx.log(LoggingLevel::Debug, &text);
    text
}

fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-echo", tools = [echo]);
}
