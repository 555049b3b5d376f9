//! [`AskError`]: why asking the client something (elicitation, sampling, roots) failed.

use std::time::Duration;

/// Why asking the client something (elicitation, sampling, roots) did not give an answer.
///
/// Every variant says what was asked and what happened, in words a model can act on; a
/// tool that returns it with `?` reports that text as its error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// There is no client to ask: a direct call (a [`Context::new`](super::Context::new)),
    /// or a call in an era where a server cannot send requests.
    #[error("cannot ask the client for {what}: {why}")]
    Unavailable {
        /// What was to be asked (`elicitation/create`).
        what: &'static str,
        /// Why not.
        why: String,
    },
    /// The client did not declare the capability; nothing was sent.
    #[error(
        "the client did not declare the `{capability}` capability, so it cannot be asked for {what}; nothing was sent"
    )]
    NotDeclared {
        /// The capability, as the spec names it (`sampling`, `elicitation.url`, `roots`).
        capability: &'static str,
        /// The request that needs it.
        what: &'static str,
    },
    /// No answer within the timeout; the request was withdrawn (`notifications/cancelled`).
    #[error("the client did not answer {what} within {}s", timeout.as_secs_f64())]
    TimedOut {
        /// The request.
        what: &'static str,
        /// The timeout that fired.
        timeout: Duration,
    },
    /// The client answered with a JSON-RPC error.
    #[error("the client refused {what}: error {}: {message}", code.map_or_else(|| "(no code)".to_owned(), |c| c.to_string()))]
    Refused {
        /// The request.
        what: &'static str,
        /// The error code, when it sent an integer.
        code: Option<i64>,
        /// The error message.
        message: String,
    },
    /// The user declined to answer (elicitation `action: "decline"`).
    #[error("the user declined to answer: {message}")]
    Declined {
        /// The question that was declined.
        message: String,
    },
    /// The user dismissed the question without choosing (elicitation `action: "cancel"`).
    #[error("the user dismissed the question without answering: {message}")]
    Cancelled {
        /// The question that was dismissed.
        message: String,
    },
    /// The client's answer does not have the shape that was asked for.
    #[error("the client's answer to {what} does not match what was asked: {reason}")]
    BadAnswer {
        /// The request.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The type asked for cannot be a form: elicitation takes a flat object of strings,
    /// numbers, booleans and enums.
    #[error(
        "cannot elicit `{type_name}`: {reason}; an elicitation form is a flat object of strings, numbers, integers, booleans and enums"
    )]
    NotAForm {
        /// The Rust type.
        type_name: &'static str,
        /// What in it is not allowed.
        reason: String,
    },
    /// The call was cancelled while it waited for the answer; the request was withdrawn.
    #[error("the call was cancelled while waiting for the client to answer {what}")]
    CallCancelled {
        /// The request.
        what: &'static str,
    },
    /// The connection to the client ended before it answered.
    #[error("the connection to the client closed before it answered {what}")]
    Closed {
        /// The request.
        what: &'static str,
    },
}
