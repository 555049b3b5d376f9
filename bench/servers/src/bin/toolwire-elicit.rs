//! toolwire's stdio server with one tool, `ask(text)`, that asks the client a question in the
//! middle of the call (`elicitation/create`, a form of one string field) and answers with
//! what the client said: one elicitation round trip per call, as `Context::elicit` makes it.
//! `rmcp-elicit` is the same with rmcp's `Peer::elicit`; the driver (`--method elicit`)
//! answers every question with the echoed text.

use toolwire::Context;
use toolwire::context::AskError;

/// What the client is asked for.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    /// The text to send back.
    text: String,
}

/// Ask the client to say `text` back, and return what it said.
#[toolwire::tool(read_only)]
async fn ask(
    ctx: &Context,
    /// The question.
    text: String,
) -> Result<String, AskError> {
    let answer: Answer = ctx.elicit(&text).await?;
    Ok(answer.text)
}

fn main() {
    toolwire::serve_registry!(name = "toolwire-bench-elicit", tools = [ask]);
}
