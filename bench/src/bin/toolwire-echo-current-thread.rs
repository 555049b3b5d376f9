//! An experiment, not one of the cases: toolwire's echo server on a tokio
//! *current-thread* runtime, so the serving loop and every call share one thread (the stdio
//! reader and writer threads remain). Built with toolwire's public API only
//! (`serve_registry_stdio`).

use toolwire::{ServerOptions, serve_registry_stdio, tools};

/// Echo the text back.
#[toolwire::tool(read_only)]
async fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

fn main() {
    let options =
        ServerOptions::builder("toolwire-bench-echo-current-thread", env!("CARGO_PKG_VERSION")).build();
    let registry = tools![echo].expect("one tool");
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    match runtime.block_on(serve_registry_stdio(registry, options)) {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
