//! Prompts: [`Client::list_prompts`] and [`Client::get_prompt`] (never cached: prompts are
//! fetched fresh every call), and [`Client::adopt_prompts`], which renders every static
//! prompt once.
//!
//! A prompt is static when it has no required argument; it is rendered at adoption with no
//! arguments and kept as a template (version `mcp:1`). A prompt with a required argument
//! has no template to materialise: it is skipped with a logged warning that names
//! `get_prompt` as the way to reach it. A prompt whose render fails is skipped the same way,
//! and the others still load.

use std::collections::BTreeMap;

use serde_json::json;

use super::connection::Client;
use super::error::ClientError;
use super::normalise::{content, normalise};
use super::wire::CallResult;
use crate::protocol::methods;
use crate::protocol::wire;

/// One prompt argument as the server lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedPromptArgument {
    /// Its name.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

/// One prompt as the server lists it (untrusted text).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedPrompt {
    /// Its name.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// Its arguments.
    pub arguments: Vec<ListedPromptArgument>,
}

/// One message of a rendered prompt: its role and its content as text (binary parts are
/// markers, as in tool results).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderedMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// The content as text.
    pub text: String,
}

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderedPrompt {
    /// The server's description, if any.
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<RenderedMessage>,
}

impl RenderedPrompt {
    /// The messages' text, joined with newlines.
    pub fn text(&self) -> String {
        self.messages.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join("\n")
    }
}

/// A static prompt, rendered at adoption.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StaticPrompt {
    /// Its name on the server.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// The rendered text.
    pub template: String,
    /// Always `mcp:1`.
    pub version: &'static str,
}

/// What [`Client::adopt_prompts`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PromptAdoption {
    /// The static prompts, rendered, in the server's order.
    pub prompts: Vec<StaticPrompt>,
    /// The prompts skipped, each with the warning that was logged.
    pub skipped: Vec<(String, String)>,
}

impl ListedPrompt {
    /// The client's view of a listed prompt.
    fn from_wire(p: wire::Prompt) -> Self {
        let arguments = p
            .arguments
            .into_iter()
            .map(|a| ListedPromptArgument { name: a.name, description: a.description, required: a.required })
            .collect();
        ListedPrompt { name: p.name, description: p.description, arguments }
    }
}

impl Client {
    /// The server's prompts, every page; not cached.
    pub async fn list_prompts(&self) -> Result<Vec<ListedPrompt>, ClientError> {
        let raw = self.list_all(methods::PROMPTS_LIST, "prompts").await?;
        Ok(raw
            .into_iter()
            .filter_map(|p| serde_json::from_value::<wire::Prompt>(p).ok())
            .map(ListedPrompt::from_wire)
            .collect())
    }

    /// Render prompt `name` with `arguments`. A 2026-07-28 server's `input_required`
    /// rounds are answered through the client's handlers, as for a tool call; what the
    /// client cannot give is [`ClientError::Input`].
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<RenderedPrompt, ClientError> {
        let mut params = serde_json::Map::new();
        params.insert("name".into(), name.into());
        params.insert("arguments".into(), json!(arguments));
        let result = self.request_rounds(methods::PROMPTS_GET, name, params).await?;
        let Ok(rendered) = serde_json::from_value::<wire::GetPromptResult>(result) else {
            return Err(ClientError::Protocol {
                server: self.name().to_owned(),
                method: methods::PROMPTS_GET.into(),
                detail: "`messages` is not an array".into(),
            });
        };
        let messages = rendered
            .messages
            .into_iter()
            .map(|m| {
                let content = m.content.map(content).into_iter().collect();
                RenderedMessage {
                    role: m.role.unwrap_or_else(|| "user".to_owned()),
                    text: normalise(&CallResult { content, structured: None, is_error: false }),
                }
            })
            .collect();
        Ok(RenderedPrompt { description: rendered.description, messages })
    }

    /// Render every static prompt once; skip (and log) the argumented ones and those whose
    /// render fails.
    pub async fn adopt_prompts(&self) -> Result<PromptAdoption, ClientError> {
        let mut out = PromptAdoption::default();
        for p in self.list_prompts().await? {
            if p.arguments.iter().any(|a| a.required) {
                let warning = format!(
                    "skipping prompt '{}' of server '{}': it requires arguments, so it cannot be rendered statically; use Client::get_prompt(name, arguments)",
                    p.name,
                    self.name()
                );
                tracing::warn!("{warning}");
                out.skipped.push((p.name, warning));
                continue;
            }
            match self.get_prompt(&p.name, &BTreeMap::new()).await {
                Ok(rendered) => out.prompts.push(StaticPrompt {
                    name: p.name,
                    description: p.description,
                    template: rendered.text(),
                    version: "mcp:1",
                }),
                Err(e) => {
                    let warning = format!("skipping prompt '{}': its render failed: {e}", p.name);
                    tracing::warn!("{warning}");
                    out.skipped.push((p.name, warning));
                }
            }
        }
        Ok(out)
    }
}
