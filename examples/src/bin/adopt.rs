//! The smallest thing that works: spawn a real MCP server as a child process, adopt its
//! tools, and call one as an ordinary `toolwire::Tool`.
//!
//! The server is six lines of Python's `mcp` SDK, run with `python -c`, so this file stands
//! alone. In real use the command is `uvx`, `npx` or a compiled binary.
//!
//! ```text
//! cargo run -p toolwire-examples --bin adopt            # python3 with `mcp` installed
//! TOOLWIRE_PYTHON=/path/to/venv/bin/python cargo run -p toolwire-examples --bin adopt
//! ```
//!
//! Prints:
//!
//! ```text
//! demo_add | Add two integers.
//! params: {"a":{"title":"A","type":"integer"},"b":{"title":"B","type":"integer"}}
//! side_effecting: true
//! result: <untrusted-data source="mcp" server="demo" tool="demo_add">
//! 5
//! </untrusted-data>
//! ```

use serde_json::json;
use toolwire::client::{AdoptOptions, Client, ClientOptions, StdioServer};
use toolwire::{Context, Tool};

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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let python = std::env::var("TOOLWIRE_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let server = StdioServer::new(python).args(["-c", SERVER]);
    let client = Client::connect(server, ClientOptions::new("demo")).await?;
    let discovery = client.adopt(AdoptOptions::default().prefix("demo_")).await?;
    let tool = &discovery.tools()[0];
    println!("{} | {}", tool.info().name(), tool.info().description());
    println!(
        "params: {}",
        toolwire::schema::canonical_json(&tool.info().input_schema().value()["properties"])
    );
    println!("side_effecting: {}", tool.info().declarations().side_effecting);
    let result = tool.call_json(json!({"a": 2, "b": 3}), &Context::new()).await?;
    println!("result: {}", result.joined_text());
    client.close().await;
    Ok(())
}
