//! The talking tools (`toolwire_examples::talk_tools`) as a stdio MCP server.
//!
//! ```text
//! talk-back [--ask-timeout-ms N] [--forward-tracing]
//! ```
//!
//! `--forward-tracing` forwards the tools' `tracing` events to the client
//! (`ServerOptions::forward_tracing`).
//! `--ask-timeout-ms` sets how long a call waits for the client to answer what it asked
//! (`ServerOptions::client_request_timeout`; default five minutes).

use std::time::Duration;

use toolwire::ServerOptions;

fn main() {
    let mut options = ServerOptions::new("toolwire-talk-back", env!("CARGO_PKG_VERSION"));
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--forward-tracing" {
            options = options.forward_tracing(true);
            continue;
        }
        match (arg.as_str(), args.next().and_then(|v| v.parse::<u64>().ok())) {
            ("--ask-timeout-ms", Some(ms)) => {
                options = options.client_request_timeout(Duration::from_millis(ms))
            }
            _ => {
                eprintln!("usage: talk-back [--ask-timeout-ms N] [--forward-tracing]");
                std::process::exit(2);
            }
        }
    }
    let registry = toolwire_examples::talk_tools::registry().expect("the talking tools have unique names");
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    if let Err(e) = runtime.block_on(toolwire::serve_stdio(
        toolwire::Server::new(registry, options),
        toolwire::stdio::StdioConfig::new(),
    )) {
        eprintln!("talk-back: {e}");
        std::process::exit(1);
    }
}
