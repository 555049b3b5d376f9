//! The legacy session's GET stream (streamable HTTP, 2025-03-26 to 2025-11-25): the SSE
//! stream a client opens with `GET /mcp`, `Accept: text/event-stream` and its
//! `Mcp-Session-Id`, on which the session's messages from outside any call go
//! (`notifications/resources/updated` for its subscriptions, a live server's
//! `notifications/*/list_changed`, and what a call sends after its own stream has ended:
//! see `channel`).
//!
//! Each legacy session gets a [`StreamSlot`] when it is made; the slot is the session's
//! notifier (`Session::set_notifier`), so `resources/subscribe` is served over HTTP, and it
//! holds at most one open stream. Its events carry ids and are kept in the endpoint's
//! [`EventStore`](crate::http::EventStore), so a client that lost the stream reopens it with
//! `Last-Event-ID` and gets what it missed (such a GET takes the stream over from a
//! connection the server has not yet seen close). What the session sends while no stream
//! is open waits for the next one (a client opens its stream after the handshake, and
//! reopens it after a drop, and a notification sent meanwhile is not lost); queued or
//! unread, it is bounded like a POST's answer (`outbox`: past `max_sse_backlog` bytes,
//! notifications are dropped). The stream ends when the client closes it, or when the
//! session ends (DELETE, or the idle sweep: a session with a stream open is never idle).

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::response::Response;

use super::channel::{Channel, Resumable};
use super::event_store::{ReplayError, StoredEvent, replay_of_live};
use super::outbox::{Outbox, channel};
use super::sse;
use crate::protocol::Outbound;
use crate::server::Sink;
use crate::sync::lock;

/// One session's GET stream: the channel its messages go to, and whether a connection is
/// reading it.
pub(crate) struct StreamSlot {
    channel: Arc<Channel>,
    state: Mutex<State>,
    max_backlog: usize,
    /// The session's notifier (see [`StreamSlot::notifier`]), made once: every POST of
    /// the session hands it to its answer's channel.
    notifier: Arc<dyn Sink>,
}

struct State {
    /// The session ended: nothing more is taken.
    closed: bool,
    /// The queue's reading end, while no connection has it.
    waiting: Option<Outbox>,
    /// The number of the connection reading it (the last one opened).
    number: u64,
}

/// Why a stream was not opened.
pub(crate) struct AlreadyOpen;

impl StreamSlot {
    /// A slot for the session `resumable` names, holding at most `max_backlog` bytes of
    /// messages unread.
    pub(crate) fn new(max_backlog: usize, resumable: Resumable) -> Arc<StreamSlot> {
        let (feed, rx) = channel(max_backlog);
        Arc::new_cyclic(|me: &Weak<StreamSlot>| {
            let slot = me.clone();
            let notifier: Arc<dyn Sink> = Arc::new(move |m: Outbound| {
                let Some(slot) = slot.upgrade() else { return };
                if !slot.lock().closed {
                    slot.channel.send(m);
                }
            });
            StreamSlot {
                channel: Channel::get(resumable, feed),
                state: Mutex::new(State { closed: false, waiting: Some(rx), number: 0 }),
                max_backlog,
                notifier,
            }
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The stream's id (the `<stream>` of its events' ids).
    pub(crate) fn stream_id(&self) -> Arc<str> {
        self.channel.stream_id()
    }

    /// The session's notifier: whatever it sends goes to the stream, until the session ends.
    pub(crate) fn notifier(&self) -> Arc<dyn Sink> {
        self.notifier.clone()
    }

    /// Where the session's events are kept, and its id: what a POST's answer in the
    /// session is resumable by.
    pub(crate) fn resumable(&self) -> Resumable {
        self.channel.resumable()
    }

    /// Whether a connection is reading the stream.
    pub(crate) fn is_open(&self) -> bool {
        let state = self.lock();
        !state.closed && state.waiting.is_none()
    }

    /// Open the stream: its SSE response, starting with what waited for it, ending early as
    /// `until` says.
    pub(crate) fn open(self: &Arc<Self>, until: Option<sse::Until>) -> Result<Response, AlreadyOpen> {
        let (rx, number) = {
            let mut state = self.lock();
            let Some(rx) = state.waiting.take() else { return Err(AlreadyOpen) };
            state.number += 1;
            (rx, state.number)
        };
        let closer: Box<dyn Send + Sync> = Box::new(Closer { slot: Arc::downgrade(self), number });
        let tail =
            sse::Tail { live: Some(rx), ends_with_response: false, ended: false, guard: Some(closer), until };
        Ok(sse::resumed(self.stream_id(), Vec::new(), tail, Duration::ZERO))
    }

    /// Reopen the stream after event `after`: what the store holds after it, then the
    /// stream live, ending early as `until` says. Takes the stream over from a connection
    /// still open.
    pub(crate) async fn resume(
        self: &Arc<Self>,
        after: u64,
        until: Option<sse::Until>,
    ) -> Result<Response, ReplayError> {
        let (feed, rx) = channel(self.max_backlog);
        let number = {
            let mut state = self.lock();
            if state.closed {
                return Err(ReplayError::UnknownStream { stream: self.stream_id().to_string() });
            }
            state.number += 1;
            state.waiting = None;
            state.number
        };
        // From here on the new connection's queue takes what is sent; what came before
        // (up to `through`) is replayed from the store.
        let (through, _) = self.channel.resume(feed);
        let stream = self.stream_id();
        let replay = if after >= through {
            Vec::new()
        } else {
            let store = self.channel.store();
            // A stream the store lost whole (evicted) is still this one: gone, not unknown.
            let stored = store.replay(self.channel.session(), &stream, after).await;
            replay_of_live(&stream, after, through, stored)?
        };
        let replay: Vec<StoredEvent> = replay.into_iter().filter(|e| e.seq <= through).collect();
        let closer: Box<dyn Send + Sync> = Box::new(Closer { slot: Arc::downgrade(self), number });
        let tail =
            sse::Tail { live: Some(rx), ends_with_response: false, ended: false, guard: Some(closer), until };
        Ok(sse::resumed(stream, replay, tail, Duration::ZERO))
    }

    /// End the open stream, if any, and take no more messages; the store forgets the
    /// session's streams when `forget` (the session ended), and keeps them when not (this
    /// replica let go of a session that a shared session store keeps for the others).
    pub(crate) fn close_with(&self, forget: bool) {
        let mut state = self.lock();
        if std::mem::replace(&mut state.closed, true) {
            return;
        }
        state.waiting = None;
        // A queue no one reads: the open connection's ends.
        let (feed, _) = channel(0);
        self.channel.resume(feed);
        drop(state);
        if forget {
            self.channel.store().forget_session(self.channel.session());
        }
    }
}

/// Gives the slot a fresh queue when the stream's body is dropped (the client went away),
/// for the next connection to read.
struct Closer {
    slot: std::sync::Weak<StreamSlot>,
    number: u64,
}

impl Drop for Closer {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.upgrade() {
            let mut state = slot.lock();
            if state.number == self.number && !state.closed && state.waiting.is_none() {
                let (feed, rx) = channel(slot.max_backlog);
                slot.channel.resume(feed);
                state.waiting = Some(rx);
                tracing::debug!("the client closed its GET stream");
            }
        }
    }
}
