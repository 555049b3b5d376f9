//! toolwire's loopback streamable HTTP server for the HTTP bench: `echo(text)` and
//! `echo_progress(text)` (one progress report, then the text), async `#[toolwire::tool]`
//! fns, and `echo_sync(text)`, the same echo as a sync `#[toolwire::tool] fn` (the README's
//! style), and `echo_inline(text)`, the sync echo marked `#[tool(inline)]`, served by `serve_registry()` with its defaults (a generated bearer token,
//! `TCP_NODELAY`, sessions with a 10-minute idle TTL) unless the flags say otherwise. See
//! `http_args.rs` for the flags and the lines it prints.

use toolwire::http::{Auth, HttpConfig};
use toolwire::spec::SpecOptions;
use toolwire::{Context, tools};
use toolwire::{Server, ServerOptions};

#[path = "../http_args.rs"]
mod http_args;
use http_args::{Mode, ServerArgs};
#[path = "../toolwire_echo.rs"]
mod toolwire_echo;

/// Echo the text back, from a sync fn marked `inline`.
#[toolwire::tool(read_only, inline)]
fn echo_inline(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Report progress once, then echo the text back.
#[toolwire::tool(read_only)]
async fn echo_progress(
    /// The text to send back.
    text: String,
    ctx: &Context,
) -> String {
    ctx.report_progress(1.0, Some(1.0), None);
    text
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = ServerArgs::from_env();
    let registry = tools![toolwire_echo::echo, echo_progress, toolwire_echo::echo_sync, echo_inline]?;
    let stateless = args.mode != Mode::Session;
    if let Some(ttl) = args.session_ttl {
        return serve_with_ttl(registry, ttl).await;
    }
    if let Some(guarded) = args.router {
        return serve_router(registry, guarded).await;
    }
    // The spec's default: a bearer token generated for this run, checked on every request.
    let token = Auth::Bearer(toolwire::http::BearerToken::generate());
    let options = SpecOptions::http().http_config(HttpConfig::new(token).stateless(stateless));
    let server = Server::new(registry, ServerOptions::new("toolwire-bench-http", env!("CARGO_PKG_VERSION")));
    let mut spec = toolwire::serve_registry(server, options)?;
    spec.start()?;
    let auth = spec.auth_headers().get("Authorization").cloned();
    http_args::announce(spec.url().unwrap_or_default(), auth.as_deref());
    http_args::stdin_closed().await;
    spec.stop();
    Ok(())
}

/// `mcp_router` (stateless, JSON answers) on `axum::serve`: bare (no auth, trusted host), or
/// guarded by everything a server for untrusted callers runs per `tools/call`: a
/// `ResourceServer` whose verifier looks the bearer token up (a token table, no JWT
/// signature), a scope required of every request, an `Access` rule on each tool, a rate
/// limit per principal (high enough never to refuse), and `Exposure::untrusted_callers()`.
async fn serve_router(
    registry: toolwire::ToolRegistry,
    guarded: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    use std::num::NonZeroU32;
    use toolwire::http::{Refusal, ResourceServer};
    use toolwire::principal::Principal;
    use toolwire::server::{Access, Exposure, RateLimit, Require};
    use toolwire::{Server, ServerOptions};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let options = ServerOptions::new("toolwire-bench-http", "0.1.0");
    let (router, auth) = if guarded {
        let token = toolwire::spec::BearerToken::generate().expose().to_owned();
        let expected = token.clone();
        let rs = ResourceServer::new(url.clone(), move |t: &str| {
            if t == expected {
                Ok(Principal::new("bench").with_scopes(["mcp", "echo"]))
            } else {
                Err(Refusal::InvalidToken("unknown token".into()))
            }
        })
        .required_scopes(["mcp"]);
        let mut access = Access::new();
        for name in ["echo", "echo_progress", "echo_sync", "echo_inline"] {
            access = access.tool(name, Require::scopes(["echo"]));
        }
        let server = Server::builder(options)
            .tools(registry)
            .authorize(access)
            .rate_limit(RateLimit::per_second(NonZeroU32::MAX))
            .exposure(Exposure::untrusted_callers())
            .build();
        let config = HttpConfig::new(Auth::resource_server(rs)).stateless(true);
        (toolwire::http::mcp_router(server, config), Some(format!("Bearer {token}")))
    } else {
        let server = Server::new(registry, options);
        let config = HttpConfig::new(Auth::None).stateless(true);
        (toolwire::http::mcp_router(server, config), None)
    };
    http_args::announce(&url, auth.as_deref());
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).with_graceful_shutdown(http_args::stdin_closed()).await?;
    Ok(())
}

/// Legacy sessions with a short idle TTL: `mcp_router` on a listener of our own (the
/// memory-per-session case, which also checks that idle sessions end).
async fn serve_with_ttl(
    registry: toolwire::ToolRegistry,
    ttl: std::time::Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    use toolwire::http::{Auth, HttpConfig};
    use toolwire::spec::BearerToken;
    use toolwire::{Server, ServerOptions};
    let token = BearerToken::generate();
    let auth = format!("Bearer {}", token.expose());
    let config = HttpConfig::new(Auth::Bearer(token)).session_idle_ttl(ttl);
    let server = Server::new(registry, ServerOptions::new("toolwire-bench-http", "0.1.0"));
    let router = toolwire::http::mcp_router(server, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    http_args::announce(&url, Some(&auth));
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).with_graceful_shutdown(http_args::stdin_closed()).await?;
    Ok(())
}
