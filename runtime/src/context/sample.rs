//! Asking the client's model for a completion in the middle of a call:
//! [`Context::sample`] sends `sampling/createMessage` with a [`SamplingRequest`] and reads
//! back a [`Sampled`] message.
//!
//! Sampling with tools (2025-11-25, SEP-1577) is here too, and the client side uses the same
//! types: a [`SamplingTool`] offered with [`SamplingRequest::offer`], a [`ToolChoice`], the
//! model's [`SamplingToolUse`] blocks read with [`Sampled::tool_uses`], and the
//! [`SamplingToolResult`] blocks a tool sends back with [`SamplingRequest::tool_results`].
//! The loop (sample, run the tools the model chose, sample again) is the tool author's.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::Context;
use super::error::AskError;
use crate::protocol::methods;

/// One message of a sampling conversation: what a tool sends in a [`SamplingRequest`], and
/// what a client's sampling handler reads (`CreateMessageRequest::messages` with the `client`
/// feature). One type for the one wire message, on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// `"user"` or `"assistant"`.
    pub role: String,
    /// The content: one block (`{"type":"text","text":…}` for text, an image, audio) or an
    /// array of blocks (2025-11-25: a turn of `tool_use` or `tool_result` blocks), as sent.
    pub content: Value,
}

impl SamplingMessage {
    fn new(role: &str, content: Value) -> SamplingMessage {
        SamplingMessage { role: role.to_owned(), content }
    }

    /// The `tool_use` blocks of an assistant turn: the tools the model called earlier in
    /// the conversation (sampling with tools).
    pub fn tool_uses(&self) -> Vec<SamplingToolUse> {
        blocks_of(&self.content, "tool_use")
    }

    /// The `tool_result` blocks of a user turn: what those calls returned.
    pub fn tool_results(&self) -> Vec<SamplingToolResult> {
        blocks_of(&self.content, "tool_result")
    }

    /// The text of this turn: its text block, or its text blocks joined with newlines.
    pub fn text(&self) -> Option<String> {
        fn text_of(b: &Value) -> Option<&str> {
            (b.get("type")? == "text").then(|| b.get("text")?.as_str()).flatten()
        }
        match &self.content {
            Value::Array(blocks) => {
                let parts: Vec<&str> = blocks.iter().filter_map(text_of).collect();
                (!parts.is_empty()).then(|| parts.join("\n"))
            }
            block => text_of(block).map(str::to_owned),
        }
    }
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
    /// The tools the model may call ([`offer`](Self::offer)); sent only to a client that
    /// declared `sampling.tools`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<SamplingTool>,
    /// Whether the model must, may or must not call a tool ([`tool_choice`](Self::tool_choice)).
    #[serde(rename = "toolChoice", skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
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
            tools: Vec::new(),
            tool_choice: None,
        }
    }

    /// Append a user turn of text.
    pub fn user(mut self, text: impl Into<String>) -> SamplingRequest {
        self.messages.push(SamplingMessage::new("user", text_block(text.into())));
        self
    }

    /// Append an assistant turn of text.
    pub fn assistant(mut self, text: impl Into<String>) -> SamplingRequest {
        self.messages.push(SamplingMessage::new("assistant", text_block(text.into())));
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

    /// Offer the model a tool it may call: a [`SamplingTool`], or a registered tool's
    /// `&ToolInfo` (its name, description and input schema). Needs the client's
    /// `sampling.tools` capability: [`Context::sample`] refuses otherwise.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::context::{SamplingRequest, SamplingTool, ToolChoice};
    ///
    /// let weather = SamplingTool::new(
    ///     "get_weather",
    ///     "The weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    /// );
    /// let request = SamplingRequest::new(200)
    ///     .user("Is it warm in Paris?")
    ///     .offer(weather)
    ///     .tool_choice(ToolChoice::Auto);
    /// let wire = serde_json::to_value(&request).unwrap();
    /// assert_eq!(wire["tools"][0]["inputSchema"]["required"], json!(["city"]));
    /// assert_eq!(wire["toolChoice"], json!({"mode": "auto"}));
    /// ```
    pub fn offer(mut self, tool: impl Into<SamplingTool>) -> SamplingRequest {
        self.tools.push(tool.into());
        self
    }

    /// Say whether the model must ([`ToolChoice::Required`]), may ([`ToolChoice::Auto`], the
    /// client's default) or must not ([`ToolChoice::None`]) call an offered tool. Setting one
    /// needs the client's `sampling.tools`, as offering a tool does.
    ///
    /// ```
    /// use toolwire::context::{SamplingRequest, ToolChoice};
    ///
    /// let request = SamplingRequest::new(50).user("Answer from memory.").tool_choice(ToolChoice::None);
    /// assert_eq!(serde_json::to_value(&request).unwrap()["toolChoice"]["mode"], "none");
    /// ```
    pub fn tool_choice(mut self, choice: ToolChoice) -> SamplingRequest {
        self.tool_choice = Some(choice);
        self
    }

    /// Append the model's answer as the assistant turn, its content as the client sent it
    /// (its `tool_use` blocks included), before the [`tool_results`](Self::tool_results)
    /// that answer it.
    pub fn assistant_turn(mut self, answer: &Sampled) -> SamplingRequest {
        self.messages.push(SamplingMessage::new("assistant", answer.content.clone()));
        self
    }

    /// Append a user turn of `tool_result` blocks, one for each `tool_use` of the previous
    /// assistant turn (the spec wants a turn of tool results to hold nothing else).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::context::{SamplingRequest, SamplingToolResult};
    ///
    /// let request = SamplingRequest::new(200)
    ///     .user("Is it warm in Paris?")
    ///     .tool_results([SamplingToolResult::text("call-1", "21C")]);
    /// assert_eq!(
    ///     serde_json::to_value(&request.messages[1]).unwrap(),
    ///     json!({"role": "user", "content": [{"type": "tool_result", "toolUseId": "call-1",
    ///         "content": [{"type": "text", "text": "21C"}]}]})
    /// );
    /// ```
    pub fn tool_results(mut self, results: impl IntoIterator<Item = SamplingToolResult>) -> SamplingRequest {
        let blocks: Vec<Value> = results.into_iter().map(|r| to_block(&r)).collect();
        self.messages.push(SamplingMessage::new("user", Value::Array(blocks)));
        self
    }

    /// Whether this request uses sampling with tools (tools offered or a tool choice set),
    /// which needs the client's `sampling.tools`.
    fn uses_tools(&self) -> bool {
        !self.tools.is_empty() || self.tool_choice.is_some()
    }

    /// Whether every user turn of tool results holds tool results only, and answers exactly
    /// the calls of the assistant turn before it (what the spec asks; a model provider
    /// refuses a conversation that breaks it). `Err` says what is wrong.
    fn check_tool_turns(&self) -> Result<(), String> {
        let ids = |blocks: Vec<&Value>, kind: &str, key: &str| -> Vec<String> {
            let mut ids: Vec<String> = blocks
                .into_iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
                .map(|b| b.get(key).and_then(Value::as_str).unwrap_or_default().to_owned())
                .collect();
            ids.sort();
            ids
        };
        for (i, turn) in self.messages.iter().enumerate() {
            let blocks = content_blocks(&turn.content);
            let answered = ids(blocks.clone(), "tool_result", "toolUseId");
            if answered.is_empty() {
                continue;
            }
            if turn.role != "user" || answered.len() != blocks.len() {
                return Err(format!(
                    "message {i} holds tool results beside other content or in an assistant turn; tool results go alone in a user turn"
                ));
            }
            let called = match i.checked_sub(1).map(|p| &self.messages[p]) {
                Some(previous) if previous.role == "assistant" => {
                    ids(content_blocks(&previous.content), "tool_use", "id")
                }
                _ => Vec::new(),
            };
            if called != answered {
                return Err(format!(
                    "message {i} answers tool calls [{}], but the assistant turn before it called [{}]",
                    answered.join(", "),
                    called.join(", ")
                ));
            }
        }
        Ok(())
    }
}

fn text_block(text: String) -> Value {
    serde_json::json!({ "type": "text", "text": text })
}

fn to_block<T: Serialize>(block: &T) -> Value {
    // A struct of strings and JSON values: serialising it cannot fail.
    serde_json::to_value(block).unwrap_or(Value::Null)
}

/// The blocks of a sampling message's content: one block, or an array of them (2025-11-25).
fn content_blocks(content: &Value) -> Vec<&Value> {
    match content {
        Value::Array(blocks) => blocks.iter().collect(),
        block => vec![block],
    }
}

/// The blocks of `content` whose `type` is `kind`, read as `T` (a block that does not read
/// is skipped).
fn blocks_of<T: for<'de> Deserialize<'de>>(content: &Value, kind: &str) -> Vec<T> {
    content_blocks(content)
        .into_iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
        .filter_map(|b| serde_json::from_value(b.clone()).ok())
        .collect()
}

/// A tool offered to the model during sampling (`tools` of `sampling/createMessage`): what
/// the server sends and what a client's sampling handler reads (`CreateMessageRequest::tools`
/// with the `client` feature).
///
/// ```
/// use serde_json::json;
/// use toolwire::context::SamplingTool;
///
/// let tool = SamplingTool::new("add", "Add two numbers.", json!({"type": "object"}));
/// assert_eq!(
///     serde_json::to_value(&tool).unwrap(),
///     json!({"name": "add", "description": "Add two numbers.", "inputSchema": {"type": "object"}})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingTool {
    /// The tool's name.
    pub name: String,
    /// What it does (untrusted when read from a server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments' JSON Schema.
    #[serde(default)]
    pub input_schema: Value,
}

impl SamplingTool {
    /// A tool named `name` that does what `description` says and takes arguments matching
    /// `input_schema`.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> SamplingTool {
        SamplingTool { name: name.into(), description: Some(description.into()), input_schema }
    }
}

/// Whether the model must call a tool (`toolChoice` of `sampling/createMessage`), on the
/// wire `{"mode": "auto" | "required" | "none"}`. A client reading a `toolChoice` without a
/// mode, or with one it does not know, reads [`Auto`](ToolChoice::Auto), the spec's default.
///
/// ```
/// use toolwire::context::ToolChoice;
///
/// assert_eq!(serde_json::to_string(&ToolChoice::Required).unwrap(), r#"{"mode":"required"}"#);
/// assert_eq!(serde_json::from_str::<ToolChoice>("{}").unwrap(), ToolChoice::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (the default).
    Auto,
    /// The model must call at least one tool.
    Required,
    /// The model must not call a tool.
    None,
}

impl ToolChoice {
    /// The mode as the spec spells it: `auto`, `required`, `none`.
    pub fn mode(self) -> &'static str {
        match self {
            ToolChoice::Auto => "auto",
            ToolChoice::Required => "required",
            ToolChoice::None => "none",
        }
    }
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("mode", self.mode())?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ToolChoice, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            #[serde(default)]
            mode: Option<String>,
        }
        Ok(match Wire::deserialize(deserializer)?.mode.as_deref() {
            Some("required") => ToolChoice::Required,
            Some("none") => ToolChoice::None,
            _ => ToolChoice::Auto,
        })
    }
}

/// A `tool_use` block: the model calls a tool. Read from an answer with
/// [`Sampled::tool_uses`] (server) or `SamplingTurn::tool_uses` (client).
///
/// ```
/// use serde_json::json;
/// use toolwire::context::SamplingToolUse;
///
/// let block = json!({"type": "tool_use", "id": "call-1", "name": "add", "input": {"a": 1}});
/// let call: SamplingToolUse = serde_json::from_value(block.clone()).unwrap();
/// assert_eq!((call.id.as_str(), call.name.as_str()), ("call-1", "add"));
/// assert_eq!(serde_json::to_value(&call).unwrap(), block);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "tool_use")]
#[non_exhaustive]
pub struct SamplingToolUse {
    /// The call's id, echoed by its `tool_result`.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    #[serde(default)]
    pub input: Value,
}

/// A `tool_result` block: what a tool the model called returned, sent back in a user turn
/// with [`SamplingRequest::tool_results`], read by a client with `SamplingTurn::tool_results`.
///
/// ```
/// use serde_json::json;
/// use toolwire::context::SamplingToolResult;
///
/// let failed = SamplingToolResult::error("call-2", "no such city");
/// assert_eq!(
///     serde_json::to_value(&failed).unwrap(),
///     json!({"type": "tool_result", "toolUseId": "call-2",
///         "content": [{"type": "text", "text": "no such city"}], "isError": true})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "tool_result", rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingToolResult {
    /// The id of the `tool_use` it answers.
    pub tool_use_id: String,
    /// Its content blocks (an array, as a tool call's result content).
    #[serde(default)]
    pub content: Value,
    /// Its structured result, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl SamplingToolResult {
    /// The result of call `tool_use_id`: `content`, an array of content blocks.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<Value>) -> SamplingToolResult {
        SamplingToolResult {
            tool_use_id: tool_use_id.into(),
            content: Value::Array(content),
            structured_content: None,
            is_error: None,
        }
    }

    /// The result of call `tool_use_id`: one text block.
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>) -> SamplingToolResult {
        SamplingToolResult::new(tool_use_id, vec![text_block(text.into())])
    }

    /// Call `tool_use_id` failed, as `message` says (`isError: true`), so the model can
    /// recover.
    pub fn error(tool_use_id: impl Into<String>, message: impl Into<String>) -> SamplingToolResult {
        SamplingToolResult { is_error: Some(true), ..SamplingToolResult::text(tool_use_id, message) }
    }
}

/// The message the client's model produced.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Sampled {
    /// Who produced it (`"assistant"`).
    pub role: String,
    /// The content, as JSON: one block (`{"type":"text","text":…}`, an image, audio, a
    /// `tool_use`) or an array of blocks (2025-11-25).
    pub content: Value,
    /// The model that produced it, as the client names it.
    pub model: String,
    /// Why sampling stopped (`"endTurn"`, `"maxTokens"`, `"toolUse"`, …), when the client says.
    #[serde(rename = "stopReason", default)]
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// The text of the first text block (the content's one block, or the first in its array).
    pub fn text(&self) -> Option<&str> {
        content_blocks(&self.content)
            .into_iter()
            .find_map(|b| (b.get("type")? == "text").then(|| b.get("text")?.as_str()).flatten())
    }

    /// The tools the model called (its `tool_use` blocks), in order; empty when it called
    /// none. Answer each with a [`SamplingToolResult`] of the same id, after the
    /// [`assistant_turn`](SamplingRequest::assistant_turn) that holds the calls.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwire::context::{Sampled, SamplingRequest, SamplingToolResult};
    ///
    /// let answer: Sampled = serde_json::from_value(json!({
    ///     "role": "assistant", "model": "m", "stopReason": "toolUse",
    ///     "content": [{"type": "text", "text": "Checking."},
    ///                 {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris"}}]
    /// }))
    /// .unwrap();
    /// let calls = answer.tool_uses();
    /// assert_eq!((calls[0].name.as_str(), &calls[0].input["city"]), ("get_weather", &json!("Paris")));
    /// let next = SamplingRequest::new(100)
    ///     .user("Is it warm in Paris?")
    ///     .assistant_turn(&answer)
    ///     .tool_results([SamplingToolResult::text(&calls[0].id, "21C")]);
    /// assert_eq!(next.messages[1].content, answer.content);
    /// ```
    pub fn tool_uses(&self) -> Vec<SamplingToolUse> {
        blocks_of(&self.content, "tool_use")
    }
}

impl Context {
    /// Ask the client's model for a completion of `request`. Needs the client's `sampling`
    /// capability ([`AskError::NotDeclared`] otherwise, and nothing is sent), and its
    /// `sampling.tools` when the request offers tools or sets a tool choice (the same
    /// refusal); a turn of tool results that does not answer exactly the calls of the
    /// assistant turn before it is [`AskError::Unavailable`] (nothing sent); an answer without
    /// `role`, `content` and `model` is [`AskError::BadAnswer`].
    ///
    /// With tools offered, the loop is the tool's: while the answer has
    /// [`tool_uses`](Sampled::tool_uses), run them, append the
    /// [`assistant_turn`](SamplingRequest::assistant_turn) and the
    /// [`tool_results`](SamplingRequest::tool_results), and sample again:
    ///
    /// ```no_run
    /// use serde_json::json;
    /// use toolwire::context::{AskError, SamplingRequest, SamplingTool, SamplingToolResult};
    /// use toolwire::Context;
    ///
    /// async fn agent(ctx: &Context) -> Result<String, AskError> {
    ///     let add = SamplingTool::new("add", "Add two numbers.", json!({"type": "object"}));
    ///     let mut request = SamplingRequest::new(200).user("What is 2 + 3?").offer(add);
    ///     for _ in 0..5 {
    ///         let answer = ctx.sample(request.clone()).await?;
    ///         let calls = answer.tool_uses();
    ///         if calls.is_empty() {
    ///             return Ok(answer.text().unwrap_or_default().to_owned());
    ///         }
    ///         let results = calls.iter().map(|call| {
    ///             let sum = call.input["a"].as_i64().unwrap_or(0) + call.input["b"].as_i64().unwrap_or(0);
    ///             SamplingToolResult::text(&call.id, sum.to_string())
    ///         });
    ///         request = request.assistant_turn(&answer).tool_results(results.collect::<Vec<_>>());
    ///     }
    ///     Ok("the model kept calling tools".to_owned())
    /// }
    /// ```
    pub async fn sample(&self, request: SamplingRequest) -> Result<Sampled, AskError> {
        self.sample_keyed(None, request).await
    }

    /// [`sample`](Self::sample) under `key` (see [`elicit_as`](Self::elicit_as)).
    pub async fn sample_as(&self, key: &str, request: SamplingRequest) -> Result<Sampled, AskError> {
        self.sample_keyed(Some(key), request).await
    }

    async fn sample_keyed(&self, key: Option<&str>, request: SamplingRequest) -> Result<Sampled, AskError> {
        let talk = self.talkback(methods::SAMPLING_CREATE_MESSAGE)?;
        let capabilities = talk.capabilities();
        if !capabilities.sampling {
            return Err(AskError::NotDeclared {
                capability: "sampling",
                what: methods::SAMPLING_CREATE_MESSAGE,
            });
        }
        if request.uses_tools() && !capabilities.sampling_tools {
            return Err(AskError::NotDeclared {
                capability: "sampling.tools",
                what: "sampling/createMessage with tools",
            });
        }
        request
            .check_tool_turns()
            .map_err(|why| AskError::Unavailable { what: methods::SAMPLING_CREATE_MESSAGE, why })?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_with_tools_and_its_follow_up_serialise_as_the_spec_shapes() {
        let tool = SamplingTool::new("add", "Add.", json!({"type": "object"}));
        let first = SamplingRequest::new(10).user("2+3?").offer(tool).tool_choice(ToolChoice::Required);
        let answer: Sampled = serde_json::from_value(json!({
            "role": "assistant", "model": "m", "stopReason": "toolUse",
            "content": [{"type": "text", "text": "Let me add."},
                        {"type": "tool_use", "id": "c1", "name": "add", "input": {"a": 2, "b": 3}}]
        }))
        .unwrap();
        assert_eq!(answer.text(), Some("Let me add."));
        let calls = answer.tool_uses();
        assert_eq!(calls.len(), 1);
        assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("c1", "add"));
        assert_eq!(calls[0].input, json!({"a": 2, "b": 3}));
        let next = first.assistant_turn(&answer).tool_results([SamplingToolResult::text("c1", "5")]);
        assert_eq!(
            serde_json::to_value(&next).unwrap(),
            json!({
                "maxTokens": 10,
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "2+3?"}},
                    {"role": "assistant", "content": answer.content},
                    {"role": "user", "content": [{"type": "tool_result", "toolUseId": "c1",
                        "content": [{"type": "text", "text": "5"}]}]}
                ],
                "tools": [{"name": "add", "description": "Add.", "inputSchema": {"type": "object"}}],
                "toolChoice": {"mode": "required"}
            })
        );
        // Text only: no tools member, no toolChoice, and the request needs no `sampling.tools`.
        let plain = SamplingRequest::new(5).user("hi");
        assert!(!plain.uses_tools());
        assert_eq!(serde_json::to_value(&plain).unwrap().get("tools"), None);
        assert!(SamplingRequest::new(5).tool_choice(ToolChoice::None).uses_tools());
    }

    /// A client that records what it is asked and answers `answer`.
    struct Recording {
        caps: crate::protocol::ClientCapabilities,
        sent: std::sync::Mutex<Vec<String>>,
    }

    impl super::super::Talkback for Recording {
        fn capabilities(&self) -> crate::protocol::ClientCapabilities {
            self.caps
        }
        fn log_level(&self) -> Option<crate::protocol::LoggingLevel> {
            None
        }
        fn notify(&self, _method: &str, _params: String) {}
        fn request(&self, _method: &'static str, params: String) -> super::super::Asked {
            self.sent.lock().unwrap().push(params);
            Box::pin(async {
                let text = r#"{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}"#;
                Ok(serde_json::value::RawValue::from_string(text.to_owned()).unwrap())
            })
        }
    }

    fn ask(caps: &str, request: SamplingRequest) -> (Result<Sampled, AskError>, Vec<String>) {
        let raw = serde_json::value::RawValue::from_string(caps.to_owned()).unwrap();
        let talk = std::sync::Arc::new(Recording {
            caps: crate::protocol::ClientCapabilities::read(Some(&raw)),
            sent: Default::default(),
        });
        let ctx = Context::builder().talkback(talk.clone()).build();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let answer = runtime.block_on(ctx.sample(request));
        let sent = talk.sent.lock().unwrap().clone();
        (answer, sent)
    }

    #[test]
    fn tools_need_sampling_tools_and_tool_results_must_answer_the_calls_before_them() {
        let offered = || SamplingRequest::new(9).user("q").offer(SamplingTool::new("t", "T.", json!({})));
        let (refused, sent) = ask(r#"{"sampling":{}}"#, offered());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "the client did not declare the `sampling.tools` capability, so it cannot be asked for sampling/createMessage with tools; nothing was sent"
        );
        assert!(sent.is_empty(), "{sent:?}");
        let (chosen, sent) =
            ask(r#"{"sampling":{}}"#, SamplingRequest::new(9).user("q").tool_choice(ToolChoice::None));
        assert!(
            matches!(chosen, Err(AskError::NotDeclared { capability: "sampling.tools", .. }))
                && sent.is_empty()
        );
        let (plain, sent) = ask(r#"{"sampling":{}}"#, SamplingRequest::new(9).user("q"));
        assert_eq!(plain.unwrap().text(), Some("ok"));
        assert_eq!(sent.len(), 1);

        let call: Sampled = serde_json::from_value(json!({"role": "assistant", "model": "m",
            "content": {"type": "tool_use", "id": "c1", "name": "t", "input": {}}}))
        .unwrap();
        let tools = r#"{"sampling":{"tools":{}}}"#;
        let (ok, sent) =
            ask(tools, offered().assistant_turn(&call).tool_results([SamplingToolResult::text("c1", "r")]));
        assert!(ok.is_ok() && sent.len() == 1, "{ok:?}");
        let (wrong, sent) =
            ask(tools, offered().assistant_turn(&call).tool_results([SamplingToolResult::text("c2", "r")]));
        assert_eq!(
            wrong.unwrap_err().to_string(),
            "cannot ask the client for sampling/createMessage: message 2 answers tool calls [c2], but the assistant turn before it called [c1]"
        );
        assert!(sent.is_empty());
        let mut mixed = offered().assistant_turn(&call).tool_results([SamplingToolResult::text("c1", "r")]);
        mixed.messages[2].content.as_array_mut().unwrap().push(json!({"type": "text", "text": "and"}));
        assert_eq!(
            ask(tools, mixed).0.unwrap_err().to_string(),
            "cannot ask the client for sampling/createMessage: message 2 holds tool results beside other content or in an assistant turn; tool results go alone in a user turn"
        );
    }

    #[test]
    fn a_single_tool_use_block_and_tool_choices_read() {
        let one: Sampled = serde_json::from_value(json!({"role": "assistant", "model": "m",
            "content": {"type": "tool_use", "id": "c", "name": "t", "input": {}}}))
        .unwrap();
        assert_eq!(one.tool_uses().len(), 1);
        assert_eq!(one.text(), None);
        for (wire, choice) in [
            (json!({"mode": "none"}), ToolChoice::None),
            (json!({"mode": "required"}), ToolChoice::Required),
            (json!({"mode": "telepathy"}), ToolChoice::Auto),
        ] {
            assert_eq!(serde_json::from_value::<ToolChoice>(wire).unwrap(), choice);
        }
    }
}
