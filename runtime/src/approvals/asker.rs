//! [`Asker`]: whoever answers a permission prompt (a person behind a UI, a review queue, a
//! rule engine), what it is asked ([`ApprovalRequest`]) and what it answers ([`Answer`]).

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use std::sync::Arc;

use serde_json::Value;

use crate::principal::Principal;

/// One permission prompt, as the agent CLI sends it to the permission-prompt tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The tool the agent wants to run, as the CLI names it (`Write`, `mcp__engine__deploy`).
    pub tool_name: String,
    /// The arguments it wants to run it with.
    pub input: Value,
    /// The CLI's id for this tool use, when it sent one.
    pub tool_use_id: Option<String>,
    /// The MCP client that sent the prompt, as it named itself (`clientInfo`'s name and
    /// version, `claude-code 2.1.332`), when the transport learned it: for a gated call of an
    /// untrusted caller ([`Untrusted::approve_with`](crate::server::Untrusted::approve_with)),
    /// the client that made the call. Self-reported: it tells a person which agent asked,
    /// not who may be trusted, and is shown as text, never as markup.
    pub client: Option<String>,
    /// Who asked: the principal of the call to the approval tool (the host on stdio, the
    /// authenticated caller on HTTP), or of the untrusted caller whose call is gated
    /// ([`Untrusted::approve_with`](crate::server::Untrusted::approve_with)). Set by the
    /// program or the authenticator, never by the caller.
    pub principal: Arc<Principal>,
}

/// What an [`Asker`] answers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// Run the tool: with the original input (`updated_input: None`) or with an edited one
    /// (approve-with-changes; the model is not told the input changed).
    Allow {
        /// The input to run the tool with instead of the original.
        updated_input: Option<Value>,
    },
    /// Do not run it; the CLI shows the model `message`.
    Deny {
        /// Why, in words the model (and an auditor) reads.
        message: String,
    },
}

impl Answer {
    /// Allow with the original input.
    pub fn allow() -> Answer {
        Answer::Allow { updated_input: None }
    }

    /// Allow with an edited input.
    pub fn allow_with(updated_input: Value) -> Answer {
        Answer::Allow { updated_input: Some(updated_input) }
    }

    /// Deny, with the message the model reads.
    pub fn deny(message: impl Into<String>) -> Answer {
        Answer::Deny { message: message.into() }
    }
}

/// Why an [`Asker`] could not answer. The server turns it into a deny whose source is
/// [`DecisionSource::Error`](super::DecisionSource::Error): never an approval.
pub type AskerError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The future [`Asker::ask`] returns: boxed so the trait stays object-safe.
pub type AskFuture<'a> = Pin<Box<dyn Future<Output = Result<Answer, AskerError>> + Send + 'a>>;

/// Answers permission prompts.
///
/// An asker may take as long as it likes (a person may be at lunch); the
/// [`ApprovalServer`](super::ApprovalServer) enforces its own timeout around it, so an
/// asker never needs one of its own. It may also fail or panic: both become a deny.
///
/// ```
/// use toolwire::approvals::{Answer, ApprovalRequest, AskFuture, Asker};
///
/// struct NoEtc;
///
/// impl Asker for NoEtc {
///     fn ask(&self, request: ApprovalRequest) -> AskFuture<'_> {
///         Box::pin(async move {
///             let path = request.input["file_path"].as_str().unwrap_or_default();
///             Ok(if path.starts_with("/etc/") { Answer::deny("/etc is out of scope") } else { Answer::allow() })
///         })
///     }
/// }
/// ```
pub trait Asker: Send + Sync + 'static {
    /// Answer one prompt.
    fn ask(&self, request: ApprovalRequest) -> AskFuture<'_>;
}

/// An [`Asker`] made from an async closure; see [`asker_fn`].
pub struct FnAsker<F>(F);

impl<F> fmt::Debug for FnAsker<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnAsker")
    }
}

/// An [`Asker`] from a closure returning a future.
///
/// ```
/// use toolwire::approvals::{Answer, asker_fn};
///
/// let asker = asker_fn(|request| async move {
///     Ok(if request.tool_name == "Write" { Answer::deny("no writes today") } else { Answer::allow() })
/// });
/// # let _ = asker;
/// ```
pub fn asker_fn<F, Fut>(f: F) -> FnAsker<F>
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Answer, AskerError>> + Send + 'static,
{
    FnAsker(f)
}

impl<F, Fut> Asker for FnAsker<F>
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Answer, AskerError>> + Send + 'static,
{
    fn ask(&self, request: ApprovalRequest) -> AskFuture<'_> {
        Box::pin((self.0)(request))
    }
}
