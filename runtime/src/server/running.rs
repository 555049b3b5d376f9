//! [`Running`]: a session's table of requests in flight, by request id.
//!
//! Whoever removes a request's entry decides its fate: its completion (the reply may be
//! sent), a client's `notifications/cancelled` or the drain at shutdown (it is dropped and
//! never answers). The session owns the table; a tracked [`Reply`](super::sink::Reply)
//! consults it.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use crate::protocol::RequestId;

/// The calls in flight, by request id.
#[derive(Default)]
pub(crate) struct Running {
    calls: Mutex<HashMap<RequestId, RunningCall>>,
    pub(crate) idle: Notify,
}

/// One request in flight: how to stop it.
pub(crate) struct RunningCall {
    /// `None` while a call polled inline has not been spawned yet.
    pub(crate) abort: Option<AbortHandle>,
    pub(crate) cancel: CancellationToken,
}

impl Running {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<RequestId, RunningCall>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
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
        call.cancel.cancel();
        if let Some(abort) = &call.abort {
            abort.abort();
        }
        true
    }

    pub(crate) fn abort_all(&self) -> usize {
        let calls: Vec<RunningCall> = self.lock().drain().map(|(_, c)| c).collect();
        self.idle.notify_waiters();
        for call in &calls {
            call.cancel.cancel();
            if let Some(abort) = &call.abort {
                abort.abort();
            }
        }
        calls.len()
    }
}
