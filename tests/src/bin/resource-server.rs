//! An MCP server serving resources (stdio, or loopback HTTP with `--http`: no auth, it prints
//! `url <URL>` on stdout), for tests/tests/resources.rs: fixed text and binary
//! resources, a template, and a `touch` tool that calls `Server::notify_resource_updated` so
//! a client can watch its subscription fire.
//!
//! - `test://static-text`: `This is the content of the static text resource.` (text/plain)
//! - `test://static-binary`: the bytes `0..=255`'s first 4 (`AAECAw==`, image/png)
//! - `test://template/{id}/data`: JSON naming `id` (a `u32`)
//! - `test://tables/{table}/rows/{row}`: `table/row` as text, titled and with an icon; its
//!   `table` completes (sync) by prefix from `orders`, `uploads`, `users`, and its `row`
//!   (async) from the table already filled in: `1`..=`150` for `orders`, `1`, `2`, `10` for
//!   `users`, nothing otherwise
//! - `touch(uri)`: notify `uri`'s subscribers; returns how many were told

use std::sync::OnceLock;

use toolwire::complete::{CompletionRequest, prefix_matches};
use toolwire::{Json, Server, ServerOptions, resource, resources, tool, tools};

/// A static text resource.
#[resource(uri = "test://static-text", name = "static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource.
#[resource(uri = "test://static-binary", name = "static-binary", mime_type = "image/png")]
fn static_binary() -> Vec<u8> {
    vec![0, 1, 2, 3]
}

/// A resource template with one numeric parameter.
#[resource(template = "test://template/{id}/data", name = "template", mime_type = "application/json")]
fn template(id: u32) -> Json<serde_json::Value> {
    Json(serde_json::json!({"id": id, "templateTest": true}))
}

/// One row of a table.
#[resource(
    template = "test://tables/{table}/rows/{row}",
    name = "row",
    title = "Table row",
    icon(src = "https://example.com/row.svg", mime_type = "image/svg+xml", sizes = ["any"]),
    complete(table = complete_table, row = complete_row)
)]
fn table_row(table: String, row: u32) -> String {
    format!("{table}/{row}")
}

fn complete_table(request: CompletionRequest) -> Vec<String> {
    prefix_matches(&["orders", "uploads", "users"], &request.value)
}

async fn complete_row(request: CompletionRequest) -> Vec<String> {
    let rows: Vec<String> = match request.filled("table") {
        Some("orders") => (1..=150).map(|i| i.to_string()).collect(),
        Some("users") => ["1", "2", "10"].map(String::from).to_vec(),
        _ => Vec::new(),
    };
    prefix_matches(&rows, &request.value)
}

static SERVER: OnceLock<Server> = OnceLock::new();

/// Tell the subscribers of `uri` that it changed.
#[tool(read_only)]
fn touch(
    /// The resource URI.
    uri: String,
) -> String {
    let told = SERVER.get().map_or(0, |s| s.notify_resource_updated(&uri));
    format!("told {told}")
}

#[tokio::main]
async fn main() {
    let server = Server::builder(ServerOptions::new("resource-server", "0.1.0"))
        .tools(tools![touch].expect("one tool"))
        .resources(resources![static_text, static_binary, template, table_row].expect("distinct URIs"))
        .build();
    let _ = SERVER.set(server.clone());
    if std::env::args().any(|a| a == "--http") {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("the bound address");
        println!("url http://{addr}/mcp");
        let app =
            toolwire::http::mcp_router(server, toolwire::http::HttpConfig::new(toolwire::http::Auth::None));
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("resource-server: {e}");
            std::process::exit(1);
        }
    } else if let Err(e) = toolwire::stdio::serve(server, toolwire::stdio::StdioConfig::new()).await {
        eprintln!("resource-server: {e}");
        std::process::exit(1);
    }
}
