//! Who the messages a transport hands a session are served for: the [`Caller`] set around
//! [`Session::handle_as`](super::Session::handle_as) (HTTP sets the authenticated principal
//! for each request), or the host's principal fixed by the program
//! ([`ServerBuilder::host_principal`](super::ServerBuilder::host_principal), stdio).
//!
//! Dispatch is synchronous up to the point a call is spawned, so the caller is held in a
//! thread-local for the length of one `handle`, and each request takes its own `Arc` of it
//! before it leaves the thread: a tool's `Context` carries the principal it was called by.

use std::cell::RefCell;
use std::sync::Arc;

use crate::principal::Principal;

use super::Shared;

/// Who one inbound message is served for.
#[derive(Clone)]
pub(crate) struct Caller {
    pub(crate) principal: Arc<Principal>,
    /// The transport already took this message's rate-limit cell (HTTP answers 429 itself).
    pub(crate) admitted: bool,
    /// Who the callers are, when the transport says (a mounted router does).
    pub(crate) exposure: Option<Arc<super::Exposure>>,
}

thread_local! {
    static CALLER: RefCell<Option<Caller>> = const { RefCell::new(None) };
}

/// Run `f` with `caller` as the caller of every request it dispatches on this thread.
pub(crate) fn scoped<R>(caller: Caller, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<Caller>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let previous = self.0.take();
            CALLER.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _reset = Reset(CALLER.with(|c| c.borrow_mut().replace(caller)));
    f()
}

/// `f` of the principal and the exposure the request being dispatched is served for (the
/// caller's, or the host's and the server's when no transport set one), borrowed in place:
/// a question answered here takes no `Arc`.
fn in_place<R>(shared: &Shared, f: impl FnOnce(&Arc<Principal>, &Arc<super::Exposure>) -> R) -> R {
    CALLER.with(|c| {
        let c = c.borrow();
        let c = c.as_ref();
        let principal = c.map_or(&shared.host_principal, |c| &c.principal);
        let exposure = c.and_then(|c| c.exposure.as_ref()).unwrap_or(&shared.exposure);
        f(principal, exposure)
    })
}

/// The principal the request being dispatched is served for.
pub(crate) fn principal(shared: &Shared) -> Arc<Principal> {
    in_place(shared, |principal, _| Arc::clone(principal))
}

/// Who the callers of the request being dispatched are.
pub(crate) fn exposure(shared: &Shared) -> Arc<super::Exposure> {
    in_place(shared, |_, exposure| Arc::clone(exposure))
}

/// Whether the request being dispatched is served for untrusted callers: [`exposure`]'s
/// question, read in place (a request that keeps the exposure takes its `Arc` there).
pub(crate) fn untrusted(shared: &Shared) -> bool {
    in_place(shared, |_, exposure| exposure.untrusted().is_some())
}

/// Whether nothing is hidden from the request being dispatched: [`gate`]`(shared).open()`,
/// read in place, without the `Arc`s a gate takes (every call asks; few are gated).
pub(crate) fn sees_everything(shared: &Shared) -> bool {
    in_place(shared, |principal, exposure| {
        super::policy::sees_everything(shared.access.is_some(), principal, hides_approval(exposure))
    })
}

/// Whether `requires_approval` tools are hidden from these callers: untrusted ones with no
/// approval callback (module `exposure`).
fn hides_approval(exposure: &super::Exposure) -> bool {
    exposure.untrusted().is_some_and(|u| u.approver.is_none())
}

/// What the request being dispatched may see ([`policy`](super::policy)).
pub(crate) fn gate(shared: &Shared) -> super::policy::Gate {
    in_place(shared, |principal, exposure| {
        super::policy::Gate::new(Arc::clone(principal), shared.access.clone(), hides_approval(exposure))
    })
}

/// Take the rate-limit cell of the request being dispatched, unless its transport did
/// (module `rate`); the refusal names the delay.
pub(crate) fn admit(shared: &Shared) -> Result<(), crate::protocol::RpcError> {
    let Some(limiter) = &shared.limiter else { return Ok(()) };
    let (principal, admitted) = CALLER
        .with(|c| c.borrow().as_ref().map(|c| (Arc::clone(&c.principal), c.admitted)))
        .unwrap_or_else(|| (Arc::clone(&shared.host_principal), false));
    if admitted {
        return Ok(());
    }
    limiter.check(&principal).map_err(|wait| super::rate::refused(&principal, wait))
}
