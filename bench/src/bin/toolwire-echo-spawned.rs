//! An experiment, not one of the cases: toolwire's echo server with the serving loop
//! spawned onto a tokio worker (`runtime.block_on(tokio::spawn(serve))`) instead of running
//! inside `block_on` on the main thread, as `serve_registry!`'s main does today. The spawned
//! call then starts on the same worker, which saves a thread wake-up per request. Built with
//! toolwire's public API only (`serve_registry_stdio`).

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
    let options = ServerOptions::builder("toolwire-bench-echo-spawned", env!("CARGO_PKG_VERSION")).build();
    let registry = tools![echo].expect("one tool");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a tokio runtime");
    let served = runtime.block_on(async { tokio::spawn(serve_registry_stdio(registry, options)).await });
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match served {
        Ok(Ok(())) => std::process::exit(0),
        Ok(Err(e)) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
        Err(e) => {
            eprintln!("the serving task failed: {e}");
            std::process::exit(1)
        }
    }
}
