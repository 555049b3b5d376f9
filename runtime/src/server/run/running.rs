//! [`Running`]: a session's table of requests in flight, by request id.
//!
//! Whoever removes a request's entry decides its fate: its completion (the reply may be
//! sent), a client's `notifications/cancelled` or the drain at shutdown (it is dropped and
//! never answers). The session owns the table; a tracked [`Reply`](crate::server::dispatch::sink::Reply)
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

/// One call in the table.
type Entry = (RequestId, RunningCall);

/// The table itself: a few entries searched in place, or a map once there are more.
pub(crate) enum Calls {
    /// At most [`FEW`] entries, in no particular order: one in place, the rest in a vector.
    /// A session made for one request (stateless HTTP) holds one call, and allocates no
    /// vector for it (a malloc and a free a request).
    Few(Option<Entry>, Vec<Entry>),
    /// More than [`FEW`] entries at some point (it stays a map until it is empty again).
    Many(HashMap<RequestId, RunningCall>),
}

impl Default for Calls {
    fn default() -> Calls {
        Calls::Few(None, Vec::new())
    }
}

impl Calls {
    /// Whether `id` is in flight.
    #[inline]
    pub(crate) fn contains_key(&self, id: &RequestId) -> bool {
        match self {
            Calls::Few(first, rest) => {
                first.as_ref().is_some_and(|(k, _)| k == id) || rest.iter().any(|(k, _)| k == id)
            }
            Calls::Many(many) => many.contains_key(id),
        }
    }

    /// The entry of `id`.
    pub(crate) fn get_mut(&mut self, id: &RequestId) -> Option<&mut RunningCall> {
        match self {
            Calls::Few(first, rest) => {
                first.iter_mut().chain(rest.iter_mut()).find(|(k, _)| k == id).map(|(_, call)| call)
            }
            Calls::Many(many) => many.get_mut(id),
        }
    }

    /// Enter `id`, which the caller has checked is not in the table.
    pub(crate) fn insert(&mut self, id: RequestId, call: RunningCall) {
        match self {
            Calls::Few(first @ None, _) => *first = Some((id, call)),
            Calls::Few(_, rest) if rest.len() < FEW - 1 => rest.push((id, call)),
            Calls::Few(first, rest) => {
                let mut many: HashMap<RequestId, RunningCall> =
                    first.take().into_iter().chain(rest.drain(..)).collect();
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
            Calls::Few(first, rest) => {
                if first.as_ref().is_some_and(|(k, _)| k == id) {
                    return first.take().map(|(_, call)| call);
                }
                let at = rest.iter().position(|(k, _)| k == id)?;
                Some(rest.swap_remove(at).1)
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
            Calls::Few(first, rest) => usize::from(first.is_some()) + rest.len(),
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
            Calls::Few(first, rest) => first.into_iter().chain(rest).map(|(_, call)| call).collect(),
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
        assert!(matches!(*running.lock(), Calls::Few(..)));
        for id in &ids[..3] {
            running.lock().insert(id.clone(), call());
        }
        assert!(running.cancel(&ids[1]));
        assert!(!running.cancel(&ids[1]));
        assert_eq!(running.abort_all(), 2);
        assert_eq!(running.len(), 0);
    }

    /// The entry kept in place leaves and is taken again like any other: the table holds
    /// exactly what went in and did not come out, however entries come and go.
    #[test]
    fn the_table_holds_what_came_and_did_not_leave_in_any_order() {
        let running = Running::default();
        let id = RequestId::Number;
        let mut held: Vec<i64> = Vec::new();
        for (n, step) in [1, 2, 3, -1, 4, -3, -2, 5, 6, -4, 7, -5, -6, -7, 8].into_iter().enumerate() {
            if step > 0 {
                running.lock().insert(id(step), call());
                held.push(step);
            } else {
                assert!(running.finish(&id(-step)), "step {n}: {} was held", -step);
                held.retain(|&h| h != -step);
            }
            for k in 1..=8 {
                assert_eq!(running.lock().contains_key(&id(k)), held.contains(&k), "step {n}: {k}");
            }
            assert_eq!(running.len(), held.len(), "step {n}");
        }
    }
}
