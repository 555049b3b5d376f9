//! The legacy session's GET stream (streamable HTTP, 2025-03-26 to 2025-11-25): the SSE
//! stream a client opens with `GET /mcp`, `Accept: text/event-stream` and its
//! `Mcp-Session-Id`, on which the session's unsolicited notifications go
//! (`notifications/resources/updated` for its subscriptions, a live server's
//! `notifications/*/list_changed`).
//!
//! Each legacy session gets a [`StreamSlot`] when it is made; the slot is the session's
//! notifier (`Session::set_notifier`), so `resources/subscribe` is served over HTTP, and it
//! holds at most one open stream. What the session sends while no stream is open waits for
//! the next one (a client opens its stream after the handshake, and reopens it after a
//! drop, and a notification sent meanwhile is not lost); queued or unread, it is bounded
//! like a POST's answer (`outbox`: past `max_sse_backlog` bytes, notifications are
//! dropped). The stream ends when the client closes it, or when the session ends (DELETE,
//! or the idle sweep: a session with a stream open is never idle).

use std::sync::{Arc, Mutex};

use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};

use super::outbox::{Outbox, outbox};
use crate::protocol::Outbound;
use crate::server::Sink;

/// One session's GET stream: the outbox its notifications go to, and whether a stream is
/// reading it.
pub(super) struct StreamSlot {
    state: Mutex<State>,
    max_backlog: usize,
}

struct State {
    /// Where the session's notifications go; `None` once the session ended.
    sink: Option<Arc<dyn Sink>>,
    /// The outbox's reading end, while no stream has it.
    waiting: Option<Outbox>,
    /// The number of the stream reading it (the last one opened).
    number: u64,
}

/// Why a stream was not opened.
pub(super) struct AlreadyOpen;

impl StreamSlot {
    /// A slot holding at most `max_backlog` bytes of notifications unread.
    pub(super) fn new(max_backlog: usize) -> Arc<StreamSlot> {
        let (sink, rx) = outbox(max_backlog);
        Arc::new(StreamSlot {
            state: Mutex::new(State { sink: Some(sink), waiting: Some(rx), number: 0 }),
            max_backlog,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session's notifier: whatever it sends goes to the outbox the stream reads.
    pub(super) fn notifier(self: &Arc<Self>) -> Arc<dyn Sink> {
        let slot = Arc::downgrade(self);
        Arc::new(move |m: Outbound| {
            let Some(slot) = slot.upgrade() else { return };
            let sink = slot.lock().sink.clone();
            if let Some(sink) = sink {
                sink.send(m);
            }
        })
    }

    /// Whether a stream is open.
    pub(super) fn is_open(&self) -> bool {
        let state = self.lock();
        state.sink.is_some() && state.waiting.is_none()
    }

    /// Open the stream: its SSE response, starting with what waited for it.
    pub(super) fn open(self: &Arc<Self>) -> Result<Response, AlreadyOpen> {
        let (rx, number) = {
            let mut state = self.lock();
            let Some(rx) = state.waiting.take() else { return Err(AlreadyOpen) };
            state.number += 1;
            (rx, state.number)
        };
        Ok(response(rx, Closer { slot: Arc::downgrade(self), number }))
    }

    /// End the open stream, if any, and take no more notifications (the session ended).
    pub(super) fn close(&self) {
        let mut state = self.lock();
        state.sink = None;
        state.waiting = None;
    }
}

/// Gives the slot a fresh outbox when the stream's body is dropped (the client went away),
/// for the next stream to read.
struct Closer {
    slot: std::sync::Weak<StreamSlot>,
    number: u64,
}

impl Drop for Closer {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.upgrade() {
            let mut state = slot.lock();
            if state.number == self.number && state.sink.is_some() && state.waiting.is_none() {
                let (sink, rx) = outbox(slot.max_backlog);
                state.sink = Some(sink);
                state.waiting = Some(rx);
                tracing::debug!("the client closed its GET stream");
            }
        }
    }
}

/// The SSE body: every message the session sends, until the slot drops the sink.
fn response(rx: Outbox, closer: Closer) -> Response {
    let stream = futures_util::stream::unfold((rx, closer), |(mut rx, closer)| async move {
        let message = rx.recv().await?;
        let event = Event::default().event("message").data(message.as_str());
        Some((Ok::<_, std::convert::Infallible>(event), (rx, closer)))
    });
    let mut r = (StatusCode::OK, Sse::new(stream).keep_alive(KeepAlive::default())).into_response();
    r.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}
