//! rmcp's stdio server with 50 tools, `tool_0` .. `tool_49`, each `(text) -> text`, written
//! as rmcp's docs recommend. The bench calls `tool_7`. Written out in full, as a user would
//! write them.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

#[path = "../rmcp_tools.rs"]
mod rmcp_tools;
use rmcp_tools::EchoArgs;

/// The server: its router is built once and kept.
#[derive(Clone)]
struct Fifty {
    tool_router: ToolRouter<Fifty>,
}

#[tool_router]
impl Fifty {
    fn new() -> Self {
        Fifty { tool_router: Self::tool_router() }
    }

    #[tool(description = "Echo the text back (0).")]
    async fn tool_0(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (1).")]
    async fn tool_1(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (2).")]
    async fn tool_2(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (3).")]
    async fn tool_3(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (4).")]
    async fn tool_4(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (5).")]
    async fn tool_5(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (6).")]
    async fn tool_6(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (7).")]
    async fn tool_7(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (8).")]
    async fn tool_8(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (9).")]
    async fn tool_9(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (10).")]
    async fn tool_10(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (11).")]
    async fn tool_11(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (12).")]
    async fn tool_12(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (13).")]
    async fn tool_13(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (14).")]
    async fn tool_14(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (15).")]
    async fn tool_15(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (16).")]
    async fn tool_16(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (17).")]
    async fn tool_17(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (18).")]
    async fn tool_18(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (19).")]
    async fn tool_19(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (20).")]
    async fn tool_20(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (21).")]
    async fn tool_21(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (22).")]
    async fn tool_22(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (23).")]
    async fn tool_23(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (24).")]
    async fn tool_24(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (25).")]
    async fn tool_25(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (26).")]
    async fn tool_26(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (27).")]
    async fn tool_27(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (28).")]
    async fn tool_28(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (29).")]
    async fn tool_29(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (30).")]
    async fn tool_30(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (31).")]
    async fn tool_31(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (32).")]
    async fn tool_32(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (33).")]
    async fn tool_33(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (34).")]
    async fn tool_34(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (35).")]
    async fn tool_35(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (36).")]
    async fn tool_36(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (37).")]
    async fn tool_37(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (38).")]
    async fn tool_38(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (39).")]
    async fn tool_39(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (40).")]
    async fn tool_40(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (41).")]
    async fn tool_41(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (42).")]
    async fn tool_42(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (43).")]
    async fn tool_43(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (44).")]
    async fn tool_44(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (45).")]
    async fn tool_45(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (46).")]
    async fn tool_46(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (47).")]
    async fn tool_47(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (48).")]
    async fn tool_48(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Echo the text back (49).")]
    async fn tool_49(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Fifty {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    rmcp_tools::serve(Fifty::new()).await
}
