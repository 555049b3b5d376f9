//! The intercepted demo server (`toolwire_examples::intercept_demo`) over stdio: an
//! interceptor that refuses `deploy` and answers `canned`, and a tool that reads its request.
//! On exit it prints what the interceptor's watch saw to stderr
//! (`intercepted: watched N requests, M failed`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use toolwire_examples::intercept_demo::{Seen, server};

fn main() {
    let seen = Arc::new(Seen::default());
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let served =
        runtime.block_on(toolwire::serve_stdio(server(seen.clone()), toolwire::stdio::StdioConfig::new()));
    eprintln!(
        "intercepted: watched {} requests, {} failed",
        seen.finished.load(Ordering::SeqCst),
        seen.failed.load(Ordering::SeqCst)
    );
    if let Err(e) = served {
        eprintln!("intercepted: {e}");
        std::process::exit(1);
    }
}
