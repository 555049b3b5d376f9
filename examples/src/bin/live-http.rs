//! A live server over HTTP on toolwire's own listener: tools added and removed while it
//! serves, each change announced to connected clients (`notifications/tools/list_changed`).
//! It needs nothing but toolwire and tokio.
//!
//! ```text
//! cargo run -p toolwire-examples --bin live-http
//! ```
//!
//! It prints its endpoint URL and the `Authorization` header a client must send, one per
//! line, then serves. Each line on stdin is a command: `add` adds the `shout` tool, `remove`
//! removes it. When stdin closes (or on SIGTERM/SIGINT) it drains: it stops accepting, lets
//! the requests in flight finish, and exits 0. `tests/tests/serving_examples.rs` runs it.

use std::io::BufRead as _;

use toolwire::http::{Auth, BearerToken, Drain, HttpConfig};
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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One server, built once: what it serves, and that it may change while it serves.
    let server = Server::builder(ServerOptions::new("live-http", env!("CARGO_PKG_VERSION")))
        .tools(tools![echo]?)
        .live()
        .build();
    let token = BearerToken::generate();
    let drain = Drain::new();
    let config = HttpConfig::new(Auth::Bearer(token.clone())).drain(drain.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    println!("Authorization: Bearer {}", token.expose());

    let (live, end) = (server.clone(), drain.clone());
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            let changed = match line.trim() {
                "add" => live.add_tool(shout {}).map(|()| "added shout"),
                "remove" => live.remove_tool("shout").map(|_| "removed shout"),
                other => {
                    eprintln!("unknown command {other:?}: say `add` or `remove`");
                    continue;
                }
            };
            match changed {
                Ok(done) => eprintln!("{done}"),
                Err(e) => eprintln!("{e}"),
            }
        }
        end.begin();
    });
    tokio::spawn(drain.clone().begin_on_signal());
    toolwire::http::serve(listener, server, config).await;
    Ok(())
}
