//! [`Channel`]: the sending end of a legacy session's resumable SSE stream, a POST's answer
//! or the session's GET stream. It is the [`Sink`] the session sends on: it numbers each
//! message, keeps it in the [`EventStore`] (before it is written, so what is sent while the
//! connection is down is kept), and queues it for whichever connection reads the stream
//! now; a GET with `Last-Event-ID` hands the channel a new queue and replays from the store
//! what the old connection missed.
//!
//! A POST's channel also decides what its answer is: a response sent first (nothing came
//! before it) goes out as plain JSON and is not stored; anything else makes the answer an
//! SSE stream, whose events are stored. Once the response has gone, the POST's stream is
//! over: a message sent on it later (a log from a task the tool left running, or any
//! request of it) goes to the session's GET stream instead (the channel's `fallback`).
//!
//! [`LiveStreams`] finds a POST's channel by its stream id while the call's sink is held, so
//! a resumed stream follows the rest of the answer as it comes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::event_store::{EventStore, StoredEvent};
use super::outbox::Feed;
use crate::protocol::{Outbound, OutboundKind};
use crate::server::Sink;
use crate::sync::lock;

/// What a legacy session's streams are resumable with: the store, and the session's id.
#[derive(Clone)]
pub(crate) struct Resumable {
    pub(crate) store: Arc<dyn EventStore>,
    pub(crate) session: Arc<str>,
}

/// One resumable stream's sending end.
pub(crate) struct Channel {
    resumable: Resumable,
    /// The stream's id: made when the first event is stored (a POST answered with plain
    /// JSON never needs one).
    stream: Arc<OnceLock<Arc<str>>>,
    /// A POST's: where messages go after its response; and the live-stream table.
    post: Option<Post>,
    state: Mutex<State>,
    me: Weak<Channel>,
}

struct Post {
    fallback: Option<Arc<dyn Sink>>,
    live: Weak<LiveStreams>,
}

struct State {
    /// The seq of the last message numbered.
    seq: u64,
    feed: Feed,
    mode: Mode,
    /// A POST's response went out: later messages take the fallback.
    ended: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Nothing sent yet (a POST's answer may still be plain JSON).
    Undecided,
    /// The answer is the response alone, as JSON.
    Json,
    /// The answer is an SSE stream (a GET stream is always one).
    Sse,
}

impl Channel {
    /// A POST's channel: its messages go to `feed`, and after its response to `fallback`.
    pub(crate) fn post(
        resumable: Resumable,
        feed: Feed,
        fallback: Option<Arc<dyn Sink>>,
        live: &Arc<LiveStreams>,
    ) -> Arc<Channel> {
        let post = Post { fallback, live: Arc::downgrade(live) };
        Channel::make(resumable, feed, Some(post), Mode::Undecided)
    }

    /// A GET stream's channel: every message is an event.
    pub(super) fn get(resumable: Resumable, feed: Feed) -> Arc<Channel> {
        let channel = Channel::make(resumable, feed, None, Mode::Sse);
        channel.stream_id();
        channel
    }

    fn make(resumable: Resumable, feed: Feed, post: Option<Post>, mode: Mode) -> Arc<Channel> {
        Arc::new_cyclic(|me| Channel {
            resumable,
            stream: Arc::default(),
            post,
            state: Mutex::new(State { seq: 0, feed, mode, ended: false }),
            me: me.clone(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The store its events are kept in.
    pub(super) fn store(&self) -> Arc<dyn EventStore> {
        self.resumable.store.clone()
    }

    /// The session this stream belongs to.
    pub(super) fn session(&self) -> &str {
        &self.resumable.session
    }

    /// Where this stream's events are kept, and whose they are: for another stream of the
    /// same session (a POST's answer), without allocating the session's id again.
    pub(super) fn resumable(&self) -> Resumable {
        self.resumable.clone()
    }

    /// Where the stream's id will be once it is made, for the body that writes its events
    /// (which must not hold the channel: the answer ends when every sender is gone).
    pub(crate) fn stream_cell(&self) -> Arc<OnceLock<Arc<str>>> {
        self.stream.clone()
    }

    /// The stream's id, made (and a POST's channel entered in the live table) on first use.
    pub(crate) fn stream_id(&self) -> Arc<str> {
        self.stream
            .get_or_init(|| {
                let id: Arc<str> = crate::transport::http::auth::token::random_id(12).into();
                if let Some(live) = self.post.as_ref().and_then(|p| p.live.upgrade()) {
                    live.lock().insert(id.clone(), self.me.clone());
                }
                id
            })
            .clone()
    }

    /// The answer of a POST that has waited long enough becomes an SSE stream now, to be
    /// closed early and polled (SEP-1699): `true` if nothing was sent yet, so the caller
    /// writes the priming event (seq 0) first. The store learns of the stream then, so a
    /// resume before its first message finds it.
    pub(crate) fn begin_polling(&self) -> bool {
        let mut state = self.lock();
        if state.mode != Mode::Undecided {
            return false;
        }
        state.mode = Mode::Sse;
        let stream = self.stream_id();
        self.resumable.store.append(&self.resumable.session, &stream, StoredEvent::new(0, "", false));
        true
    }

    /// A new connection reads the stream from now on: later messages go to `feed`. Returns
    /// the seq of the last message numbered so far (the replay from the store goes up to
    /// it) and whether the stream has ended.
    pub(crate) fn resume(&self, feed: Feed) -> (u64, bool) {
        let mut state = self.lock();
        state.feed = feed;
        (state.seq, state.ended)
    }
}

impl Sink for Channel {
    fn send(&self, message: Outbound) {
        let mut state = self.lock();
        if state.ended {
            drop(state);
            if let Some(fallback) = self.post.as_ref().and_then(|p| p.fallback.as_ref()) {
                fallback.send(message);
            }
            return;
        }
        let response = self.post.is_some() && message.kind() == OutboundKind::Response;
        if state.mode == Mode::Undecided {
            if response {
                // The answer is this response alone, as JSON: nothing to resume.
                state.mode = Mode::Json;
                state.ended = true;
                return state.feed.push(0, message);
            }
            state.mode = Mode::Sse;
        }
        state.seq += 1;
        let seq = state.seq;
        let stream = self.stream_id();
        let event = StoredEvent::new(seq, message.as_str(), response);
        self.resumable.store.append(&self.resumable.session, &stream, event);
        state.ended = response;
        state.feed.push(seq, message);
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        if let (Some(id), Some(live)) = (self.stream.get(), self.post.as_ref().and_then(|p| p.live.upgrade()))
        {
            live.lock().remove(id);
        }
    }
}

/// The POST streams whose sink is still held, by stream id.
#[derive(Default)]
pub(crate) struct LiveStreams {
    map: Mutex<HashMap<Arc<str>, Weak<Channel>>>,
}

impl LiveStreams {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Weak<Channel>>> {
        lock(&self.map)
    }

    /// The live channel of `stream`, if it is one of `session`'s.
    pub(crate) fn find(&self, session: &str, stream: &str) -> Option<Arc<Channel>> {
        // Upgraded outside the lock: dropping the last strong reference runs the channel's
        // `Drop`, which takes it.
        let weak = self.lock().get(stream).cloned()?;
        weak.upgrade().filter(|c| c.session() == session)
    }
}
