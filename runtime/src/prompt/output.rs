//! What a prompt may return ([`PromptReturn`]), and why it gave no messages
//! ([`PromptError`]).

use std::fmt::Display;

use crate::args::PyStr;
use crate::protocol::wire::{GetPromptResult, PromptMessage};

use super::PromptArgumentError;

/// Why a `prompts/get` gave no messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// The arguments were rejected before the prompt ran (JSON-RPC -32602).
    #[error(transparent)]
    Arguments(#[from] PromptArgumentError),
    /// The prompt returned `Err(e)`: `prompt 'x' failed: <e>` (JSON-RPC -32603).
    #[error("prompt {} failed: {message}", PyStr(prompt))]
    Failed {
        /// The prompt.
        prompt: String,
        /// The error's `Display`.
        message: String,
    },
}

impl PromptError {
    /// `prompt` failed with `error`.
    pub fn failed(prompt: impl Into<String>, error: impl Display) -> PromptError {
        PromptError::Failed { prompt: prompt.into(), message: error.to_string() }
    }
}

/// What a `#[prompt]` fn may return:
///
/// | return type | messages |
/// | --- | --- |
/// | `String`, `&'static str` | one `user` text message |
/// | [`PromptMessage`] | that message |
/// | `Vec<PromptMessage>` | those messages (text, images, embedded resources, …) |
/// | [`GetPromptResult`] | the whole result, with its description |
/// | `Result<T, E>` with `T` one of these and `E: Display` | `Err(e)` is [`PromptError::Failed`] |
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a prompt",
    label = "a `#[prompt]` fn returns `String`, `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or a `Result` of one",
    note = "build messages with `PromptMessage::user(..)`, `PromptMessage::assistant(..)` or `PromptMessage::new(role, ContentBlock::..)`"
)]
pub trait PromptReturn {
    /// The result of prompt `prompt`.
    fn into_prompt_result(self, prompt: &str) -> Result<GetPromptResult, PromptError>;
}

impl PromptReturn for String {
    fn into_prompt_result(self, _: &str) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl PromptReturn for &'static str {
    fn into_prompt_result(self, _: &str) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl PromptReturn for PromptMessage {
    fn into_prompt_result(self, _: &str) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl PromptReturn for Vec<PromptMessage> {
    fn into_prompt_result(self, _: &str) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(self))
    }
}

impl PromptReturn for GetPromptResult {
    fn into_prompt_result(self, _: &str) -> Result<GetPromptResult, PromptError> {
        Ok(self)
    }
}

impl<T: PromptReturn, E: Display> PromptReturn for Result<T, E> {
    fn into_prompt_result(self, prompt: &str) -> Result<GetPromptResult, PromptError> {
        match self {
            Ok(t) => t.into_prompt_result(prompt),
            Err(e) => Err(PromptError::failed(prompt, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::{ContentBlock, ResourceContents};

    #[test]
    fn returns_become_messages() {
        let r = "hi".to_owned().into_prompt_result("p").unwrap();
        assert_eq!(r.messages, [PromptMessage::user("hi")]);
        let embedded =
            PromptMessage::new("user", ContentBlock::resource(ResourceContents::text("file:///a", "A")));
        let r = vec![embedded.clone(), PromptMessage::assistant("ok")].into_prompt_result("p").unwrap();
        assert_eq!(r.messages.len(), 2);
        assert_eq!(r.messages[0], embedded);
        let e = Err::<String, _>("no such file").into_prompt_result("p").unwrap_err();
        assert_eq!(e.to_string(), "prompt 'p' failed: no such file");
    }
}
