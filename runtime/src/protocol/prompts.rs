//! `prompts/get` params. (`prompts/list` takes [`ListParams`](super::meta::ListParams); the
//! listed prompt and the result are the `wire` shapes.)

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::meta::RequestMeta;

/// `prompts/get` params.
#[derive(Debug, Deserialize)]
pub(crate) struct GetPromptParams<'a> {
    /// The prompt to get.
    #[serde(borrow)]
    pub(crate) name: Cow<'a, str>,
    /// The arguments, as sent (checked against the prompt's arguments by the engine).
    #[serde(default)]
    pub(crate) arguments: Option<Value>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub(crate) meta: Option<RequestMeta<'a>>,
}
