//! The smallest thing that works: spawn a real MCP server as a child process, adopt its
//! tools, call one as an ordinary `toolwire::Tool`, bind one to Rust types, and bind the
//! server to a Rust trait (`#[toolwire::remote]`).
//!
//! The server is a few lines of Python's `mcp` SDK, run with `python -c`, so this file
//! stands alone. In real use the command is `uvx`, `npx` or a compiled binary.
//!
//! ```text
//! cargo run -p toolwire-examples --bin adopt            # python3 with `mcp` installed
//! TOOLWIRE_PYTHON=/path/to/venv/bin/python cargo run -p toolwire-examples --bin adopt
//! ```
//!
//! Prints (`tests/tests/client_stdio.rs` checks it, line for line):
//!
//! ```text
//! demo_add | Add two integers.
//! params: {"a":{"title":"A","type":"integer"},"b":{"title":"B","type":"integer"}}
//! side_effecting: true
//! result: <untrusted-data source="mcp" server="demo" tool="demo_add">
//! 5
//! </untrusted-data>
//! untrusted text: 5
//! structured: {"result":5}
//! wrong name: server 'demo' has no adopted tool 'demo_add': that is the adopted name of 'add'; name tools by the server's name
//! typed: 2 + 40 = 42
//! trait: 20 + 22 = 42
//! mismatch: cannot bind `Wrong::add` to tool 'add' of server 'demo': 'b' is string in `Wrong::add` but integer on the server
//! ```

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use toolwire::client::{AdoptOptions, Client, ClientOptions, StdioServer, UntrustedText};
use toolwire::{Tool, ToolError};

/// A complete MCP server.
const SERVER: &str = r#"
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("demo", log_level="ERROR")

@mcp.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

mcp.run()
"#;

/// The arguments of the server's `add`, for a typed handle.
#[derive(Serialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// The server's tools as a Rust trait: bound to a server (`DemoClient::bind`), served from a
/// local impl (`Demo::tools(impl)`), or implemented by a test double.
#[toolwire::remote]
trait Demo {
    /// Add two integers.
    async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError>;
}

/// A contract the server does not keep: its `b` is an integer.
#[toolwire::remote]
trait Wrong {
    /// Add.
    async fn add(&self, a: i64, b: String) -> Result<i64, ToolError>;
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let python = std::env::var("TOOLWIRE_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let server = StdioServer::new(python).arg("-c").arg(SERVER);
    // Every request, tool calls included, gives up after 10 s unless told otherwise.
    let options = ClientOptions::new("demo").request_timeout(Duration::from_secs(10));
    let client = Client::connect(server, options).await?;

    // Adopted: an ordinary `Tool`, named `demo_add` for the model, `add` in your code.
    let discovery = client.adopt(AdoptOptions::default().prefix("demo_")).await?;
    let add = discovery.get("add")?;
    println!("{} | {}", add.info().name(), add.info().description());
    println!(
        "params: {}",
        toolwire::schema::canonical_json(&add.info().input_schema().value()["properties"])
    );
    println!("side_effecting: {}", add.info().declarations().side_effecting);
    // No `Context` needed for a plain call.
    let out = add.invoke(json!({"a": 2, "b": 3})).await?;
    println!("result: {}", out.joined_text());
    let text = UntrustedText::from_output(&out).ok_or("an adopted tool's output is sealed")?;
    println!("untrusted text: {}", text.text());
    let structured = out.structured.as_ref().ok_or("the server sent structuredContent")?;
    println!("structured: {}", toolwire::schema::canonical_json(structured));
    if let Err(e) = discovery.get("demo_add") {
        println!("wrong name: {e}");
    }

    // Typed: bound to Rust types, the schemas checked once, here.
    let typed = client.typed::<AddArgs, i64>("add").await?;
    println!("typed: 2 + 40 = {}", typed.call(&AddArgs { a: 2, b: 40 }).await?);

    // A trait: every method bound and checked once, here; then called as Rust.
    let demo = DemoClient::bind(&client).await?;
    println!("trait: 20 + 22 = {}", demo.add(20, 22).await?);
    if let Err(e) = WrongClient::bind(&client).await {
        println!("mismatch: {e}");
    }
    client.close().await;
    Ok(())
}
