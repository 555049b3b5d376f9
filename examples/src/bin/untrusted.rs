//! A server for callers you do not trust, on toolwire's own listener: JWT access tokens
//! checked against an authorization server's JWKS (the MCP authorization spec's
//! resource-server role), a scope every request needs, a rate limit per caller, and the
//! untrusted exposure (approval-gated tools hidden, failures sanitised, results capped). It
//! needs nothing but toolwire (features `oauth`) and tokio: no `axum`, no `jsonwebtoken`.
//!
//! ```text
//! cargo run -p toolwire-examples --bin untrusted -- --jwks https://auth.example/jwks.json --issuer https://auth.example
//! ```
//!
//! It prints its endpoint URL (the resource a token's audience must name), then serves until
//! stdin closes (or SIGTERM/SIGINT), and drains. `tests/tests/serving_examples.rs` runs it
//! against a real loopback authorization server.

use std::io::Read as _;
use std::num::NonZeroU32;

use toolwire::http::{Algorithm, Auth, Drain, HttpConfig, JwksVerifier, ResourceServer};
use toolwire::server::{Exposure, RateLimit};
use toolwire::{Context, Server, ServerOptions, ToolError, tool, tools};

/// Who is calling, as the token says.
#[tool(read_only)]
fn whoami(ctx: &Context) -> String {
    let caller = ctx.principal();
    format!("{} {:?}", caller.subject(), caller.scopes().collect::<Vec<_>>())
}

/// Read a note.
#[tool(read_only)]
fn read_note(name: String) -> Result<String, String> {
    // An internal failure: its text is logged, never shown to an untrusted caller.
    Err(format!("/var/notes/{name}: permission denied"))
}

/// Delete every note (a person must approve it: hidden from untrusted callers).
#[tool(side_effecting, requires_approval)]
fn purge() -> Result<String, ToolError> {
    Ok("purged".to_owned())
}

/// `--name value` from the command line.
fn flag(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (Some(jwks), Some(issuer)) = (flag("--jwks"), flag("--issuer")) else {
        return Err("usage: untrusted --jwks <JWKS URL> --issuer <issuer>".into());
    };
    let per_minute = NonZeroU32::new(60).expect("60 is not zero");
    let server = Server::builder(ServerOptions::new("untrusted", env!("CARGO_PKG_VERSION")))
        .tools(tools![whoami, read_note, purge]?)
        .rate_limit(RateLimit::per_minute(per_minute))
        .exposure(Exposure::untrusted_callers())
        .build();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let resource = format!("http://{}/mcp", listener.local_addr()?);
    let verifier = JwksVerifier::new(&jwks, resource.clone())?
        .issuer(issuer.clone())
        .algorithms([Algorithm::RS256, Algorithm::ES256]);
    let rs =
        ResourceServer::new(resource.clone(), verifier).authorization_server(issuer).required_scopes(["mcp"]);
    let drain = Drain::new();
    let config = HttpConfig::new(Auth::resource_server(rs)).drain(drain.clone());
    println!("{resource}");

    let end = drain.clone();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        end.begin();
    });
    tokio::spawn(drain.clone().begin_on_signal());
    toolwire::http::serve(listener, server, config).await;
    Ok(())
}
