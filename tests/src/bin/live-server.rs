//! A live MCP server (`ServerBuilder::live`) for tests/tests/live_registry.rs, over stdio or,
//! with `--http`, over loopback streamable HTTP (no auth; it prints `url <URL>` on stdout,
//! then serves until killed). Its tools change its own tool set, so a client can watch the
//! `notifications/tools/list_changed` they cause:
//!
//! - `grow()`: add the tool `extra`; returns `added extra` (or the refusal's text);
//! - `shrink(name)`: remove the tool `name`; returns `removed <name>` or `no tool <name>`;
//! - `extra(text)`: returns `extra: <text>` (served only once `grow` has run);
//! - `slow(ms)`: sleeps `ms` milliseconds, then returns `slow done` (to be removed mid-call);
//! - `touch(uri)`: `Server::notify_resource_updated(uri)`; returns `told <n>`;
//!
//! and one resource, `test://live` (text/plain, `live`).

use std::sync::OnceLock;
use std::time::Duration;

use toolwire::http::{Auth, HttpConfig, mcp_router};
use toolwire::{Server, ServerOptions, resource, resources, tool, tools};

static SERVER: OnceLock<Server> = OnceLock::new();

fn server() -> &'static Server {
    SERVER.get().expect("the server is set before it serves")
}

/// Add the tool `extra`.
#[tool(side_effecting)]
fn grow() -> String {
    match server().add_tool(extra {}) {
        Ok(()) => "added extra".to_owned(),
        Err(e) => e.to_string(),
    }
}

/// Remove the tool `name`.
#[tool(side_effecting)]
fn shrink(
    /// The tool to remove.
    name: String,
) -> String {
    match server().remove_tool(&name) {
        Ok(true) => format!("removed {name}"),
        Ok(false) => format!("no tool {name}"),
        Err(e) => e.to_string(),
    }
}

/// Echo the text, from a tool added while serving.
#[tool(read_only)]
fn extra(
    /// The text.
    text: String,
) -> String {
    format!("extra: {text}")
}

/// Sleep, then answer.
#[tool(read_only)]
async fn slow(
    /// How long to sleep, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "slow done".to_owned()
}

/// Tell the subscribers of `uri` that it changed.
#[tool(read_only)]
fn touch(
    /// The resource URI.
    uri: String,
) -> String {
    format!("told {}", server().notify_resource_updated(&uri))
}

/// A live resource.
#[resource(uri = "test://live", name = "live", mime_type = "text/plain")]
fn live() -> &'static str {
    "live"
}

#[tokio::main]
async fn main() {
    let built = Server::builder(ServerOptions::new("live-server", "0.1.0"))
        .tools(tools![grow, shrink, slow, touch].expect("distinct tools"))
        .resources(resources![live].expect("one resource"))
        .live()
        .build();
    let _ = SERVER.set(built.clone());
    if std::env::args().any(|a| a == "--http") {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("the bound address");
        println!("url http://{addr}/mcp");
        let app = mcp_router(built, HttpConfig::new(Auth::None));
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("live-server: {e}");
            std::process::exit(1);
        }
    } else if let Err(e) = toolwire::stdio::serve(built, toolwire::stdio::StdioConfig::new()).await {
        eprintln!("live-server: {e}");
        std::process::exit(1);
    }
}
