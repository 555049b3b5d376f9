//! Who the messages a transport hands a session are served for: a [`Caller`], made by the
//! transport (HTTP names the authenticated principal of each request and its endpoint's
//! exposure) or the server's own host caller (the principal the program fixed with
//! [`ServerBuilder::host_principal`](crate::server::ServerBuilder::host_principal), and the
//! builder's exposure: stdio, [`Session::handle`](crate::server::Session::handle)).
//!
//! The caller is a value that travels with the request: `Session::handle*` hands it to
//! dispatch, dispatch to the method table and each capability's `request`, and those to the
//! request path, which gives the principal to the call's [`Context`](crate::Context). Nothing
//! reads it from anywhere else, so a reader following parameters sees who is calling. It
//! borrows what it names (a request that keeps the principal takes its own `Arc`), so making
//! one and passing it costs no allocation and no reference count.

use std::sync::Arc;

use crate::principal::Principal;

use super::exposure::Exposure;
use super::policy::{self, Access, Gate};
use super::rate::{self, Limiter};

/// Who one inbound message is served for, and how its transport wants the requests it starts
/// polled (module `request`).
#[derive(Clone, Copy)]
pub(crate) struct Caller<'a> {
    pub(crate) principal: &'a Arc<Principal>,
    /// Who the callers are: the server's exposure, or the one the transport says (a mounted
    /// router names its own).
    pub(crate) exposure: &'a Arc<Exposure>,
    /// The transport already took this message's rate-limit cell (HTTP answers 429 itself).
    pub(crate) admitted: bool,
    /// Where the requests this message starts are polled first.
    pub(crate) inline: Inline,
    /// The HTTP request's headers, when the message came over HTTP: what interceptors and
    /// each call's [`Context::headers`](crate::Context::headers) read.
    #[cfg(feature = "http")]
    pub(crate) headers: Option<&'a axum::http::HeaderMap>,
}

impl<'a> Caller<'a> {
    /// A caller the transport has not admitted, every request of it spawned.
    pub(crate) fn new(principal: &'a Arc<Principal>, exposure: &'a Arc<Exposure>) -> Caller<'a> {
        Caller {
            principal,
            exposure,
            admitted: false,
            inline: Inline::No,
            #[cfg(feature = "http")]
            headers: None,
        }
    }

    /// This caller, with the requests it starts polled as `inline` says.
    pub(crate) fn polled(self, inline: Inline) -> Caller<'a> {
        Caller { inline, ..self }
    }

    /// Whether these callers are untrusted (module `exposure`).
    pub(crate) fn untrusted(&self) -> bool {
        self.exposure.untrusted().is_some()
    }

    /// Whether `requires_approval` tools are hidden from these callers: untrusted ones with no
    /// approval callback (module `exposure`).
    fn hides_approval(&self) -> bool {
        self.exposure.untrusted().is_some_and(|u| u.approver.is_none())
    }

    /// Whether nothing is hidden from this caller under `access`: [`gate`](Self::gate)`.open()`,
    /// without the `Arc`s a gate takes (every call asks; few are gated).
    pub(crate) fn sees_everything(&self, access: Option<&Arc<Access>>) -> bool {
        policy::sees_everything(access.is_some(), self.principal, self.hides_approval())
    }

    /// What this caller may see under `access` (module `policy`).
    pub(crate) fn gate(&self, access: Option<&Arc<Access>>) -> Gate {
        Gate::new(Arc::clone(self.principal), access.cloned(), self.hides_approval())
    }

    /// Take this caller's rate-limit cell from `limiter`, unless its transport did (module
    /// `rate`); the refusal names the delay.
    // Always inline: a request with no limiter to ask pays one test, not a call returning a
    // `Result` through memory.
    #[inline(always)]
    pub(crate) fn admit(&self, limiter: Option<&Limiter>) -> Result<(), crate::protocol::RpcError> {
        match limiter {
            Some(limiter) if !self.admitted => self.take_cell(limiter),
            _ => Ok(()),
        }
    }

    /// [`admit`](Self::admit) on a server with a limiter the transport did not ask.
    #[inline(never)]
    fn take_cell(&self, limiter: &Limiter) -> Result<(), crate::protocol::RpcError> {
        limiter.check(self.principal).map_err(|wait| rate::refused(self.principal, wait))
    }
}

/// Where the requests a message starts are polled first: a transport says, with the
/// [`Caller`] it hands the session.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Inline {
    /// Every call is a task.
    No,
    /// A transport's own reader thread inside a current-thread runtime (stdio's reader):
    /// each request is polled once right there, before it is spawned, so a call that
    /// completes on its first poll (an async tool that does not wait) is answered without
    /// waking the runtime.
    ///
    /// Only on a current-thread runtime (the check is in the dispatch), where the runtime
    /// thread would otherwise be woken for every call; on a multi-threaded runtime every
    /// call is spawned, so compute-heavy calls still spread over the workers.
    Reader,
    /// An HTTP handler's poll, on any runtime: each request is polled once in the handler's
    /// own poll, so a call that completes then (an async tool that does not wait) has its
    /// answer in the POST's outbox before the handler awaits it, with no task spawned and no
    /// wake-up between them. A call that waits is spawned as before.
    ///
    /// A sync tool body runs in that poll too (in place, within the runtime workers' bound:
    /// see [`relief`](crate::tool::relief)) only when nothing could answer for its call while it runs: the server
    /// has no deadline (for a call it bounds) and no host cancellation, and the call's
    /// session is one made for this request alone (stateless HTTP), which no
    /// `notifications/cancelled` can reach. Otherwise the body is held back from that poll
    /// (see [`relief::held_back`](crate::tool::relief::held_back)) and runs in the spawned task: run in the handler, a body
    /// that ran long would hold up the handler itself, and with it the answer its deadline,
    /// its host or its client's cancellation is owed.
    // Only the HTTP transport (and the engine's tests) poll in a handler.
    #[cfg_attr(not(any(feature = "http", test)), allow(dead_code))]
    Handler,
}
