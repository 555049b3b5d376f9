//! [`EventStore`]: where a legacy session's SSE events are kept so a client that lost its
//! connection can resume a stream with `Last-Event-ID` (streamable HTTP, 2025-03-26 to
//! 2025-11-25: "Resumability and Redelivery"), and [`MemoryEventStore`], the default.
//!
//! Every event on a legacy session's SSE streams (a POST's answer, the GET stream) has an
//! id of the form `<stream>:<seq>` ([`EventId`]): `<stream>` is a random id naming the
//! stream (unguessable, and the same on every replica), `<seq>` counts that stream's
//! events from 1 (`0` is the priming event, which carries no message). A GET with
//! `Last-Event-ID` names the stream to resume and where in it the client stopped; the
//! transport asks the store for what followed ([`EventStore::replay`]) and then follows the
//! stream live, if it is still running in this process.
//!
//! The store is pluggable ([`HttpConfig::event_store`](super::HttpConfig::event_store)) so
//! that a shared one (Redis, say) can back several replicas: the ids name their stream,
//! not the replica, and a stream records the session it belongs to, so a replay is refused
//! for a stream of another session as for one that never existed. The 2026-07-28 revision
//! has no resumable streams: modern answers, and a stateless server's, carry no ids and
//! store nothing.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use crate::sync::lock;

/// The default cap on the events [`MemoryEventStore`] keeps per stream: 1,000.
pub const DEFAULT_EVENTS_PER_STREAM: usize = 1_000;
/// The default cap on the bytes [`MemoryEventStore`] keeps over all streams: 8 MiB, counting
/// each event as its message text plus [`EVENT_OVERHEAD`].
pub const DEFAULT_EVENT_STORE_BYTES: usize = 8 * 1024 * 1024;
/// What [`MemoryEventStore`] counts for each event besides its message text (its
/// bookkeeping), so that events without text (a priming event) are bounded too: 64 bytes.
pub const EVENT_OVERHEAD: usize = 64;

/// An SSE event id as toolwire writes it: `<stream>:<seq>`.
///
/// ```
/// use toolwire::http::EventId;
///
/// let id = EventId::parse("Qm9vbXM3dHJlYW0:12").unwrap();
/// assert_eq!((id.stream(), id.seq()), ("Qm9vbXM3dHJlYW0", 12));
/// assert_eq!(id.to_string(), "Qm9vbXM3dHJlYW0:12");
/// assert!(EventId::parse("12").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventId {
    stream: String,
    seq: u64,
}

impl EventId {
    /// The id of event `seq` of `stream`.
    pub fn new(stream: impl Into<String>, seq: u64) -> EventId {
        EventId { stream: stream.into(), seq }
    }

    /// Read an id (a `Last-Event-ID` header): `None` unless it is `<stream>:<seq>` with a
    /// non-empty stream of base64url characters and a decimal `seq`.
    pub fn parse(text: &str) -> Option<EventId> {
        let (stream, seq) = text.rsplit_once(':')?;
        let url_safe = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
        if stream.is_empty() || stream.len() > 64 || !stream.bytes().all(url_safe) {
            return None;
        }
        if seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(EventId { stream: stream.to_owned(), seq: seq.parse().ok()? })
    }

    /// The stream the event belongs to.
    pub fn stream(&self) -> &str {
        &self.stream
    }

    /// Its place in the stream: 1 for the first message, 0 for the priming event.
    pub fn seq(&self) -> u64 {
        self.seq
    }
}

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.stream, self.seq)
    }
}

/// One event as the store is given it, and as it hands it back.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredEvent {
    /// Its place in the stream (from 1).
    pub seq: u64,
    /// The JSON-RPC message, as it went out in the event's `data`.
    pub data: String,
    /// Whether it ends the stream: a POST's answer ends with the request's response.
    pub ends_stream: bool,
}

impl StoredEvent {
    /// Event `seq`, carrying `data`; `ends_stream` for the response that ends a POST's stream.
    pub fn new(seq: u64, data: impl Into<String>, ends_stream: bool) -> StoredEvent {
        StoredEvent { seq, data: data.into(), ends_stream }
    }
}

/// Why the store cannot replay a stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The store holds no stream by that name for this session: it never existed, it is
    /// another session's, or the store dropped it whole.
    #[error("no stream '{stream}' is held for this session")]
    UnknownStream {
        /// The stream asked for.
        stream: String,
    },
    /// The store dropped events the client has not seen: it holds the stream from
    /// `oldest` on, and the client asked for what followed `after`.
    #[error("the events of stream '{stream}' after {after} are no longer held (the oldest held is {oldest})")]
    Gone {
        /// The stream asked for.
        stream: String,
        /// The last event the client saw.
        after: u64,
        /// The oldest event the store still holds.
        oldest: u64,
    },
    /// The store could not be read (a networked store is down).
    #[error("the event store is unavailable: {0}")]
    Unavailable(String),
}

/// What [`EventStore::replay`] resolves to: the events after the one asked for, oldest
/// first.
pub type Replay<'a> = Pin<Box<dyn Future<Output = Result<Vec<StoredEvent>, ReplayError>> + Send + 'a>>;

/// Where SSE events wait to be replayed to a client that resumes with `Last-Event-ID`.
///
/// The transport calls [`append`](Self::append) as a session sends each message on a
/// resumable stream (before it is written to the connection, so a message sent while the
/// connection is down is kept), and [`replay`](Self::replay) when a GET names an event of
/// that stream. `append` must not block: a networked store queues the write and makes it
/// in the background, keeping each stream's events in order. A store is bounded: it drops
/// the oldest events (and says so with [`ReplayError::Gone`]) rather than grow without end.
///
/// ```
/// use toolwire::http::{EventStore, MemoryEventStore, StoredEvent};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryEventStore::new();
/// store.append("session-a", "s1", StoredEvent::new(1, "{\"a\":1}", false));
/// store.append("session-a", "s1", StoredEvent::new(2, "{\"b\":2}", true));
/// let after_1 = store.replay("session-a", "s1", 1).await.unwrap();
/// assert_eq!(after_1, vec![StoredEvent::new(2, "{\"b\":2}", true)]);
/// assert!(store.replay("session-b", "s1", 1).await.is_err()); // another session's stream
/// # });
/// ```
pub trait EventStore: Send + Sync + 'static {
    /// Keep `event` of stream `stream`, which belongs to session `session`. Events of one
    /// stream arrive in order of `seq`.
    fn append(&self, session: &str, stream: &str, event: StoredEvent);

    /// The events of `stream` after event `after` (0: all of them), oldest first, if
    /// `stream` is a stream of `session` and nothing after `after` was dropped.
    fn replay<'a>(&'a self, session: &'a str, stream: &'a str, after: u64) -> Replay<'a>;

    /// The session ended: its streams can go.
    fn forget_session(&self, session: &str);
}

/// The default [`EventStore`]: in this process's memory, bounded per stream and in total.
///
/// - Per stream it keeps the last [`DEFAULT_EVENTS_PER_STREAM`] events (1,000); an older
///   one is dropped as a new one comes.
/// - Over all streams it keeps at most [`DEFAULT_EVENT_STORE_BYTES`] bytes (8 MiB, each event
///   counted as its message text plus [`EVENT_OVERHEAD`]); past that, the oldest events of
///   any stream are dropped first, and a stream left with no events is forgotten.
/// - A session's streams go when the session ends.
///
/// A replay that needs a dropped event fails with [`ReplayError::Gone`], so a client never
/// resumes across a gap unawares. [`MemoryEventStore::with_limits`] sets other bounds.
#[derive(Debug)]
pub struct MemoryEventStore {
    inner: Mutex<Memory>,
    per_stream: usize,
    max_bytes: usize,
}

#[derive(Debug, Default)]
struct Memory {
    streams: HashMap<String, Held>,
    /// Every held event, oldest first: `(stream, seq, bytes)`. An entry whose event was
    /// already dropped by its stream's own cap is skipped when it comes up.
    order: VecDeque<(String, u64, usize)>,
    /// Events held, over all streams.
    count: usize,
    bytes: usize,
}

#[derive(Debug)]
struct Held {
    session: String,
    events: VecDeque<StoredEvent>,
    /// The seq of the newest event dropped from this stream (0: none).
    dropped_through: u64,
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        MemoryEventStore::new()
    }
}

impl MemoryEventStore {
    /// A store with the default bounds ([`DEFAULT_EVENTS_PER_STREAM`] events per stream,
    /// [`DEFAULT_EVENT_STORE_BYTES`] bytes in all).
    pub fn new() -> MemoryEventStore {
        MemoryEventStore::with_limits(DEFAULT_EVENTS_PER_STREAM, DEFAULT_EVENT_STORE_BYTES)
    }

    /// A store keeping at most `per_stream` events per stream and `max_bytes` bytes in all
    /// (each event counted as its text plus [`EVENT_OVERHEAD`]; each bound at least 1).
    pub fn with_limits(per_stream: usize, max_bytes: usize) -> MemoryEventStore {
        MemoryEventStore {
            inner: Mutex::new(Memory::default()),
            per_stream: per_stream.max(1),
            max_bytes: max_bytes.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        lock(&self.inner)
    }

    /// How many events it holds now, and the bytes they count for (text plus
    /// [`EVENT_OVERHEAD`] each).
    pub fn held(&self) -> (usize, usize) {
        let memory = self.lock();
        (memory.count, memory.bytes)
    }
}

impl EventStore for MemoryEventStore {
    fn append(&self, session: &str, stream: &str, event: StoredEvent) {
        let mut memory = self.lock();
        let memory = &mut *memory;
        let len = event.data.len() + EVENT_OVERHEAD;
        let seq = event.seq;
        let held = memory.streams.entry(stream.to_owned()).or_insert_with(|| Held {
            session: session.to_owned(),
            events: VecDeque::new(),
            dropped_through: 0,
        });
        if held.session != session {
            // A stream id is random and names one session's stream; a clash is refused.
            return tracing::warn!(stream, "an event for a stream of another session was not stored");
        }
        held.events.push_back(event);
        memory.count += 1;
        if held.events.len() > self.per_stream
            && let Some(old) = held.events.pop_front()
        {
            held.dropped_through = old.seq;
            memory.bytes -= old.data.len() + EVENT_OVERHEAD;
            memory.count -= 1;
        }
        memory.order.push_back((stream.to_owned(), seq, len));
        memory.bytes += len;
        while memory.bytes > self.max_bytes {
            let Some((stream, seq, _)) = memory.order.pop_front() else { break };
            let Some(held) = memory.streams.get_mut(&stream) else { continue };
            if held.events.front().is_some_and(|e| e.seq == seq)
                && let Some(old) = held.events.pop_front()
            {
                held.dropped_through = old.seq;
                memory.bytes -= old.data.len() + EVENT_OVERHEAD;
                memory.count -= 1;
                if held.events.is_empty() {
                    memory.streams.remove(&stream);
                }
            }
        }
        // Entries of events already dropped by their stream's cap are stale; shed them when
        // they outnumber the held events, so the queue stays bounded too (amortised: the
        // sweep runs once per `count + 1024` appends at most).
        if memory.order.len() > 2 * memory.count + 1024 {
            let streams = &memory.streams;
            memory.order.retain(|(s, q, _)| {
                streams.get(s).is_some_and(|h| h.events.front().is_some_and(|e| e.seq <= *q))
            });
        }
    }

    fn replay<'a>(&'a self, session: &'a str, stream: &'a str, after: u64) -> Replay<'a> {
        let outcome = {
            let memory = self.lock();
            match memory.streams.get(stream).filter(|h| h.session == session) {
                None => Err(ReplayError::UnknownStream { stream: stream.to_owned() }),
                Some(held) if after < held.dropped_through => Err(ReplayError::Gone {
                    stream: stream.to_owned(),
                    after,
                    oldest: held.dropped_through + 1,
                }),
                Some(held) => Ok(held.events.iter().filter(|e| e.seq > after).cloned().collect()),
            }
        };
        Box::pin(std::future::ready(outcome))
    }

    fn forget_session(&self, session: &str) {
        let mut memory = self.lock();
        let memory = &mut *memory;
        let (mut freed, mut events) = (0, 0);
        memory.streams.retain(|_, h| {
            let keep = h.session != session;
            if !keep {
                freed += h.events.iter().map(|e| e.data.len() + EVENT_OVERHEAD).sum::<usize>();
                events += h.events.len();
            }
            keep
        });
        memory.bytes -= freed;
        memory.count -= events;
        let streams = &memory.streams;
        memory.order.retain(|(s, _, _)| streams.contains_key(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    fn seqs(events: &[StoredEvent]) -> Vec<u64> {
        events.iter().map(|e| e.seq).collect()
    }

    #[test]
    fn replays_what_followed_and_nothing_of_another_stream_or_session() {
        let store = MemoryEventStore::new();
        for seq in 1..=5 {
            store.append("a", "s1", StoredEvent::new(seq, format!("m{seq}"), false));
            store.append("a", "s2", StoredEvent::new(seq, format!("n{seq}"), false));
        }
        assert_eq!(seqs(&block(store.replay("a", "s1", 3)).unwrap()), [4, 5]);
        assert_eq!(block(store.replay("a", "s1", 5)).unwrap(), []);
        assert_eq!(block(store.replay("a", "s2", 0)).unwrap()[0].data, "n1");
        assert_eq!(
            block(store.replay("b", "s1", 3)).unwrap_err(),
            ReplayError::UnknownStream { stream: "s1".into() }
        );
        assert_eq!(
            block(store.replay("a", "s9", 0)).unwrap_err().to_string(),
            "no stream 's9' is held for this session"
        );
    }

    #[test]
    fn a_stream_keeps_its_last_events_and_says_when_the_client_fell_behind() {
        let store = MemoryEventStore::with_limits(3, usize::MAX);
        for seq in 1..=10 {
            store.append("a", "s", StoredEvent::new(seq, "x", false));
        }
        assert_eq!(store.held(), (3, 3 * (1 + EVENT_OVERHEAD)));
        assert_eq!(seqs(&block(store.replay("a", "s", 7)).unwrap()), [8, 9, 10]);
        let gone = block(store.replay("a", "s", 6)).unwrap_err();
        assert_eq!(gone, ReplayError::Gone { stream: "s".into(), after: 6, oldest: 8 });
        assert_eq!(
            gone.to_string(),
            "the events of stream 's' after 6 are no longer held (the oldest held is 8)"
        );
    }

    #[test]
    fn the_total_bound_drops_the_oldest_events_of_any_stream_first() {
        let each = 40 + EVENT_OVERHEAD;
        let store = MemoryEventStore::with_limits(1_000, 2 * each + 10);
        store.append("a", "old", StoredEvent::new(1, "x".repeat(40), false));
        store.append("a", "old", StoredEvent::new(2, "x".repeat(40), false));
        store.append("a", "new", StoredEvent::new(1, "y".repeat(40), false));
        // Three events do not fit: the oldest (old:1) went.
        assert_eq!(store.held(), (2, 2 * each));
        assert!(matches!(block(store.replay("a", "old", 0)), Err(ReplayError::Gone { oldest: 2, .. })));
        assert_eq!(seqs(&block(store.replay("a", "old", 1)).unwrap()), [2]);
        for seq in 2..=100 {
            store.append("a", "new", StoredEvent::new(seq, "y".repeat(40), false));
        }
        assert!(store.held().1 <= 2 * each + 10, "{:?}", store.held());
        // The old stream lost all its events and was forgotten.
        assert!(matches!(block(store.replay("a", "old", 1)), Err(ReplayError::UnknownStream { .. })));
        let memory = store.lock();
        assert!(memory.order.len() <= 2 * memory.count + 1025, "{}", memory.order.len());
    }

    #[test]
    fn events_without_text_are_bounded_too() {
        let store = MemoryEventStore::with_limits(1_000, 10 * EVENT_OVERHEAD);
        for n in 0..1_000 {
            store.append("a", &format!("s{n}"), StoredEvent::new(0, "", false));
        }
        assert_eq!(store.held(), (10, 10 * EVENT_OVERHEAD));
        assert!(store.lock().streams.len() <= 10);
    }

    #[test]
    fn a_session_that_ends_takes_its_streams_with_it() {
        let store = MemoryEventStore::new();
        store.append("a", "s", StoredEvent::new(1, "abc", false));
        store.append("b", "t", StoredEvent::new(1, "de", false));
        store.forget_session("a");
        assert_eq!(store.held(), (1, 2 + EVENT_OVERHEAD));
        assert!(block(store.replay("a", "s", 0)).is_err());
        assert_eq!(seqs(&block(store.replay("b", "t", 0)).unwrap()), [1]);
    }

    #[test]
    fn event_ids_parse_only_in_their_own_shape() {
        assert_eq!(EventId::parse("abc_-9:0"), Some(EventId::new("abc_-9", 0)));
        for bad in ["", ":", "abc:", ":5", "a b:1", "abc:-1", "abc:1.5", "abc:99999999999999999999999"] {
            assert_eq!(EventId::parse(bad), None, "{bad:?}");
        }
    }
}
