//! Approvals and policy: the seams an agent CLI that owns its own loop offers a host.
//!
//! - `asker`: [`Asker`], the party that answers a permission prompt, and what it is asked
//!   ([`ApprovalRequest`]) and answers ([`Answer`]).
//! - `decision`: [`ApprovalDecision`], the record of every prompt, and its closed
//!   [`DecisionSource`].
//! - `server`: [`ApprovalServer`], a permission-prompt tool (Claude Code's
//!   `--permission-prompt-tool`) that asks an [`Asker`], enforces its own timeout and never
//!   fails open.
//! - `console` (feature `http`): [`ApprovalConsole`], an [`Asker`] that is a person at a
//!   web page on loopback, behind its own token and safe from CSRF.
//! - `untrusted`: [`ApprovalServer`] as the server's [`Approve`](crate::server::Approve), so an
//!   untrusted caller's approval-gated call is put to its [`Asker`] (a person at the
//!   console) and recorded like a CLI's prompt.
//! - `policy`: [`RunPolicy`], which refuses a tool set combining private data, untrusted
//!   content and egress (the lethal trifecta) unless a human gate is present.

mod asker;
#[cfg(feature = "http")]
mod console;
mod decision;
mod policy;
mod server;
mod untrusted;

pub use asker::{Answer, ApprovalRequest, AskFuture, Asker, AskerError, FnAsker, asker_fn};
#[cfg(feature = "http")]
pub use console::{
    ApprovalConsole, ApprovalConsoleBuilder, DEFAULT_CONSOLE_POLL_INTERVAL, DEFAULT_CONSOLE_TIMEOUT,
};
pub use decision::{ApprovalDecision, DecisionSink, DecisionSource};
pub use policy::{
    CAP_EGRESS, CAP_PRIVATE_DATA, CAP_UNTRUSTED_CONTENT, LETHAL_TRIFECTA_REASON, PolicyVerdict, RunPolicy,
    ToolCaps, TrifectaLegs,
};
pub use server::{
    ApprovalServer, ApprovalServerBuilder, Autonomy, DEFAULT_APPROVAL_SERVER_NAME,
    DEFAULT_APPROVAL_TOOL_NAME, DEFAULT_ASKER_TIMEOUT,
};
