//! What travels with a hub call (run id, idempotency key), the host's gate that decides each
//! call and fails closed, and the stable error codes a host branches on (seed 004 row 21).

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::tool::{RemoteError, ToolError};

/// The `_meta` key carrying the run id.
pub const RUN_ID_META: &str = "io.toolwire/run-id";
/// The `_meta` key carrying the idempotency key.
pub const IDEMPOTENCY_KEY_META: &str = "io.toolwire/idempotency-key";

/// One call's extras: the run it belongs to and its idempotency key, sent as the request's
/// `_meta` ([`RUN_ID_META`], [`IDEMPOTENCY_KEY_META`]) for a server that deduplicates, and
/// the [`Context`](crate::Context) (deadline, cancellation, progress).
///
/// The hub never retries a call; a host that does should send the same key again.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HubCall {
    /// The run id.
    pub run_id: Option<String>,
    /// The idempotency key.
    pub idempotency_key: Option<String>,
    /// The call's context.
    pub context: crate::Context,
}

impl HubCall {
    /// No run id, no key, a fresh context.
    pub fn new() -> Self {
        HubCall::default()
    }

    /// Send `run_id` as the call's run id.
    pub fn run_id(mut self, run_id: impl Into<String>) -> Self {
        self.run_id = Some(run_id.into());
        self
    }

    /// Send `key` as the call's idempotency key.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }

    /// Run under `context`.
    pub fn context(mut self, context: crate::Context) -> Self {
        self.context = context;
        self
    }

    pub(crate) fn meta(&self) -> Option<Map<String, Value>> {
        let mut meta = Map::new();
        if let Some(id) = &self.run_id {
            meta.insert(RUN_ID_META.into(), id.clone().into());
        }
        if let Some(key) = &self.idempotency_key {
            meta.insert(IDEMPOTENCY_KEY_META.into(), key.clone().into());
        }
        (!meta.is_empty()).then_some(meta)
    }
}

/// What the gate is asked about.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct GateRequest<'a> {
    /// The tool as the model names it.
    pub tool: &'a str,
    /// The server serving it.
    pub server: &'a str,
    /// The server's name for it.
    pub remote_name: &'a str,
    /// The arguments.
    pub arguments: &'a Value,
    /// The call's run id, if any.
    pub run_id: Option<&'a str>,
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Do not: the reason is shown in the error.
    Deny(String),
    /// The gate cannot decide: the call is denied (fail closed).
    Abstain,
}

/// The host's decision per call: being adopted is not being allowed (seed 004 row 23).
pub type Gate = Arc<dyn Fn(&GateRequest<'_>) -> Verdict + Send + Sync>;

/// A gate that allows every adopted tool: the explicit opt-out of gating.
pub fn allow_all() -> Gate {
    Arc::new(|_: &GateRequest<'_>| Verdict::Allow)
}

/// The stable class of a failed hub call. [`as_str`](Self::as_str) is the code a host or a
/// circuit breaker branches on; the first five are seed 004's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `MCP_PARAM_ERROR`: the arguments do not match the tool's schema.
    Parameters,
    /// `MCP_PARSE_ERROR`: the server's answer could not be read as a tool result.
    Parse,
    /// `MCP_TIMEOUT`: no answer in time (it may have run).
    Timeout,
    /// `MCP_NETWORK_ERROR`: the server could not be reached, is down, healing, disabled,
    /// or refused the credentials. Nothing ran; retryable once it is back.
    Network,
    /// `MCP_EXECUTION_ERROR`: the server ran it and reported a failure, or declined it.
    Execution,
    /// `MCP_OUTCOME_UNKNOWN`: an at-most-once call was cut off after it was sent. It may
    /// have run; it must not be re-run blindly.
    OutcomeUnknown,
    /// `MCP_PERMISSION_DENIED`: the host's gate denied or could not decide.
    Denied,
    /// `MCP_UNKNOWN_TOOL`: no declared server serves that name.
    UnknownTool,
    /// `MCP_CANCELLED`: the caller cancelled.
    Cancelled,
}

impl ErrorCode {
    /// The code's text, e.g. `MCP_PARAM_ERROR`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Parameters => "MCP_PARAM_ERROR",
            ErrorCode::Parse => "MCP_PARSE_ERROR",
            ErrorCode::Timeout => "MCP_TIMEOUT",
            ErrorCode::Network => "MCP_NETWORK_ERROR",
            ErrorCode::Execution => "MCP_EXECUTION_ERROR",
            ErrorCode::OutcomeUnknown => "MCP_OUTCOME_UNKNOWN",
            ErrorCode::Denied => "MCP_PERMISSION_DENIED",
            ErrorCode::UnknownTool => "MCP_UNKNOWN_TOOL",
            ErrorCode::Cancelled => "MCP_CANCELLED",
        }
    }

    /// The class of a tool error.
    pub fn of(error: &ToolError) -> ErrorCode {
        match error {
            ToolError::Arguments(_) => ErrorCode::Parameters,
            ToolError::DeadlineExceeded { .. } => ErrorCode::Timeout,
            ToolError::OutputMismatch { .. } => ErrorCode::Parse,
            ToolError::CancelledBeforeDispatch { .. } | ToolError::CancelledWhileRunning { .. } => {
                ErrorCode::Cancelled
            }
            // The client's one parse failure of a call's answer (`Client::call_tool`).
            ToolError::Failed { message, .. }
                if message.ends_with("sent a result that is not a tool result") =>
            {
                ErrorCode::Parse
            }
            ToolError::Remote(r) => match r {
                RemoteError::TimedOut { .. } => ErrorCode::Timeout,
                RemoteError::Unavailable { .. }
                | RemoteError::Unauthorized { .. }
                | RemoteError::HttpStatus { .. } => ErrorCode::Network,
                RemoteError::OutcomeUnknown { .. } => ErrorCode::OutcomeUnknown,
                _ => ErrorCode::Execution,
            },
            _ => ErrorCode::Execution,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed [`Hub::call`](super::Hub::call): its code, the message (our words, never the
/// server's), and the tool error beneath when the call reached a tool.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct CallError {
    /// The stable code.
    pub code: ErrorCode,
    /// The server, when the name routed to one.
    pub server: Option<String>,
    /// The message.
    pub message: String,
    /// The tool's error, when the call reached the tool.
    pub tool_error: Option<ToolError>,
}

impl CallError {
    pub(crate) fn new(code: ErrorCode, server: Option<&str>, message: impl Into<String>) -> Self {
        CallError { code, server: server.map(str::to_owned), message: message.into(), tool_error: None }
    }

    pub(crate) fn from_tool(server: &str, error: ToolError) -> Self {
        CallError {
            code: ErrorCode::of(&error),
            server: Some(server.to_owned()),
            message: error.to_string(),
            tool_error: Some(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_tool_error_has_its_stable_code() {
        let (tool, server) = ("t".to_owned(), "s".to_owned());
        let remote = |e: RemoteError| ErrorCode::of(&ToolError::Remote(e)).as_str();
        assert_eq!(
            remote(RemoteError::TimedOut {
                tool: tool.clone(),
                server: server.clone(),
                timeout: Duration::from_secs(1)
            }),
            "MCP_TIMEOUT"
        );
        let unavailable =
            RemoteError::Unavailable { tool: tool.clone(), server: server.clone(), reason: "x".into() };
        assert_eq!(remote(unavailable), "MCP_NETWORK_ERROR");
        let unknown =
            RemoteError::OutcomeUnknown { tool: tool.clone(), server: server.clone(), reason: "x".into() };
        assert_eq!(remote(unknown), "MCP_OUTCOME_UNKNOWN");
        assert_eq!(
            remote(RemoteError::Refused { tool: tool.clone(), server: server.clone(), code: -32602 }),
            "MCP_EXECUTION_ERROR"
        );
        // The client's words for an answer that is not a tool result.
        let parse = ToolError::failed("t", "server 's' sent a result that is not a tool result");
        assert_eq!(ErrorCode::of(&parse).as_str(), "MCP_PARSE_ERROR");
        assert_eq!(ErrorCode::of(&ToolError::failed("t", "boom")).as_str(), "MCP_EXECUTION_ERROR");
        assert_eq!(ErrorCode::of(&ToolError::CancelledWhileRunning { tool }).as_str(), "MCP_CANCELLED");
    }

    #[test]
    fn only_what_was_given_travels_as_meta() {
        assert_eq!(HubCall::new().meta(), None);
        let meta = HubCall::new().run_id("r").idempotency_key("k").meta().unwrap();
        assert_eq!(
            serde_json::Value::Object(meta),
            serde_json::json!({RUN_ID_META: "r", IDEMPOTENCY_KEY_META: "k"})
        );
    }
}
