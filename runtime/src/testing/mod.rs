//! Testing tools through the protocol, in a few lines (feature `client`).
//!
//! - [`pair`]: a [`Client`] connected to your [`Server`] in this process, through the whole
//!   protocol (no socket, no child): what a host would see.
//! - [`FakeServer`]: a remote server scripted tool by tool (answers, errors, hangs, dies,
//!   babbles, refuses with 401), for testing code that adopts tools.
//! - [`assert_tools_golden`]: the tool list a server sends, held to a committed file.
//!
//! ```no_run
//! use serde_json::json;
//! use toolwire::client::CallOptions;
//! use toolwire::{Server, ServerOptions, tool, tools};
//!
//! /// Greet someone by name.
//! #[tool]
//! fn greet(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! # async fn test() {
//! let server = Server::new(tools![greet].unwrap(), ServerOptions::new("hello", "1.0"));
//! let client = toolwire::testing::pair(server).await;
//! let result = client.call_tool("greet", json!({"name": "Ada"}), CallOptions::new()).await.unwrap();
//! assert_eq!(result.text(), "Hello, Ada!");
//! toolwire::testing::assert_tools_golden(&client, "tests/golden/hello-tools.json").await;
//! # }
//! ```

mod fake;
mod golden;

pub use fake::{FakeCalls, FakeServer, Reply};
pub use golden::assert_tools_golden;

use crate::client::{Client, ClientOptions, InProcess};
use crate::server::Server;

/// A client connected to `server` in this process ([`InProcess`]), named after the server,
/// speaking the legacy era (2025-11-25). Panics, with the client's error, if the handshake
/// fails: this is for tests.
pub async fn pair(server: Server) -> Client {
    let name = server.options().name().to_owned();
    connect(server, ClientOptions::new(name)).await
}

/// [`pair`] with your own [`ClientOptions`] (handlers for elicitation and sampling, the
/// 2026-07-28 era, roots).
pub async fn connect(server: Server, options: ClientOptions) -> Client {
    match Client::connect(InProcess::new(server), options).await {
        Ok(client) => client,
        Err(e) => panic!("toolwire::testing: could not connect to the server in process: {e}"),
    }
}
