//! A server binary whose whole `main` is `serve_registry!(server = ..)`: a `Server` built in
//! code (live, with a tool added after it was built, and a rate limit), served by the main
//! over stdio or `--http`, for tests/tests/serve_surface.rs.

use std::num::NonZeroU32;

use toolwire::registry::RegistryError;
use toolwire::server::RateLimit;
use toolwire::{Server, ServerOptions, tool, tools};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// Say the text louder.
#[tool(read_only)]
fn shout(text: String) -> String {
    text.to_uppercase()
}

/// What the lists of `serve_registry!` cannot say: a live server, changed after it was
/// built, under a rate limit.
fn build() -> Result<Server, RegistryError> {
    let server = Server::builder(ServerOptions::new("built-in-code", "2.0.0").instructions("Built in code."))
        .tools(tools![echo]?)
        .rate_limit(RateLimit::per_second(NonZeroU32::new(1000).expect("not zero")))
        .live()
        .build();
    server.add_tool(shout {}).expect("a live server takes a new tool");
    Ok(server)
}

fn main() {
    toolwire::serve_registry!(server = build());
}
