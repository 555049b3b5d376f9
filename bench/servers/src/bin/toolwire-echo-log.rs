//! `toolwire-echo` with ten filtered log lines per call: `echo(text)` also calls
//! `ctx.log(Debug, text)` ten times, below the session's default level (`info`), so nothing is
//! sent. bench/instructions.sh compares it with `toolwire-echo`: the difference is what ten
//! filtered logs cost (issue 12: within 10% of a call that does not log, because filtering
//! happens before anything is serialised).

use toolwire::Context;
use toolwire::protocol::LoggingLevel;

/// Echo the text back, logging it ten times at debug.
#[toolwire::tool(read_only)]
async fn echo(
    ctx: &Context,
    /// The text to send back.
    text: String,
) -> String {
    for _ in 0..10 {
        ctx.log(LoggingLevel::Debug, &text);
    }
    text
}

fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-echo", tools = [echo]);
}
