//! rmcp's stdio server with one tool, `ask(text)`, that asks the client a question in the
//! middle of the call with `Peer::elicit` (rmcp's typed elicitation, a form of one string
//! field) and answers with what the client said: the rmcp side of `toolwire-elicit`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::ErrorData;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};

#[path = "../rmcp_tools.rs"]
mod rmcp_tools;
use rmcp_tools::EchoArgs;

/// What the client is asked for.
#[derive(Debug, serde::Serialize, serde::Deserialize, rmcp::schemars::JsonSchema)]
struct Answer {
    /// The text to send back.
    text: String,
}
rmcp::elicit_safe!(Answer);

/// The server: its router is built once and kept.
#[derive(Clone)]
struct Elicit {
    tool_router: ToolRouter<Elicit>,
}

#[tool_router]
impl Elicit {
    fn new() -> Self {
        Elicit { tool_router: Self::tool_router() }
    }

    /// Ask the client to say the text back, and return what it said.
    #[tool(description = "Ask the client to say the text back, and return what it said.")]
    async fn ask(
        &self,
        Parameters(EchoArgs { text }): Parameters<EchoArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        match context.peer.elicit::<Answer>(text).await {
            Ok(Some(answer)) => Ok(answer.text),
            Ok(None) => Err(ErrorData::internal_error("the client sent no content", None)),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Elicit {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    rmcp_tools::serve(Elicit::new()).await
}
