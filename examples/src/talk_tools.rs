//! Tools that talk back to their client through [`Context`]: a log, a form, a URL to visit,
//! a question for the client's model, the client's roots. `tests/tests/talk_back.rs` drives
//! them with the Python SDK over stdio (the `talk-back` binary) and HTTP.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use toolwire::context::{AskError, SamplingRequest};
use toolwire::protocol::LoggingLevel;
use toolwire::registry::ToolRegistry;
use toolwire::{Context, tool, tools};

/// Who to contact.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Contact {
    /// Your name.
    pub name: String,
    /// Your age, if you want to say.
    pub age: Option<u32>,
}

/// A form that cannot be one: it nests a struct.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Nested {
    /// A name.
    pub name: String,
    /// A nested contact.
    pub contact: Contact,
}

/// Log four messages to the client, one at each of debug, info, warning and error.
#[tool(read_only)]
pub fn chatty(ctx: &Context) -> String {
    for (level, step) in [
        (LoggingLevel::Debug, 1),
        (LoggingLevel::Info, 2),
        (LoggingLevel::Warning, 3),
        (LoggingLevel::Error, 4),
    ] {
        ctx.log_as(level, Some("chatty"), serde_json::json!({ "step": step, "level": level.as_str() }));
    }
    "logged".to_owned()
}

/// Emit `tracing` events (forwarded to the client when the server forwards tracing). Async:
/// a sync tool's body runs on the blocking pool, outside the call's future, and its events
/// are not forwarded.
#[tool(read_only)]
pub async fn traced() -> String {
    tracing::debug!(step = 1, "looking");
    tracing::warn!(step = 2, found = true, "found it");
    "traced".to_owned()
}

/// Ask the user who to contact.
#[tool(read_only)]
pub async fn ask_contact(ctx: &Context, question: String) -> Result<String, AskError> {
    let contact: Contact = ctx.elicit(&question).await?;
    Ok(match contact.age {
        Some(age) => format!("contact {} (age {age})", contact.name),
        None => format!("contact {} (age not given)", contact.name),
    })
}

/// Ask the user for a form that nests a struct (always refused before anything is sent).
#[tool(read_only)]
pub async fn ask_nested(ctx: &Context) -> Result<String, AskError> {
    let nested: Nested = ctx.elicit("Fill this in").await?;
    Ok(nested.name)
}

/// Ask the user to visit a URL.
#[tool(read_only)]
pub async fn ask_url(ctx: &Context, url: String) -> Result<String, AskError> {
    ctx.elicit_url("Please sign in", &url).await?;
    Ok(format!("the user agreed to visit {url}"))
}

/// Ask the client's model to complete a prompt.
#[tool(read_only)]
pub async fn ask_model(ctx: &Context, prompt: String) -> Result<String, AskError> {
    let sampled = ctx.sample(SamplingRequest::new(50).system_prompt("Be brief.").user(prompt)).await?;
    Ok(format!(
        "{} said {:?} (stop: {})",
        sampled.model,
        sampled.text().unwrap_or("(not text)"),
        sampled.stop_reason.as_deref().unwrap_or("none")
    ))
}

/// List the client's roots, and say whether `path` is within one and where `relative`
/// resolves.
#[tool(read_only)]
pub async fn show_roots(ctx: &Context, path: String, relative: String) -> Result<String, AskError> {
    let roots = ctx.roots().await?;
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    let resolved = roots.resolve(Path::new(&relative));
    Ok(format!(
        "roots: {}; {path} within a root: {}; {relative} resolves to {}",
        uris.join(", "),
        roots.contains(Path::new(&path)),
        resolved.map_or_else(|| "nothing".to_owned(), |p| p.display().to_string())
    ))
}

/// The talking tools, as one registry.
pub fn registry() -> Result<ToolRegistry, toolwire::registry::RegistryError> {
    tools![chatty, traced, ask_contact, ask_nested, ask_url, ask_model, show_roots]
}
