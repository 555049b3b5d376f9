//! What a server may ask of the client, typed: [`ElicitationRequest`] answered by an
//! [`Elicited`], [`CreateMessageRequest`] answered by a [`CreateMessageResult`], and what a
//! server tells it: [`LogMessage`], [`ListChanged`].
//!
//! One set of handlers serves both eras. In a legacy session (2024-11-05 … 2025-11-25) the
//! server sends `elicitation/create`, `sampling/createMessage` or `roots/list` as a JSON-RPC
//! request and the handler's answer is the response. On 2026-07-28 the same questions come
//! as the `inputRequests` of an `input_required` result, and the client retries the call
//! with the handlers' answers (see [`ClientOptions::max_input_rounds`](super::ClientOptions::max_input_rounds)).
//! A handler never needs to know which era asked.
//!
//! ```
//! use toolwire::client::{ClientOptions, CreateMessageResult, ElicitationMode, Elicited};
//!
//! let options = ClientOptions::new("weather")
//!     .on_elicit(|request| async move {
//!         match request.mode {
//!             ElicitationMode::Form { .. } => {
//!                 let mut content = serde_json::Map::new();
//!                 content.insert("name".into(), "Ada".into());
//!                 Ok(Elicited::accept(content))
//!             }
//!             _ => Ok(Elicited::decline()),
//!         }
//!     })
//!     .on_sample(|request| async move {
//!         let question = request.last_text().unwrap_or_default().to_owned();
//!         Ok(CreateMessageResult::text("my-model", format!("you asked: {question}")))
//!     });
//! # let _ = options;
//! ```

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::protocol::LoggingLevel;

/// The sampling-with-tools blocks, one set of types for both sides (defined in
/// [`context`](crate::context), where a server's tool offers and reads them).
pub use crate::context::{SamplingMessage, SamplingTool, SamplingToolResult, SamplingToolUse, ToolChoice};

/// Why a handler declined a server's request: sent back as a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HandlerError {
    /// The JSON-RPC code.
    pub code: i64,
    /// The message.
    pub message: String,
}

impl HandlerError {
    /// Decline with JSON-RPC error `code` and `message`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        HandlerError { code, message: message.into() }
    }
}

/// The future a [`RequestHandler`] returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Value, HandlerError>> + Send>>;

/// Answers a server-initiated request (`sampling/createMessage`, `elicitation/create`): given
/// its `params`, returns its `result`, as raw JSON. The typed
/// [`ClientOptions::on_elicit`](super::ClientOptions::on_elicit) and [`ClientOptions::on_sample`](super::ClientOptions::on_sample) are usually nicer.
pub type RequestHandler = Arc<dyn Fn(Value) -> HandlerFuture + Send + Sync>;

/// JSON-RPC "invalid params": what a handler answers to params it cannot read.
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// What an `elicitation/create` asks the user for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationMode {
    /// Fill in a form: a flat object schema (`requestedSchema`) whose fields are strings,
    /// numbers, booleans or enums, each maybe with a `default`.
    Form {
        /// The schema the answer's `content` must match, as sent (untrusted).
        requested_schema: Value,
    },
    /// Visit `url` out of band (2025-11-25 `mode: "url"`): the data never passes through
    /// the client. Accept means the user agreed to open it, not that they finished.
    Url {
        /// The page to open (untrusted: show its host to the user before opening it).
        url: String,
        /// The server's id for this interaction, echoed by
        /// `notifications/elicitation/complete` (see
        /// [`ClientOptions::on_elicitation_complete`](super::ClientOptions::on_elicitation_complete)).
        elicitation_id: Option<String>,
    },
}

/// One `elicitation/create`, as a handler set with
/// [`ClientOptions::on_elicit`](super::ClientOptions::on_elicit) sees it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// Why the server asks, to show the user (untrusted text).
    pub message: String,
    /// A form or a URL.
    pub mode: ElicitationMode,
    /// The request's params, whole, for what the typed fields leave out.
    pub params: Value,
}

impl ElicitationRequest {
    /// Read `elicitation/create` params; `Err` says, in our words, what is missing.
    pub(crate) fn from_params(params: Value) -> Result<ElicitationRequest, String> {
        let message = params.get("message").and_then(Value::as_str).ok_or("`message` is not a string")?;
        let mode = match params.get("mode").and_then(Value::as_str) {
            None | Some("form") => ElicitationMode::Form {
                requested_schema: params.get("requestedSchema").cloned().unwrap_or(Value::Null),
            },
            Some("url") => ElicitationMode::Url {
                url: params.get("url").and_then(Value::as_str).ok_or("`url` is not a string")?.to_owned(),
                elicitation_id: params.get("elicitationId").and_then(Value::as_str).map(str::to_owned),
            },
            Some(other) => return Err(format!("elicitation mode '{other}' is not one this client knows")),
        };
        Ok(ElicitationRequest { message: message.to_owned(), mode, params })
    }

    /// Each property of a form's schema that has a `default`, with it: the answer of a
    /// user who accepted without changing anything (empty for a URL).
    pub fn defaults(&self) -> Map<String, Value> {
        let ElicitationMode::Form { requested_schema } = &self.mode else { return Map::new() };
        let Some(props) = requested_schema.get("properties").and_then(Value::as_object) else {
            return Map::new();
        };
        props.iter().filter_map(|(name, s)| Some((name.clone(), s.get("default")?.clone()))).collect()
    }
}

/// The user's answer to an elicitation: accept (with the form's content), decline, or
/// cancel (dismissed without choosing).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Elicited {
    /// `accept`, `decline` or `cancel`.
    pub action: &'static str,
    /// What the user entered (a form accepted); `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl Elicited {
    /// The user submitted the form with `content`.
    pub fn accept(content: Map<String, Value>) -> Elicited {
        Elicited { action: "accept", content: Some(content) }
    }

    /// The user agreed to open a URL (no content: it never passes through the client).
    pub fn accept_url() -> Elicited {
        Elicited { action: "accept", content: None }
    }

    /// The user explicitly said no.
    pub fn decline() -> Elicited {
        Elicited { action: "decline", content: None }
    }

    /// The user dismissed the question without choosing.
    pub fn cancel() -> Elicited {
        Elicited { action: "cancel", content: None }
    }
}

/// One `sampling/createMessage`, as a handler set with
/// [`ClientOptions::on_sample`](super::ClientOptions::on_sample) sees it. The server's
/// words are untrusted: a host shows the request to the user before sampling.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequest {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens to sample.
    pub max_tokens: u64,
    /// The server's system prompt, if any.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// The temperature, if any.
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Sequences that end sampling.
    #[serde(default)]
    pub stop_sequences: Vec<String>,
    /// `modelPreferences` (hints and priorities), as sent.
    #[serde(default)]
    pub model_preferences: Option<Value>,
    /// The tools the model may call (sampling with tools; sent only to a client that
    /// declared it with
    /// [`ClientOptions::sampling_with_tools`](super::ClientOptions::sampling_with_tools)).
    #[serde(default)]
    pub tools: Vec<SamplingTool>,
    /// `toolChoice`: whether the model must, may or must not call a tool, if the server said.
    #[serde(default)]
    pub tool_choice: Option<ToolChoice>,
    /// The request's params, whole, for what the typed fields leave out
    /// (`includeContext`, `metadata`).
    #[serde(skip)]
    pub params: Value,
}

impl CreateMessageRequest {
    /// Read `sampling/createMessage` params; `Err` says what is wrong.
    pub(crate) fn from_params(params: Value) -> Result<CreateMessageRequest, String> {
        let mut request = CreateMessageRequest::deserialize(&params).map_err(|e| e.to_string())?;
        request.params = params;
        Ok(request)
    }

    /// The text of the last turn, usually the question.
    pub fn last_text(&self) -> Option<String> {
        self.messages.last().and_then(SamplingMessage::text)
    }
}

/// The model's answer to a [`CreateMessageRequest`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who produced it: `assistant`.
    pub role: String,
    /// The content block, e.g. `{"type":"text","text":..}`.
    pub content: Value,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `maxTokens`, `stopSequence`, `toolUse`), if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// An assistant's text answer from `model`, ended at the end of its turn.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> CreateMessageResult {
        CreateMessageResult {
            role: "assistant".to_owned(),
            content: serde_json::json!({"type": "text", "text": text.into()}),
            model: model.into(),
            stop_reason: Some("endTurn".to_owned()),
        }
    }

    /// The model calls tool `name` with `input` (sampling with tools): a `tool_use` block
    /// with the call's `id`, stopped for `toolUse`. The server runs the tool and samples
    /// again with the result in a `tool_result` block.
    pub fn tool_use(
        model: impl Into<String>,
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
    ) -> CreateMessageResult {
        CreateMessageResult {
            role: "assistant".to_owned(),
            content: serde_json::json!({"type": "tool_use", "id": id.into(), "name": name.into(), "input": input}),
            model: model.into(),
            stop_reason: Some("toolUse".to_owned()),
        }
    }
}

/// One `notifications/message` from the server, for
/// [`ClientOptions::on_log`](super::ClientOptions::on_log).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LogMessage {
    /// Its severity.
    pub level: LoggingLevel,
    /// The logger that wrote it, if the server named one (untrusted).
    pub logger: Option<String>,
    /// What was logged: any JSON (untrusted).
    pub data: Value,
}

/// Which of the server's lists changed (`notifications/{tools,resources,prompts}/list_changed`),
/// for [`ClientOptions::on_list_changed`](super::ClientOptions::on_list_changed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListChanged {
    /// `notifications/tools/list_changed`: the tool cache was dropped.
    Tools,
    /// `notifications/resources/list_changed`: the resource and template caches were dropped.
    Resources,
    /// `notifications/prompts/list_changed` (prompts are never cached).
    Prompts,
}

/// Which way a message crossed, for [`ClientOptions::on_message`](super::ClientOptions::on_message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Direction {
    /// From the client to the server.
    Sent,
    /// From the server to the client.
    Received,
}

/// A message observer: runs on the sender's task or the connection's reader, so keep it
/// short and never block.
pub type MessageFn = Arc<dyn Fn(Direction, &str) + Send + Sync>;

/// A log handler: runs on the connection's reader, so keep it short and never block.
pub type LogFn = Arc<dyn Fn(LogMessage) + Send + Sync>;

/// A list-changed callback: runs on the connection's reader, so keep it short.
pub type ListChangedFn = Arc<dyn Fn(ListChanged) + Send + Sync>;

/// A `notifications/elicitation/complete` callback, given the `elicitationId` of a URL
/// elicitation this client accepted. Runs on the connection's reader.
pub type ElicitationCompleteFn = Arc<dyn Fn(&str) + Send + Sync>;

/// `handler` (typed) as the raw [`RequestHandler`] the connection calls: params that do not
/// read as `Req` are refused with -32602 and the handler is not called.
pub(crate) fn typed<Req, Ans, F, Fut>(
    what: &'static str,
    read: fn(Value) -> Result<Req, String>,
    handler: F,
) -> RequestHandler
where
    Req: Send + 'static,
    Ans: Serialize,
    F: Fn(Req) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Ans, HandlerError>> + Send + 'static,
{
    Arc::new(move |params: Value| -> HandlerFuture {
        match read(params) {
            Ok(request) => {
                let fut = handler(request);
                Box::pin(async move {
                    let answer = fut.await?;
                    serde_json::to_value(answer)
                        .map_err(|e| HandlerError::new(-32603, format!("the answer did not serialise: {e}")))
                })
            }
            Err(why) => {
                let error = HandlerError::new(INVALID_PARAMS, format!("invalid {what} params: {why}"));
                Box::pin(async move { Err(error) })
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_form_and_a_url_read_and_a_form_has_its_defaults() {
        let form = ElicitationRequest::from_params(json!({
            "message": "who?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "Ada"}, "age": {"type": "integer"}}}
        }))
        .unwrap();
        assert!(matches!(form.mode, ElicitationMode::Form { .. }));
        assert_eq!(Value::Object(form.defaults()), json!({"name": "Ada"}));
        let url = ElicitationRequest::from_params(
            json!({"mode": "url", "message": "sign in", "url": "https://x.test/a", "elicitationId": "e1"}),
        )
        .unwrap();
        assert_eq!(
            url.mode,
            ElicitationMode::Url { url: "https://x.test/a".into(), elicitation_id: Some("e1".into()) }
        );
        assert_eq!(
            ElicitationRequest::from_params(json!({"mode": "telepathy", "message": "m"})).unwrap_err(),
            "elicitation mode 'telepathy' is not one this client knows"
        );
        assert_eq!(ElicitationRequest::from_params(json!({})).unwrap_err(), "`message` is not a string");
    }

    #[test]
    fn answers_serialise_as_the_spec_shapes() {
        let mut c = Map::new();
        c.insert("name".into(), "Ada".into());
        assert_eq!(
            serde_json::to_value(Elicited::accept(c)).unwrap(),
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
        assert_eq!(serde_json::to_value(Elicited::cancel()).unwrap(), json!({"action": "cancel"}));
        assert_eq!(
            serde_json::to_value(CreateMessageResult::text("m", "hi")).unwrap(),
            json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "endTurn"})
        );
        let s = CreateMessageRequest::from_params(json!({"maxTokens": 5, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]}))
        .unwrap();
        assert_eq!(s.last_text().as_deref(), Some("a\nb"));
        assert_eq!(
            CreateMessageRequest::from_params(json!({"messages": []})).unwrap_err(),
            "missing field `maxTokens`"
        );
    }
}
