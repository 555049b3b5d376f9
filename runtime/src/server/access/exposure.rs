//! [`Exposure`]: who the server's callers are, named by the host, and what follows.
//!
//! | | [`Exposure::TrustedHost`] | [`Exposure::UntrustedCallers`] |
//! | --- | --- | --- |
//! | who | the program's own agent CLI on the same machine (stdio; the generated loopback token) | someone else: any caller of a router mounted on a network |
//! | `requires_approval` tools | listed and callable (the agent CLI asks its human) | hidden, and answered exactly like unknown ones, unless an approval callback is given ([`Untrusted::approve_with`]: a closure, or a person at an [`ApprovalConsole`](crate::approvals::ApprovalConsole) through an [`ApprovalServer`](crate::approvals::ApprovalServer)); it fails closed: an error or a timeout is a refusal |
//! | the tool's own message: its body returned a [`ToolError::failed`](crate::ToolError::failed) (a `Result<T, ToolError>`) | `tool 'x' failed: <message>` | the same: its author wrote it for the caller |
//! | any other failure: `Err(e)` of another error type (an `io::Error` passed on by `?`, a `String`), a [`ToolError::internal`](crate::ToolError::internal), a panic | `tool 'x' failed: <e>` verbatim (a panic: `tool 'x' failed: panicked: <payload>`) | `tool 'x' failed`; the detail is logged, never sent |
//! | argument errors, cancellation, deadlines | the texts of `tools` | the same (they are toolwire's words, not the tool's internals) |
//! | result size | unbounded | capped ([`Untrusted::max_result_bytes`]): a bigger result is the tool error `tool 'x' returned a result over the N-byte limit` |
//!
//! It is said once, on the builder ([`ServerBuilder::exposure`](crate::server::ServerBuilder::exposure)),
//! and every way of serving the built server serves it: stdio, the HTTP endpoint
//! ([`http::serve`](crate::http::serve), [`mcp_router`](crate::http::mcp_router)), the
//! agent-CLI spec and the `serve_registry!` main. Unset, it is the trusted host (what stdio
//! and a loopback spec with its generated token serve), except on a listener bound to an
//! address that is not loopback ([`http::serve`](crate::http::serve), the spec, the `--http`
//! main), which serves untrusted callers until the builder says otherwise. A router mounted
//! in one's own app cannot know its address: an app that others reach over a network says
//! `.exposure(Exposure::untrusted_callers())`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::principal::Principal;

/// Default cap on a result sent to untrusted callers ([`Untrusted::max_result_bytes`]): 256 KiB
/// of JSON. (A client's cap on an adopted tool's result is another limit:
/// `client::DEFAULT_ADOPTED_RESULT_BYTES`.)
pub const DEFAULT_UNTRUSTED_RESULT_BYTES: usize = 256 * 1024;
/// Default time an approval callback has to decide: 30 seconds; then the call is refused.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(30);

/// Who the callers are. See the module table.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Exposure {
    /// The host's own agent: every tool listed, every error text verbatim (seed 000).
    TrustedHost,
    /// Callers the host does not trust (seed 001's defaults).
    UntrustedCallers(Untrusted),
}

impl Exposure {
    /// [`Exposure::UntrustedCallers`] with the defaults: approval-gated tools hidden,
    /// failures sanitised, results capped at [`DEFAULT_UNTRUSTED_RESULT_BYTES`].
    pub fn untrusted_callers() -> Exposure {
        Exposure::UntrustedCallers(Untrusted::new())
    }

    pub(crate) fn untrusted(&self) -> Option<&Untrusted> {
        match self {
            Exposure::TrustedHost => None,
            Exposure::UntrustedCallers(u) => Some(u),
        }
    }
}

/// What serving untrusted callers does: see [`Exposure::UntrustedCallers`].
///
/// ```
/// use std::time::Duration;
/// use toolwire::server::{GatedCall, Exposure, Untrusted};
///
/// let exposure = Exposure::UntrustedCallers(
///     Untrusted::new()
///         .approve_with(|request: GatedCall| async move {
///             // Ask someone; an `Err` or no answer in time is a refusal.
///             Ok::<bool, String>(request.principal.has_role("admin"))
///         })
///         .approval_timeout(Duration::from_secs(5))
///         .max_result_bytes(64 * 1024),
/// );
/// # let _ = exposure;
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Untrusted {
    pub(crate) approver: Option<Arc<dyn Approve>>,
    pub(crate) approval_timeout: Duration,
    pub(crate) max_result_bytes: usize,
}

impl std::fmt::Debug for Untrusted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Untrusted")
            .field("approves", &self.approver.is_some())
            .field("approval_timeout", &self.approval_timeout)
            .field("max_result_bytes", &self.max_result_bytes)
            .finish()
    }
}

impl Default for Untrusted {
    fn default() -> Self {
        Untrusted::new()
    }
}

impl Untrusted {
    /// The defaults: no approval callback, [`DEFAULT_APPROVAL_TIMEOUT`],
    /// [`DEFAULT_UNTRUSTED_RESULT_BYTES`].
    pub fn new() -> Untrusted {
        Untrusted {
            approver: None,
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT,
            max_result_bytes: DEFAULT_UNTRUSTED_RESULT_BYTES,
        }
    }

    /// List `requires_approval` tools, and run each call of one only if `approver` says
    /// yes within the [`approval_timeout`](Self::approval_timeout). It fails closed: `Ok(false)`,
    /// `Err(_)` and no answer in time all refuse the call, which reads
    /// `tool 'x' was not approved`.
    ///
    /// `approver` may be a closure, or an [`ApprovalServer`](crate::approvals::ApprovalServer)
    /// whose asker is a person at an
    /// [`ApprovalConsole`](crate::approvals::ApprovalConsole): the page shows the tool, the
    /// arguments and the caller's principal, the person's edit is what the tool runs with,
    /// and the decision is recorded with source `asker`. Give the server (or the console) a
    /// shorter timeout than [`approval_timeout`](Self::approval_timeout), so its timeout is
    /// the one recorded; if this one fires first the page lists the prompt as withdrawn.
    pub fn approve_with(mut self, approver: impl Approve) -> Untrusted {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// How long the approval callback has (default [`DEFAULT_APPROVAL_TIMEOUT`]).
    pub fn approval_timeout(mut self, timeout: Duration) -> Untrusted {
        self.approval_timeout = timeout;
        self
    }

    /// Cap each result at `bytes` of JSON (default [`DEFAULT_UNTRUSTED_RESULT_BYTES`]).
    pub fn max_result_bytes(mut self, bytes: usize) -> Untrusted {
        self.max_result_bytes = bytes;
        self
    }
}

/// A call of an approval-gated tool, put to the approval callback.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GatedCall {
    /// The tool's name.
    pub tool: String,
    /// Its arguments as received, JSON text (untrusted: the tool checks them against its
    /// schema after approval).
    pub arguments: String,
    /// Who is calling.
    pub principal: Arc<Principal>,
    /// The MCP client that made the call, as it named itself: `clientInfo.name` of the
    /// session's `initialize` (legacy era) or of the request's `_meta` (2026-07-28). `None`
    /// when it did not say (a stateless legacy request has no handshake to say it in).
    /// Self-reported and unchecked: it tells a person which program asked, never who may be
    /// trusted, and whoever shows it must show it as text.
    pub client_name: Option<String>,
    /// That client's `clientInfo.version`, as it said it (`None` when it did not).
    pub client_version: Option<String>,
}

/// What an approval callback decided about one call ([`Approve::decide`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approval {
    /// Run the call with its arguments as received.
    Allow,
    /// Run the call with these arguments instead (JSON text; the tool checks them against
    /// its schema, as it would the caller's).
    AllowWith(String),
    /// Refuse it: the caller reads `tool 'x' was not approved`.
    Deny,
}

/// Decides whether an approval-gated call may run: `Ok(true)` runs it; anything else,
/// or no answer within the timeout, refuses it. Implemented for every
/// `Fn(GatedCall) -> impl Future<Output = Result<bool, E>>`, and for
/// [`ApprovalServer`](crate::approvals::ApprovalServer), which asks its
/// [`Asker`](crate::approvals::Asker) (a person at an
/// [`ApprovalConsole`](crate::approvals::ApprovalConsole), say) and records the decision.
pub trait Approve: Send + Sync + 'static {
    /// Decide on `request`: yes or no.
    fn approve(&self, request: GatedCall) -> Pin<Box<dyn Future<Output = Result<bool, String>> + Send>>;

    /// Decide on `request`, possibly with edited arguments. What the server calls; by
    /// default [`approve`](Approve::approve)'s yes or no.
    fn decide(&self, request: GatedCall) -> Pin<Box<dyn Future<Output = Result<Approval, String>> + Send>> {
        let yes = self.approve(request);
        Box::pin(async move { yes.await.map(|yes| if yes { Approval::Allow } else { Approval::Deny }) })
    }
}

impl<F, Fut, E> Approve for F
where
    F: Fn(GatedCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<bool, E>> + Send + 'static,
    E: std::fmt::Display,
{
    fn approve(&self, request: GatedCall) -> Pin<Box<dyn Future<Output = Result<bool, String>> + Send>> {
        let decided = self(request);
        Box::pin(async move { decided.await.map_err(|e| e.to_string()) })
    }
}

/// Ask `untrusted`'s approver about `request`, failing closed: [`Approval::Deny`] unless it
/// allowed in time.
pub(crate) async fn approved(untrusted: &Untrusted, request: GatedCall) -> Approval {
    let Some(approver) = &untrusted.approver else { return Approval::Deny };
    let tool = request.tool.clone();
    match tokio::time::timeout(untrusted.approval_timeout, approver.decide(request)).await {
        Ok(Ok(approval)) => approval,
        Ok(Err(e)) => {
            tracing::warn!(tool, error = %e, "the approval callback failed; the call is refused");
            Approval::Deny
        }
        Err(_) => {
            tracing::warn!(tool, timeout = ?untrusted.approval_timeout, "the approval callback did not answer in time; the call is refused");
            Approval::Deny
        }
    }
}
