//! A server binary whose whole `main` is `serve_registry!` with `resources = [..]` and
//! `prompts = [..]` beside `tools = [..]`, for tests/tests/serve_surface.rs:
//!
//! - the tool `echo(text)`;
//! - the resource `surface://motd` (`text/plain`, titled "Message of the day") and the
//!   template `surface://notes/{topic}`, whose `topic` completes from `errors`, `ethics`,
//!   `release`;
//! - the prompt `summarise(text, style?)`.

use toolwire::complete::{CompletionRequest, prefix_matches};
use toolwire::{prompt, resource, serve_registry, tool};

/// Echo the text back.
#[tool(read_only)]
fn echo(
    /// The text to echo.
    text: String,
) -> String {
    text
}

/// Today's message.
#[resource(uri = "surface://motd", mime_type = "text/plain", title = "Message of the day")]
fn motd() -> &'static str {
    "Deploys freeze at 17:00."
}

/// The notes on one topic.
#[resource(template = "surface://notes/{topic}", mime_type = "text/plain", complete(topic = topics))]
fn notes(topic: String) -> String {
    format!("notes on {topic}")
}

fn topics(request: CompletionRequest) -> Vec<String> {
    prefix_matches(&["errors", "ethics", "release"], &request.value)
}

/// Summarise a text.
#[prompt]
fn summarise(
    /// The text to summarise.
    text: String,
    /// How: `brief` or `detailed`.
    style: Option<String>,
) -> String {
    format!("Summarise ({}): {text}", style.as_deref().unwrap_or("brief"))
}

fn main() {
    serve_registry!(name = "surface", tools = [echo], resources = [motd, notes], prompts = [summarise])
}
