//! rmcp's stdio server for the resources and prompts benches, written as rmcp's docs and
//! tests show: a prompt `echo(text)` through `#[prompt_router]` / `#[prompt_handler]` (the
//! router built once in `new()` and kept), and `list_resources` / `read_resource` by hand
//! (rmcp has no resource macro), serving the small text resource `bench://small`.
//! `--resources N` also lists N more (`bench://r/0` ..), built once at startup.
//!
//! ```text
//! rmcp-resources [--resources 1000]
//! ```

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    ErrorData, ListResourcesResult, PaginatedRequestParams, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, prompt, prompt_handler, prompt_router};

#[path = "../rmcp_tools.rs"]
mod rmcp_tools;
use rmcp_tools::EchoArgs;

/// The text `bench://small` holds.
const SMALL: &str = "hello from the toolwire bench";

/// The server: the prompt router and the resource listing, both built once.
#[derive(Clone)]
struct Resources {
    prompt_router: PromptRouter<Resources>,
    listed: Vec<Resource>,
}

#[prompt_router]
impl Resources {
    fn new(extra: usize) -> Self {
        let small = Resource::new("bench://small", "small")
            .with_description("A small text resource.")
            .with_mime_type("text/plain");
        let mut listed = vec![small];
        for i in 0..extra {
            listed.push(
                Resource::new(format!("bench://r/{i}"), format!("r{i}"))
                    .with_description(format!("Numbered resource {i} of the list bench."))
                    .with_mime_type("text/plain"),
            );
        }
        Resources { prompt_router: Self::prompt_router(), listed }
    }

    /// Echo the text back, as one user message.
    #[prompt(description = "Echo the text back, as one user message.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(Role::User, text)]
    }
}

#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Resources {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_prompts().enable_resources().build())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.listed.clone()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == "bench://small" {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(SMALL, request.uri)]).into())
        } else {
            Err(ErrorData::resource_not_found(format!("resource {} not found", request.uri), None))
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut extra = 0usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|n| n.parse().ok())) {
            ("--resources", Some(n)) => extra = n,
            _ => return Err("usage: rmcp-resources [--resources N]".into()),
        }
    }
    rmcp_tools::serve(Resources::new(extra)).await
}
