//! [`Running`]: a session's table of requests in flight, by request id.
//!
//! Whoever removes a request's entry decides its fate: its completion (the reply may be
//! sent), a client's `notifications/cancelled` or the drain at shutdown (it is dropped and
//! never answers). The session owns the table; a tracked [`Reply`](super::sink::Reply)
//! consults it.
//!
//! The table is looked at three times per call (the duplicate check with the insert, the
//! removal at completion, and the abort handle of a call that waits), and a session rarely
//! has more than a few calls in flight: up to [`FEW`] entries it is a vector searched by
//! comparison, with no hashing (SipHash cost about 500 instructions per call, a few percent
//! of a sequential `tools/call`); past that, a `HashMap` with the standard library's keyed
//! hasher, since request ids are the client's choice and a weaker hash would let a client
//! make its own table slow.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use crate::context::Context;
use crate::protocol::RequestId;
use crate::sync::lock;
use tokio::sync::Notify;
use tokio::task::AbortHandle;

/// Up to this many calls in flight, the table is a vector.
const FEW: usize = 8;

/// The calls in flight, by request id.
#[derive(Default)]
pub(crate) struct Running {
    calls: Mutex<Calls>,
    pub(crate) idle: Notify,
}

/// One request in flight: how to stop it.
pub(crate) struct RunningCall {
    /// `None` while a call polled inline has not been spawned yet.
    pub(crate) abort: Option<AbortHandle>,
    /// The call's context: cancelling the call cancels its token.
    pub(crate) ctx: Context,
}

/// The table itself: a few entries searched in place, or a map once there are more.
pub(crate) enum Calls {
    /// At most [`FEW`] entries, in no particular order.
    Few(Vec<(RequestId, RunningCall)>),
    /// More than [`FEW`] entries at some point (it stays a map until it is empty again).
    Many(HashMap<RequestId, RunningCall>),
}

impl Default for Calls {
    fn default() -> Calls {
        Calls::Few(Vec::new())
    }
}

impl Calls {
    /// Whether `id` is in flight.
    pub(crate) fn contains_key(&self, id: &RequestId) -> bool {
        match self {
            Calls::Few(few) => few.iter().any(|(k, _)| k == id),
            Calls::Many(many) => many.contains_key(id),
        }
    }

    /// The entry of `id`.
    pub(crate) fn get_mut(&mut self, id: &RequestId) -> Option<&mut RunningCall> {
        match self {
            Calls::Few(few) => few.iter_mut().find(|(k, _)| k == id).map(|(_, call)| call),
            Calls::Many(many) => many.get_mut(id),
        }
    }

    /// Enter `id`, which the caller has checked is not in the table.
    pub(crate) fn insert(&mut self, id: RequestId, call: RunningCall) {
        match self {
            Calls::Few(few) if few.len() < FEW => few.push((id, call)),
            Calls::Few(few) => {
                let mut many: HashMap<RequestId, RunningCall> = few.drain(..).collect();
                many.insert(id, call);
                *self = Calls::Many(many);
            }
            Calls::Many(many) => {
                many.insert(id, call);
            }
        }
    }

    /// Take `id`'s entry out.
    pub(crate) fn remove(&mut self, id: &RequestId) -> Option<RunningCall> {
        match self {
            Calls::Few(few) => {
                let at = few.iter().position(|(k, _)| k == id)?;
                Some(few.swap_remove(at).1)
            }
            Calls::Many(many) => {
                let call = many.remove(id);
                if many.is_empty() {
                    *self = Calls::default();
                }
                call
            }
        }
    }

    /// How many calls are in flight.
    pub(crate) fn len(&self) -> usize {
        match self {
            Calls::Few(few) => few.len(),
            Calls::Many(many) => many.len(),
        }
    }

    /// Whether none is.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Take every entry out.
    fn drain(&mut self) -> Vec<RunningCall> {
        match std::mem::take(self) {
            Calls::Few(few) => few.into_iter().map(|(_, call)| call).collect(),
            Calls::Many(many) => many.into_values().collect(),
        }
    }
}

impl Running {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Calls> {
        lock(&self.calls)
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// The call completed: remove it. Returns whether it was still there, i.e. whether its
    /// response may be sent.
    pub(crate) fn finish(&self, id: &RequestId) -> bool {
        let mut calls = self.lock();
        let present = calls.remove(id).is_some();
        if calls.is_empty() {
            self.idle.notify_waiters();
        }
        present
    }

    /// Cancel a call: its token fires, its future is dropped, and it will not answer.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        let mut calls = self.lock();
        let Some(call) = calls.remove(id) else { return false };
        if calls.is_empty() {
            self.idle.notify_waiters();
        }
        drop(calls);
        call.ctx.cancel();
        if let Some(abort) = &call.abort {
            abort.abort();
        }
        true
    }

    pub(crate) fn abort_all(&self) -> usize {
        let calls = self.lock().drain();
        self.idle.notify_waiters();
        for call in &calls {
            call.ctx.cancel();
            if let Some(abort) = &call.abort {
                abort.abort();
            }
        }
        calls.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> RunningCall {
        RunningCall { abort: None, ctx: Context::new() }
    }

    #[test]
    fn the_table_holds_every_call_across_the_switch_to_a_map_and_back() {
        let running = Running::default();
        let ids: Vec<RequestId> = (0..20)
            .map(|i| if i % 2 == 0 { RequestId::Number(i) } else { RequestId::String(format!("s{i}")) })
            .collect();
        for (n, id) in ids.iter().enumerate() {
            let mut calls = running.lock();
            assert!(!calls.contains_key(id));
            calls.insert(id.clone(), call());
            assert_eq!(calls.len(), n + 1);
            assert_eq!(matches!(*calls, Calls::Many(_)), n + 1 > FEW, "after {} entries", n + 1);
        }
        for id in &ids {
            assert!(running.lock().contains_key(id));
            assert!(running.lock().get_mut(id).is_some());
        }
        // Every call removed once: its completion wins once, a second removal finds nothing.
        for (n, id) in ids.iter().enumerate().rev() {
            assert!(running.finish(id), "{id:?}");
            assert!(!running.finish(id), "{id:?} removed twice");
            assert_eq!(running.len(), n);
        }
        // Empty again: back to the vector.
        assert!(matches!(*running.lock(), Calls::Few(_)));
        for id in &ids[..3] {
            running.lock().insert(id.clone(), call());
        }
        assert!(running.cancel(&ids[1]));
        assert!(!running.cancel(&ids[1]));
        assert_eq!(running.abort_all(), 2);
        assert_eq!(running.len(), 0);
    }
}
