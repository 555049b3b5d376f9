//! [`ToolError`]: why a call did not return, in the words a model reads; [`RemoteError`],
//! its remote tools' half.

use std::fmt;

use crate::args::ToolArgumentError;

/// Why a call did not return a [`ToolOutput`](super::ToolOutput).
///
/// Every variant is a *tool* error: a server reports it as an `isError: true` result whose
/// text is this error's `Display`, never as a transport error, so one misbehaving tool
/// never takes a session down.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments were rejected before the body ran; the message names the tool, the
    /// offending arguments and the accepted set.
    #[error(transparent)]
    Arguments(#[from] ToolArgumentError),
    /// The tool's body returned a `ToolError` of its own ([`ToolError::failed`]): a message
    /// its author wrote for the caller, which every caller reads, untrusted ones too.
    #[error("tool '{tool}' failed: {message}")]
    Failed {
        /// The tool's name.
        tool: String,
        /// The error's `Display`.
        message: String,
    },
    /// The tool's body returned an error that is not a `ToolError` (an `io::Error`, a
    /// `String`, any `E: Display` of a `Result<T, E>`, often passed on by `?`). It reads like
    /// [`ToolError::Failed`] to a trusted host; an untrusted caller reads only
    /// `tool 'x' failed`, and the detail goes to the log (see
    /// [`Exposure`](crate::server::Exposure)).
    #[error("tool '{tool}' failed: {detail}")]
    Internal {
        /// The tool's name.
        tool: String,
        /// The error's `Display`, for the log and for a trusted host.
        detail: String,
    },
    /// The tool's body panicked. Sanitised for untrusted callers like
    /// [`ToolError::Internal`].
    #[error("tool '{tool}' failed: panicked: {message}")]
    Panicked {
        /// The tool's name.
        tool: String,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// The host cancelled the run before the tool was dispatched; its body never ran.
    #[error("the run was cancelled; '{tool}' was not run")]
    CancelledBeforeDispatch {
        /// The tool's name.
        tool: String,
    },
    /// The host cancelled the run while the tool was running; its future was dropped.
    #[error("the run was cancelled while '{tool}' was running")]
    CancelledWhileRunning {
        /// The tool's name.
        tool: String,
    },
    /// The server's own deadline fired and the call was abandoned.
    #[error("tool '{tool}' did not return within {}s and was abandoned", fmt_secs(*.deadline))]
    DeadlineExceeded {
        /// The tool's name.
        tool: String,
        /// The deadline that fired.
        deadline: std::time::Duration,
    },
    /// The tool returned structured content that its advertised `outputSchema` does not
    /// accept (or none at all while advertising one). Checked by the engine for tools not
    /// made by `#[tool]`, whose output is right by construction.
    #[error("tool '{tool}' returned output that does not match its outputSchema: {problem}")]
    OutputMismatch {
        /// The tool's name.
        tool: String,
        /// What is wrong, naming the field: `at /count: "3" is not of type "integer"`.
        problem: String,
    },
    /// A remote tool (feature `client`) did not return: its server timed out, could not be
    /// reached, reported a failure, or declined the call.
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

/// Why a remote tool's call did not return: the client's half of [`ToolError`], in
/// [`ToolError::Remote`]. Only the client (feature `client`) produces these.
///
/// `#[non_exhaustive]`: later kinds may join these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteError {
    /// A remote tool's call outlived the caller's timeout. Not retryable: the server may
    /// have acted on it.
    #[error("tool '{tool}' on server '{server}' did not answer within {}s; it may have run", fmt_secs(*.timeout))]
    TimedOut {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The timeout that fired.
        timeout: std::time::Duration,
    },
    /// The server behind a remote tool could not be reached, or died, and either the call
    /// never reached it or the tool may be re-run (it is read-only or idempotent). Retryable.
    #[error("tool '{tool}' is unavailable: server '{server}' {reason}")]
    Unavailable {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// What went wrong, in our words (never the server's).
        reason: String,
    },
    /// The server reported that the call failed (`isError`). Not retryable. The server's
    /// report is in `envelope`, sealed as untrusted data, and never in the message; `report`
    /// is the same text unsealed, for code ([`ToolError::reported`]), never for a prompt.
    #[error("tool '{tool}' failed on server '{server}'; its report is in the untrusted-data envelope")]
    Failed {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The server's report, normalised and sealed in the untrusted-data envelope.
        envelope: String,
        /// The server's report, normalised and truncated as in `envelope`, unsealed: a
        /// server's words, untrusted. A toolwire server writes a failed tool's message as
        /// `tool 'x' failed: <message>`; that prefix (with the tool's name on the server) is
        /// taken off, so a [`#[remote]`](crate::remote) trait's bound client reports what its
        /// local implementation's [`ToolError::Failed`] `message` says.
        report: String,
    },
    /// The server declined the call with a JSON-RPC error; `code` is the server's code.
    #[error("tool '{tool}' was declined by server '{server}' (code {code})")]
    Refused {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The JSON-RPC error code the server answered with.
        code: i64,
    },
    /// The server runs the tool only as a task (the tasks extension,
    /// `io.modelcontextprotocol/tasks`) and declined this call, which did not declare the
    /// extension: JSON-RPC -32021 with `data.requiredCapabilities` naming it. `fix` says what
    /// to change on this client, in our words (`ClientOptions::tasks(true)`, or a 2026-07-28
    /// connection). The tool was not run; not retryable as is.
    #[error(
        "tool '{tool}' was declined by server '{server}' (code -32021): it runs only as a task, and {fix}"
    )]
    TasksRequired {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// What to change on this client, in our words.
        fix: String,
    },
    /// The server refused the client's credentials (HTTP 401 or 403); the tool was not run.
    /// Not retryable: the same credentials are refused again.
    #[error(
        "tool '{tool}' was not run: server '{server}' answered HTTP {status}: the credentials were refused"
    )]
    Unauthorized {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The HTTP status, 401 or 403.
        status: u16,
    },
    /// The server needs authorization that only a person can give again (the client's
    /// `ClientError::AuthorizationRequired`, for a tool call); the tool was not run. Not
    /// retryable as is.
    #[error("tool '{tool}' was not run: server '{server}' needs a person to authorize this client: {reason}")]
    AuthorizationRequired {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// Why, in our words.
        reason: String,
    },
    /// The server needs authorization and the OAuth flow failed; the tool was not run. Not
    /// retryable as is.
    #[error("tool '{tool}' was not run: server '{server}': authorization failed: {reason}")]
    AuthorizationFailed {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// What went wrong, in our words.
        reason: String,
    },
    /// The endpoint answered with an HTTP status that trying again will not change (a 404
    /// with no session, a 405, another 4xx); the tool was not run. Not retryable.
    #[error("tool '{tool}' was not run: server '{server}' answered HTTP {status}")]
    HttpStatus {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// The HTTP status.
        status: u16,
    },
    /// A call on a tool that must not be re-run (at-most-once delivery: not read-only, not
    /// idempotent, or its annotations not trusted) was cut off after it was sent: the server
    /// died or the connection dropped. It may or may not have run. Not retryable.
    #[error(
        "the outcome of tool '{tool}' is unknown: the call was cut off (server '{server}' {reason}); it may have run, and it must not be re-run"
    )]
    OutcomeUnknown {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// What went wrong, in our words (never the server's).
        reason: String,
    },
    /// A 2026-07-28 call whose server asked for more input (`input_required`) that the
    /// client could not give: a capability it did not declare, a request it does not know,
    /// a handler that failed, or more rounds than its limit. Not retryable as is.
    #[error("tool '{tool}' on server '{server}' did not complete: {problem}")]
    Input {
        /// The tool's name.
        tool: String,
        /// The server's name, as configured.
        server: String,
        /// What the server asked and why it went unanswered, in our words.
        problem: String,
    },
}

impl ToolError {
    /// What the tool itself reported when it failed: a local body's
    /// [`Failed`](ToolError::Failed) `message`, or a remote server's report
    /// ([`RemoteError::Failed`]'s `report`, a server's words: untrusted, never to be pasted
    /// into a prompt unsealed). `None` for every other error, which is in toolwire's words.
    ///
    /// Code written against a [`#[remote]`](crate::remote) trait reads a failure the same way
    /// from its local implementation (a test double) and from the bound client:
    ///
    /// ```
    /// use toolwire::ToolError;
    ///
    /// let local = ToolError::failed("divide", "division by zero");
    /// assert_eq!(local.reported(), Some("division by zero"));
    /// ```
    pub fn reported(&self) -> Option<&str> {
        match self {
            ToolError::Failed { message, .. } => Some(message),
            ToolError::Remote(RemoteError::Failed { report, .. }) => Some(report),
            _ => None,
        }
    }
}

impl RemoteError {
    /// Whether the caller may retry: only a server that was unavailable. A timeout or an
    /// unknown outcome is not retryable (the server may have acted), nor is a failure the
    /// server reported, nor refused credentials.
    pub fn is_retryable(&self) -> bool {
        matches!(self, RemoteError::Unavailable { .. })
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        match self {
            RemoteError::TimedOut { tool, .. }
            | RemoteError::Unavailable { tool, .. }
            | RemoteError::Failed { tool, .. }
            | RemoteError::Refused { tool, .. }
            | RemoteError::TasksRequired { tool, .. }
            | RemoteError::Unauthorized { tool, .. }
            | RemoteError::AuthorizationRequired { tool, .. }
            | RemoteError::AuthorizationFailed { tool, .. }
            | RemoteError::HttpStatus { tool, .. }
            | RemoteError::OutcomeUnknown { tool, .. }
            | RemoteError::Input { tool, .. } => tool,
        }
    }
}

impl ToolError {
    /// A failure of `tool` with a message for the caller (`tool 'x' failed: <message>`).
    ///
    /// This is how a tool says "this text is meant for whoever called me": a `#[tool]` fn
    /// returning `Result<T, ToolError>` has its `Err` sent as it is, to untrusted callers
    /// too. An error of any other type is a [`ToolError::Internal`], which untrusted callers
    /// read only as `tool 'x' failed`:
    ///
    /// ```
    /// use toolwire::ToolError;
    ///
    /// /// Read a note.
    /// #[toolwire::tool(read_only)]
    /// fn note(id: u32) -> Result<String, ToolError> {
    ///     if id == 0 {
    ///         // Shown to every caller.
    ///         return Err(ToolError::failed("note", "note 0 does not exist"));
    ///     }
    ///     // An `io::Error` kept internal: mapped by hand into `ToolError::internal`.
    ///     std::fs::read_to_string(format!("/notes/{id}")).map_err(|e| ToolError::internal("note", e))
    /// }
    /// ```
    pub fn failed(tool: impl Into<String>, message: impl fmt::Display) -> Self {
        ToolError::Failed { tool: tool.into(), message: message.to_string() }
    }

    /// A failure of `tool` whose detail is not for untrusted callers ([`ToolError::Internal`]):
    /// a trusted host reads `tool 'x' failed: <detail>`, an untrusted caller `tool 'x' failed`.
    pub fn internal(tool: impl Into<String>, detail: impl fmt::Display) -> Self {
        ToolError::Internal { tool: tool.into(), detail: detail.to_string() }
    }

    /// How a tool body's `Err(e)` becomes a `ToolError`: a `ToolError` is the tool's own and
    /// kept (a [`ToolError::Failed`] named after `tool`, whatever name its author gave);
    /// any other error is a [`ToolError::Internal`] with `e`'s text.
    pub(crate) fn from_body<E: fmt::Display + 'static>(tool: &str, e: E) -> ToolError {
        let mut e = Some(e);
        match (&mut e as &mut dyn std::any::Any).downcast_mut::<Option<ToolError>>() {
            Some(own) => match own.take().expect("taken once") {
                ToolError::Failed { message, .. } => ToolError::Failed { tool: tool.to_owned(), message },
                ToolError::Internal { detail, .. } => ToolError::internal(tool, detail),
                other => other,
            },
            None => ToolError::internal(tool, e.expect("not taken")),
        }
    }

    /// Whether the caller may retry the call: only a remote tool whose server was
    /// unavailable ([`RemoteError::is_retryable`]).
    ///
    /// Nothing in this crate retries a side-effecting call on its own; this answers the
    /// question for a caller that decides to.
    pub fn is_retryable(&self) -> bool {
        matches!(self, ToolError::Remote(e) if e.is_retryable())
    }
}

/// Seconds as the shortest decimal that reads back: `0.05`, `2`, `1.5` (an `f64`'s `Display`
/// is already the shortest round-tripping form, with no trailing zeros or point). Every
/// message that names a duration in seconds uses this.
pub(crate) fn fmt_secs(d: std::time::Duration) -> String {
    format!("{}", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn deadline_message_names_seconds_plainly() {
        let e = ToolError::DeadlineExceeded { tool: "x".into(), deadline: Duration::from_millis(50) };
        assert_eq!(e.to_string(), "tool 'x' did not return within 0.05s and was abandoned");
        let e = ToolError::DeadlineExceeded { tool: "x".into(), deadline: Duration::from_secs(2) };
        assert_eq!(e.to_string(), "tool 'x' did not return within 2s and was abandoned");
    }

    #[test]
    fn a_call_that_needs_a_person_to_authorize_says_so() {
        let e = ToolError::Remote(RemoteError::AuthorizationRequired {
            tool: "create_issue".into(),
            server: "tracker".into(),
            reason: "it must be authorized in a browser, and this client has no way to ask a person (OAuth::on_authorize)".into(),
        });
        assert_eq!(
            e.to_string(),
            "tool 'create_issue' was not run: server 'tracker' needs a person to authorize this client: it must be authorized in a browser, and this client has no way to ask a person (OAuth::on_authorize)"
        );
        assert!(!e.is_retryable());
        let e = ToolError::Remote(RemoteError::AuthorizationFailed {
            tool: "create_issue".into(),
            server: "tracker".into(),
            reason: "the authorization server https://as.example.com offers no dynamic registration; configure a pre-registered client (OAuth::pre_registered)".into(),
        });
        assert_eq!(
            e.to_string(),
            "tool 'create_issue' was not run: server 'tracker': authorization failed: the authorization server https://as.example.com offers no dynamic registration; configure a pre-registered client (OAuth::pre_registered)"
        );
        assert!(!e.is_retryable());
    }

    #[test]
    fn remote_errors_read_as_before_and_only_unavailable_is_retryable() {
        let t = || ("t".to_owned(), "s".to_owned());
        let (tool, server) = t();
        let e = ToolError::from(RemoteError::TimedOut { tool, server, timeout: Duration::from_millis(1500) });
        assert_eq!(e.to_string(), "tool 't' on server 's' did not answer within 1.5s; it may have run");
        assert!(!e.is_retryable());
        let (tool, server) = t();
        let e = ToolError::Remote(RemoteError::Unavailable { tool, server, reason: "exited".into() });
        assert_eq!(e.to_string(), "tool 't' is unavailable: server 's' exited");
        assert!(e.is_retryable());
        let (tool, server) = t();
        let e = ToolError::Remote(RemoteError::Failed {
            tool,
            server,
            envelope: "<x>".into(),
            report: "x".into(),
        });
        assert_eq!(
            e.to_string(),
            "tool 't' failed on server 's'; its report is in the untrusted-data envelope"
        );
        let (tool, server) = t();
        let e = ToolError::Remote(RemoteError::Refused { tool, server, code: -32602 });
        assert_eq!(e.to_string(), "tool 't' was declined by server 's' (code -32602)");
        assert!(!e.is_retryable());
        assert!(!ToolError::failed("t", "x").is_retryable());
        let (tool, server) = t();
        let e = ToolError::Remote(RemoteError::Unauthorized { tool, server, status: 401 });
        assert_eq!(
            e.to_string(),
            "tool 't' was not run: server 's' answered HTTP 401: the credentials were refused"
        );
        assert!(!e.is_retryable());
        let (tool, server) = t();
        let e = ToolError::Remote(RemoteError::HttpStatus { tool, server, status: 404 });
        assert_eq!(e.to_string(), "tool 't' was not run: server 's' answered HTTP 404");
        assert!(!e.is_retryable());
        let (tool, server) = t();
        let e = ToolError::Remote(RemoteError::OutcomeUnknown { tool, server, reason: "exited".into() });
        assert_eq!(
            e.to_string(),
            "the outcome of tool 't' is unknown: the call was cut off (server 's' exited); it may have \
             run, and it must not be re-run"
        );
        assert!(!e.is_retryable());
    }
}
