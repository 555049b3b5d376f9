//! `prompts/get` params. (`prompts/list` takes [`ListParams`](super::meta::ListParams); the
//! listed prompt and the result are the `wire` shapes.)

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::meta::RequestMeta;

/// `prompts/get` params.
#[derive(Debug, Deserialize)]
pub struct GetPromptParams<'a> {
    /// The prompt to get.
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    /// The arguments, as sent (checked against the prompt's arguments by the engine).
    #[serde(default)]
    pub arguments: Option<Value>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
    /// 2026-07-28: the client's answers to the previous round's `inputRequests`, raw
    /// (present-but-null kept, so it can be refused).
    #[serde(rename = "inputResponses", default, borrow, deserialize_with = "super::meta::present")]
    pub input_responses: Option<&'a RawValue>,
    /// 2026-07-28: the previous round's `requestState`, raw.
    #[serde(rename = "requestState", default, borrow, deserialize_with = "super::meta::present")]
    pub request_state: Option<&'a RawValue>,
}
