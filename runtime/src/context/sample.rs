//! Asking the client's model for a completion in the middle of a call:
//! [`Context::sample`] sends `sampling/createMessage` with a [`SamplingRequest`] and reads
//! back a [`Sampled`] message.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Context;
use super::error::AskError;
use crate::protocol::methods;

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// `"user"` or `"assistant"`.
    pub role: &'static str,
    /// The content block (`{"type":"text","text":…}` for text).
    pub content: Value,
}

/// What to ask the client's model: the conversation, a token budget and optional hints.
/// Build it with [`SamplingRequest::new`] and the setters.
///
/// ```
/// use toolwire::context::SamplingRequest;
///
/// let request = SamplingRequest::new(100)
///     .system_prompt("You are terse.")
///     .user("Name a colour.");
/// assert_eq!(request.messages.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens to sample.
    #[serde(rename = "maxTokens")]
    pub max_tokens: u32,
    /// A system prompt the client may use.
    #[serde(rename = "systemPrompt", skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Sequences that end sampling.
    #[serde(rename = "stopSequences", skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// `modelPreferences` (hints, cost/speed/intelligence priorities), as JSON.
    #[serde(rename = "modelPreferences", skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
}

impl SamplingRequest {
    /// An empty conversation with a budget of `max_tokens`.
    pub fn new(max_tokens: u32) -> SamplingRequest {
        SamplingRequest {
            messages: Vec::new(),
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
        }
    }

    /// Append a user turn of text.
    pub fn user(mut self, text: impl Into<String>) -> SamplingRequest {
        self.messages.push(SamplingMessage { role: "user", content: text_block(text.into()) });
        self
    }

    /// Append an assistant turn of text.
    pub fn assistant(mut self, text: impl Into<String>) -> SamplingRequest {
        self.messages.push(SamplingMessage { role: "assistant", content: text_block(text.into()) });
        self
    }

    /// Set the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> SamplingRequest {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Set the temperature.
    pub fn temperature(mut self, t: f64) -> SamplingRequest {
        self.temperature = Some(t);
        self
    }
}

fn text_block(text: String) -> Value {
    serde_json::json!({ "type": "text", "text": text })
}

/// The message the client's model produced.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Sampled {
    /// Who produced it (`"assistant"`).
    pub role: String,
    /// The content block, as JSON (`{"type":"text","text":…}`, an image, audio…).
    pub content: Value,
    /// The model that produced it, as the client names it.
    pub model: String,
    /// Why sampling stopped (`"endTurn"`, `"maxTokens"`, …), when the client says.
    #[serde(rename = "stopReason", default)]
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// The text, when the content is a text block.
    pub fn text(&self) -> Option<&str> {
        (self.content.get("type")? == "text").then(|| self.content.get("text")?.as_str()).flatten()
    }
}

impl Context {
    /// Ask the client's model for a completion of `request`. Needs the client's `sampling`
    /// capability ([`AskError::NotDeclared`] otherwise, and nothing is sent); an answer
    /// without `role`, `content` and `model` is [`AskError::BadAnswer`].
    pub async fn sample(&self, request: SamplingRequest) -> Result<Sampled, AskError> {
        self.sample_keyed(None, request).await
    }

    /// [`sample`](Self::sample) under `key` (see [`elicit_as`](Self::elicit_as)).
    pub async fn sample_as(&self, key: &str, request: SamplingRequest) -> Result<Sampled, AskError> {
        self.sample_keyed(Some(key), request).await
    }

    async fn sample_keyed(&self, key: Option<&str>, request: SamplingRequest) -> Result<Sampled, AskError> {
        let talk = self.talkback(methods::SAMPLING_CREATE_MESSAGE)?;
        if !talk.capabilities().sampling {
            return Err(AskError::NotDeclared {
                capability: "sampling",
                what: methods::SAMPLING_CREATE_MESSAGE,
            });
        }
        let params = serde_json::to_string(&request).map_err(|e| AskError::Unavailable {
            what: methods::SAMPLING_CREATE_MESSAGE,
            why: format!("the request did not serialise: {e}"),
        })?;
        let answer = self.ask(talk, key, methods::SAMPLING_CREATE_MESSAGE, params).await?;
        serde_json::from_str::<Sampled>(answer.get()).map_err(|e| AskError::BadAnswer {
            what: methods::SAMPLING_CREATE_MESSAGE,
            reason: super::trim_serde(e),
        })
    }
}
