//! Multi round-trip requests (MCP 2026-07-28, `basic/patterns/mrtr`): the
//! [`InputRequired`] result a server answers when it needs more from the client, and the
//! [`InputRound`] members the client sends back when it retries the same request.
//!
//! In that era a server sends no requests of its own. A `tools/call`, `prompts/get` or
//! `resources/read` that needs the user (`elicitation/create`), the client's model
//! (`sampling/createMessage`) or the client's roots (`roots/list`) answers
//! `{"resultType": "input_required", "inputRequests": {key: {method, params}}, "requestState": ".."}`.
//! The client fulfils each request, then sends the original request again with
//! `inputResponses` (the same keys, each holding the result it would have answered to the
//! request) and the `requestState` it was given, untouched.
//!
//! These are the shapes only, shared by the server (which writes [`InputRequired`] and reads
//! [`InputRound`]) and the client (which reads the one and writes the other). The payloads
//! stay raw JSON text: what an `elicitation/create` or `sampling/createMessage` holds is the
//! business of the code that asks or answers, not of the envelope.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::methods::{ELICITATION_CREATE, ROOTS_LIST, SAMPLING_CREATE_MESSAGE};

/// `resultType` of a result that asks for more input.
pub const INPUT_REQUIRED: &str = "input_required";

/// `resultType` of a final result.
pub const COMPLETE: &str = "complete";

/// The methods an [`InputRequest`] may carry (2026-07-28 `InputRequest`).
pub const INPUT_METHODS: [&str; 3] = [ELICITATION_CREATE, SAMPLING_CREATE_MESSAGE, ROOTS_LIST];

/// One thing the server needs from the client: what would have been a server-to-client
/// request in the legacy era, without a JSON-RPC id. (Read by the server too: a task's
/// outstanding requests are kept in its task store as this shape.)
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct InputRequest {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// The request's params, as JSON text (absent for `roots/list`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Box<RawValue>>,
}

impl InputRequest {
    /// A request for `method` with `params` (a JSON object, as text).
    pub fn new(method: impl Into<String>, params: Option<Box<RawValue>>) -> Self {
        InputRequest { method: method.into(), params }
    }
}

/// `inputRequests`: the server's requests, by a key the server chose. Ordered by key, so the
/// result's bytes do not depend on the order the tool asked in.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// `inputResponses`: the client's answers, by the keys of the [`InputRequests`] they answer.
/// Each value is the result the client would have sent for the request (an `ElicitResult`,
/// `CreateMessageResult` or `ListRootsResult`), as JSON text.
pub type InputResponses = BTreeMap<String, Box<RawValue>>;

/// An `input_required` result (without `_meta` and `resultType`, which the modern result
/// envelope writes). At least one member is present.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequired {
    /// What the client must answer before it retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque text the client sends back unchanged with its retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl InputRequired {
    /// An `input_required` result asking `requests`, carrying `state` to the retry.
    pub fn new(requests: InputRequests, state: Option<String>) -> Self {
        InputRequired { input_requests: (!requests.is_empty()).then_some(requests), request_state: state }
    }
}

/// The members a retried request carries beside its own params (2026-07-28
/// `InputResponseRequestParams`): read from, or flattened into, a `tools/call`,
/// `prompts/get` or `resources/read` params object.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRound {
    /// The client's answers to the previous round's `inputRequests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl InputRound {
    /// A retry answering `responses`, returning `state`.
    pub fn new(responses: InputResponses, state: Option<String>) -> Self {
        InputRound { input_responses: Some(responses), request_state: state }
    }

    /// Whether this request is a retry (it carries answers or a state).
    pub fn is_retry(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }
}

// Reading these is the client's (their `Deserialize` is derived with the feature).
#[cfg(all(test, feature = "client"))]
mod tests {
    use super::*;

    #[test]
    fn the_spec_example_reads_and_writes_back() {
        let text = r#"{"inputRequests":{"capital_of_france":{"method":"sampling/createMessage","params":{"maxTokens":100,"messages":[]}},"github_login":{"method":"elicitation/create","params":{"message":"Please provide your GitHub username"}}},"requestState":"eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"}"#;
        let r: InputRequired = serde_json::from_str(text).unwrap();
        let reqs = r.input_requests.as_ref().unwrap();
        assert_eq!(reqs["github_login"].method, "elicitation/create");
        assert_eq!(r.request_state.as_deref(), Some("eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"));
        assert_eq!(serde_json::to_string(&r).unwrap(), text);
    }

    #[test]
    fn a_round_without_members_is_not_a_retry() {
        let r: InputRound = serde_json::from_str(r#"{"name":"t","arguments":{}}"#).unwrap();
        assert!(!r.is_retry());
        let r: InputRound =
            serde_json::from_str(r#"{"inputResponses":{"k":{"action":"accept"}},"requestState":"s"}"#)
                .unwrap();
        assert!(r.is_retry());
        assert_eq!(r.input_responses.unwrap()["k"].get(), r#"{"action":"accept"}"#);
        assert_eq!(
            serde_json::to_string(&InputRequired::new(InputRequests::new(), Some("s".into()))).unwrap(),
            r#"{"requestState":"s"}"#
        );
    }
}
