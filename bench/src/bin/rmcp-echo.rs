//! rmcp's stdio server with one tool, `echo(text)`, written as rmcp's docs recommend.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

#[path = "../rmcp_tools.rs"]
mod rmcp_tools;
use rmcp_tools::EchoArgs;

/// The server: its router is built once and kept.
#[derive(Clone)]
struct Echo {
    tool_router: ToolRouter<Echo>,
}

#[tool_router]
impl Echo {
    fn new() -> Self {
        Echo { tool_router: Self::tool_router() }
    }

    /// Echo the text back.
    #[tool(description = "Echo the text back.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    rmcp_tools::serve(Echo::new()).await
}
