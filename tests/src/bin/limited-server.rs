//! A stdio MCP server with a rate limit, for tests/tests/auth_limits.rs: the tool
//! `echo(text)`, and `RateLimit::per_hour(N)` for its one principal, the host, where N is
//! `--limit N` (default 3). Over the limit a request is answered with the JSON-RPC error
//! -32029 carrying `data.retryAfterMs`.

use std::num::NonZeroU32;

use toolwire::server::RateLimit;
use toolwire::{Server, ServerOptions, tool, tools};

/// Echo the text back.
#[tool(read_only)]
fn echo(
    /// The text to echo.
    text: String,
) -> String {
    text
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit = args
        .iter()
        .position(|a| a == "--limit")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse::<NonZeroU32>().expect("--limit takes a positive integer"))
        .unwrap_or(NonZeroU32::new(3).expect("3 is not 0"));
    let server = Server::builder(ServerOptions::new("limited-server", "0.1.0"))
        .tools(tools![echo].expect("one tool"))
        .rate_limit(RateLimit::per_hour(limit))
        .build();
    if let Err(e) = toolwire::stdio::serve(server, toolwire::stdio::StdioConfig::new()).await {
        eprintln!("limited-server: {e}");
        std::process::exit(1);
    }
}
