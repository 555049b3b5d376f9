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
//! The store is pluggable ([`HttpConfig::event_store`](crate::http::HttpConfig::event_store)) so
//! that a shared one (Redis, say) can back several replicas: the ids name their stream,
//! not the replica, and a stream records the session it belongs to, so a replay is refused
//! for a stream of another session as for one that never existed. The 2026-07-28 revision
//! has no resumable streams: modern answers, and a stateless server's, carry no ids and
//! store nothing.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::mem::size_of;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use crate::sync::lock;

/// The default cap on the events [`MemoryEventStore`] keeps per stream: 1,000.
pub const DEFAULT_EVENTS_PER_STREAM: usize = 1_000;
/// The default cap on the bytes [`MemoryEventStore`] holds over all streams: 8 MiB, counting
/// everything it allocates (see [`MemoryEventStore`]).
pub const DEFAULT_EVENT_STORE_BYTES: usize = 8 * 1024 * 1024;
/// The default cap on the streams [`MemoryEventStore`] keeps: 10,000 (about ten for each of
/// an endpoint's [`DEFAULT_MAX_SESSIONS`](crate::http::DEFAULT_MAX_SESSIONS) sessions).
pub const DEFAULT_EVENT_STORE_STREAMS: usize = 10_000;

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

/// What a stream still written here (`through`: the seq of its last event) replays after
/// `after`, given what the store answered: a stream the store no longer holds at all
/// (evicted whole, or never stored) replays nothing when nothing after `after` was ever
/// sent, and is [`ReplayError::Gone`] when something was (the oldest still to come is
/// `through + 1`), not an unknown stream: the writer here knows it exists.
pub(crate) fn replay_of_live(
    stream: &str,
    after: u64,
    through: u64,
    stored: Result<Vec<StoredEvent>, ReplayError>,
) -> Result<Vec<StoredEvent>, ReplayError> {
    match stored {
        Err(ReplayError::UnknownStream { .. }) if after >= through => Ok(Vec::new()),
        Err(ReplayError::UnknownStream { .. }) => {
            Err(ReplayError::Gone { stream: stream.to_owned(), after, oldest: through + 1 })
        }
        other => other,
    }
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

/// The default [`EventStore`]: in this process's memory, bounded per stream, in streams, and
/// in bytes.
///
/// - Per stream it keeps the last [`DEFAULT_EVENTS_PER_STREAM`] events (1,000); an older
///   one is dropped as a new one comes.
/// - It keeps at most [`DEFAULT_EVENT_STORE_STREAMS`] streams (10,000); a new stream past
///   that evicts the oldest whole (the one whose oldest event is the oldest held).
/// - Over all streams it holds at most [`DEFAULT_EVENT_STORE_BYTES`] bytes (8 MiB); past
///   that, the oldest events of any stream are dropped first, and a stream left with no
///   events is forgotten.
/// - A session's streams go when the session ends.
///
/// **What a byte is.** Everything the store allocates counts, as the allocator hands it
/// out (glibc's malloc: each block rounded up to 16 bytes with an 8-byte header, 32 at the
/// least; other allocators are within a few bytes of it): each event's text; each
/// stream's id and its session's id, and the ring of its events (its whole capacity, which
/// is shrunk when mostly empty); the table of streams and the queue that orders every event
/// (their whole capacity, shrunk when mostly empty). Counting only the events' text (and a
/// fixed 64 bytes an event, as the store once did) let 15,000 small streams of one session
/// hold 20 MB under an 8 MiB cap: the bookkeeping was most of it.
///
/// A replay that needs a dropped event fails with [`ReplayError::Gone`], so a client never
/// resumes across a gap unawares; one of a stream evicted whole (or forgotten because all
/// its events went) fails with [`ReplayError::UnknownStream`], until the stream (a session's
/// GET stream, or a call's answer still being written) sends again: it is then held anew,
/// and a replay from before its new first event is [`ReplayError::Gone`].
/// [`MemoryEventStore::with_limits`] and [`MemoryEventStore::max_streams`] set other bounds.
///
/// ```
/// use toolwire::http::{EventStore, MemoryEventStore, StoredEvent};
///
/// let store = MemoryEventStore::with_limits(100, 64 * 1024).max_streams(2);
/// for stream in ["s1", "s2", "s3"] {
///     store.append("session-a", stream, StoredEvent::new(1, "{}", false));
/// }
/// // The third stream evicted the oldest.
/// assert_eq!(store.streams(), 2);
/// assert!(store.held().1 <= 64 * 1024);
/// ```
#[derive(Debug)]
pub struct MemoryEventStore {
    inner: Mutex<Memory>,
    per_stream: usize,
    max_bytes: usize,
    max_streams: usize,
}

/// One entry of the queue ordering every held event: its stream and its seq.
type Queued = (Arc<str>, u64);

#[derive(Debug, Default)]
struct Memory {
    streams: HashMap<Arc<str>, Held>,
    /// Every held event, oldest first. An entry whose event was already dropped (by its
    /// stream's own cap, or with its stream) is skipped when it comes up.
    order: VecDeque<Queued>,
    /// Events held, over all streams.
    count: usize,
    /// What the streams and their events hold (`Held::bytes`, summed), without the table and
    /// the queue, which [`Memory::bytes`] adds.
    content: usize,
    /// The session id of the stream made last, shared by the next streams of that session.
    last_session: Option<Arc<str>>,
}

#[derive(Debug)]
struct Held {
    /// Its session's id: one copy for the streams of a session made one after another.
    session: Arc<str>,
    events: VecDeque<StoredEvent>,
    /// The seq of the newest event dropped from this stream (0: none).
    dropped_through: u64,
    /// What this stream holds: its ids, its ring of events and their texts.
    bytes: usize,
}

/// What the allocator takes for a block of `n` bytes (glibc's malloc on a 64-bit target: an
/// 8-byte header, rounded up to 16, at least 32); nothing for nothing.
const fn chunk(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let chunk = (n + 8 + 15) & !15;
    if chunk < 32 { 32 } else { chunk }
}

/// What an event's text takes.
fn text_bytes(event: &StoredEvent) -> usize {
    chunk(event.data.capacity())
}

/// What a ring of events takes, for its capacity.
fn ring_bytes(events: &VecDeque<StoredEvent>) -> usize {
    chunk(events.capacity() * size_of::<StoredEvent>())
}

/// What a stream takes besides its events' texts and its ring: its id (an `Arc<str>`, shared
/// with its queue entries) and its session's id (counted for each stream, though streams of
/// one session made one after another share one copy).
fn ids_bytes(stream: &str, session: &str) -> usize {
    chunk(2 * size_of::<usize>() + stream.len()) + chunk(2 * size_of::<usize>() + session.len())
}

/// What the table of streams takes for its capacity: a slot and a control byte a bucket
/// (buckets: a power of two, 8/7 of the capacity), and a group of control bytes more.
fn table_bytes(streams: &HashMap<Arc<str>, Held>) -> usize {
    let capacity = streams.capacity();
    if capacity == 0 {
        return 0;
    }
    let buckets = if capacity < 8 { capacity + 1 } else { (capacity * 8 / 7).next_power_of_two() };
    chunk(buckets * (size_of::<(Arc<str>, Held)>() + 1) + 16)
}

impl Memory {
    /// Everything held, as the allocator counts it.
    fn bytes(&self) -> usize {
        self.content + table_bytes(&self.streams) + chunk(self.order.capacity() * size_of::<Queued>())
    }

    /// Drop the oldest event of `held` (of stream `stream`); forget the stream when it has
    /// none left.
    fn drop_oldest_of(&mut self, stream: &str) {
        let Some(held) = self.streams.get_mut(stream) else { return };
        let Some(old) = held.events.pop_front() else { return };
        held.dropped_through = old.seq;
        let before = ring_bytes(&held.events);
        shrink_when_sparse(&mut held.events);
        let freed = text_bytes(&old) + before - ring_bytes(&held.events);
        held.bytes -= freed;
        self.content -= freed;
        self.count -= 1;
        if held.events.is_empty() {
            self.remove(stream);
        }
    }

    /// Forget stream `stream` whole.
    fn remove(&mut self, stream: &str) {
        if let Some(held) = self.streams.remove(stream) {
            self.content -= held.bytes;
            self.count -= held.events.len();
        }
        shrink_when_sparse_map(&mut self.streams);
    }

    /// Evict the oldest stream held (the one whose oldest event is the oldest); whether there
    /// was one.
    fn evict_oldest_stream(&mut self) -> bool {
        while let Some((stream, seq)) = self.order.pop_front() {
            if self.is_held(&stream, seq) {
                self.remove(&stream);
                return true;
            }
        }
        false
    }

    /// Drop the oldest event held; whether there was one.
    fn drop_oldest(&mut self) -> bool {
        while let Some((stream, seq)) = self.order.pop_front() {
            if self.is_held(&stream, seq) {
                self.drop_oldest_of(&stream);
                return true;
            }
        }
        false
    }

    /// Whether the queue's entry `(stream, seq)` names an event still held: the oldest of
    /// its stream (entries come up oldest first, so an older one is gone).
    fn is_held(&self, stream: &str, seq: u64) -> bool {
        self.streams.get(stream).is_some_and(|h| h.events.front().is_some_and(|e| e.seq == seq))
    }

    /// Shed the queue's entries of events no longer held, when they outnumber the held
    /// events (amortised: once per `count + 1024` appends at most), and give back its spare
    /// capacity.
    fn sweep_order(&mut self) {
        if self.order.len() > 2 * self.count + 1024 {
            let streams = &self.streams;
            self.order.retain(|(s, q)| {
                streams.get(s).is_some_and(|h| h.events.front().is_some_and(|e| e.seq <= *q))
            });
        }
        if self.order.is_empty() {
            self.order.shrink_to(0);
        }
    }
}

/// Give a ring back most of its capacity when it is mostly empty (at most 4x its length, and
/// nothing when empty), so that what a stream's old burst allocated does not stay held.
fn shrink_when_sparse(events: &mut VecDeque<StoredEvent>) {
    if events.len() * 4 <= events.capacity() && events.capacity() > 4 {
        events.shrink_to(events.len() * 2);
    }
}

/// The same for the table of streams.
fn shrink_when_sparse_map(streams: &mut HashMap<Arc<str>, Held>) {
    if streams.len() * 4 <= streams.capacity() && streams.capacity() > 16 {
        streams.shrink_to(streams.len() * 2);
    } else if streams.is_empty() {
        streams.shrink_to(0);
    }
}

impl Default for MemoryEventStore {
    fn default() -> Self {
        MemoryEventStore::new()
    }
}

impl MemoryEventStore {
    /// A store with the default bounds ([`DEFAULT_EVENTS_PER_STREAM`] events per stream,
    /// [`DEFAULT_EVENT_STORE_STREAMS`] streams, [`DEFAULT_EVENT_STORE_BYTES`] bytes in all).
    pub fn new() -> MemoryEventStore {
        MemoryEventStore::with_limits(DEFAULT_EVENTS_PER_STREAM, DEFAULT_EVENT_STORE_BYTES)
    }

    /// A store keeping at most `per_stream` events per stream and `max_bytes` bytes in all
    /// (everything it allocates counted: see [`MemoryEventStore`]), each bound at least 1,
    /// and [`DEFAULT_EVENT_STORE_STREAMS`] streams. A bound smaller than what one stream
    /// with one event takes (about 300 bytes) keeps nothing.
    pub fn with_limits(per_stream: usize, max_bytes: usize) -> MemoryEventStore {
        MemoryEventStore {
            inner: Mutex::new(Memory::default()),
            per_stream: per_stream.max(1),
            max_bytes: max_bytes.max(1),
            max_streams: DEFAULT_EVENT_STORE_STREAMS,
        }
    }

    /// Keep at most `streams` streams (at least 1): a new stream past that evicts the oldest
    /// whole.
    pub fn max_streams(mut self, streams: usize) -> MemoryEventStore {
        self.max_streams = streams.max(1);
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        lock(&self.inner)
    }

    /// How many events it holds now, and the bytes it holds for them (everything it
    /// allocates: see [`MemoryEventStore`]).
    pub fn held(&self) -> (usize, usize) {
        let memory = self.lock();
        (memory.count, memory.bytes())
    }

    /// How many streams it holds now.
    pub fn streams(&self) -> usize {
        self.lock().streams.len()
    }
}

impl EventStore for MemoryEventStore {
    fn append(&self, session: &str, stream: &str, event: StoredEvent) {
        let mut memory = self.lock();
        let memory = &mut *memory;
        if !memory.streams.contains_key(stream) {
            while memory.streams.len() >= self.max_streams && memory.evict_oldest_stream() {}
            let shared = match &memory.last_session {
                Some(last) if **last == *session => Arc::clone(last),
                _ => Arc::from(session),
            };
            memory.last_session = Some(Arc::clone(&shared));
            let held = Held {
                session: shared,
                events: VecDeque::new(),
                // A stream held anew (evicted, or forgotten when its events went) after it
                // sent events: a replay from before this one is refused as gone.
                dropped_through: event.seq.saturating_sub(1),
                bytes: ids_bytes(stream, session),
            };
            memory.content += held.bytes;
            memory.streams.insert(stream.into(), held);
        }
        let Some((key, held)) = memory.streams.get_key_value(stream) else { return };
        if *held.session != *session {
            // A stream id is random and names one session's stream; a clash is refused.
            return tracing::warn!(stream, "an event for a stream of another session was not stored");
        }
        let key = Arc::clone(key);
        let Some(held) = memory.streams.get_mut(stream) else { return };
        let seq = event.seq;
        let before = ring_bytes(&held.events);
        let text = text_bytes(&event);
        held.events.push_back(event);
        let grown = text + ring_bytes(&held.events) - before;
        held.bytes += grown;
        memory.content += grown;
        memory.count += 1;
        memory.order.push_back((key, seq));
        if memory.streams.get(stream).is_some_and(|h| h.events.len() > self.per_stream) {
            memory.drop_oldest_of(stream);
        }
        while memory.bytes() > self.max_bytes && memory.drop_oldest() {}
        memory.sweep_order();
    }

    fn replay<'a>(&'a self, session: &'a str, stream: &'a str, after: u64) -> Replay<'a> {
        let outcome = {
            let memory = self.lock();
            match memory.streams.get(stream).filter(|h| *h.session == *session) {
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
            let keep = *h.session != *session;
            if !keep {
                freed += h.bytes;
                events += h.events.len();
            }
            keep
        });
        memory.content -= freed;
        memory.count -= events;
        if memory.last_session.as_deref() == Some(session) {
            memory.last_session = None;
        }
        let streams = &memory.streams;
        memory.order.retain(|(s, _)| streams.contains_key(s));
        shrink_when_sparse_map(&mut memory.streams);
        memory.sweep_order();
        if memory.order.is_empty() {
            memory.order.shrink_to(0);
        }
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

    /// The store's bytes counted from scratch: what its incremental count must equal.
    fn recount(store: &MemoryEventStore) -> (usize, usize) {
        let memory = store.lock();
        let mut content = 0;
        let mut count = 0;
        for (id, held) in &memory.streams {
            let texts: usize = held.events.iter().map(text_bytes).sum();
            assert_eq!(held.bytes, ids_bytes(id, &held.session) + ring_bytes(&held.events) + texts, "{id}");
            content += held.bytes;
            count += held.events.len();
            assert!(!held.events.is_empty(), "an empty stream {id} is held");
        }
        assert_eq!((memory.count, memory.content), (count, content));
        (count, memory.bytes())
    }

    #[test]
    fn a_stream_keeps_its_last_events_and_says_when_the_client_fell_behind() {
        let store = MemoryEventStore::with_limits(3, usize::MAX);
        for seq in 1..=10 {
            store.append("a", "s", StoredEvent::new(seq, "x", false));
        }
        assert_eq!(store.held(), recount(&store));
        assert_eq!(store.held().0, 3);
        assert_eq!(seqs(&block(store.replay("a", "s", 7)).unwrap()), [8, 9, 10]);
        let gone = block(store.replay("a", "s", 6)).unwrap_err();
        assert_eq!(gone, ReplayError::Gone { stream: "s".into(), after: 6, oldest: 8 });
        assert_eq!(
            gone.to_string(),
            "the events of stream 's' after 6 are no longer held (the oldest held is 8)"
        );
    }

    #[test]
    fn what_is_counted_is_what_is_allocated_ids_rings_table_and_queue_included() {
        let store = MemoryEventStore::with_limits(1_000, usize::MAX);
        let session = "S".repeat(43);
        store.append(&session, "stream-one", StoredEvent::new(1, "x".repeat(100), false));
        let memory = store.lock();
        let one = memory.streams.values().next().unwrap();
        let slot = size_of::<(Arc<str>, Held)>() + 1;
        // The text (100 bytes: a 112-byte block), the ring (4 events of 40 bytes), the
        // stream's id (an Arc: 16 + 10) and its session's (16 + 43), the table (4 buckets) and
        // the queue (4 entries of 24 bytes), each as the allocator rounds it.
        assert_eq!(size_of::<StoredEvent>(), 40);
        assert_eq!(size_of::<Queued>(), 24);
        assert_eq!(one.bytes, 112 + 176 + 48 + 80);
        assert_eq!(memory.bytes(), one.bytes + chunk(4 * slot + 16) + chunk(4 * 24));
        drop(memory);
        // The old count (the text and 64 bytes) was a third of it.
        assert!(store.held().1 > 3 * (100 + 64), "{:?}", store.held());
    }

    #[test]
    fn the_total_bound_drops_the_oldest_events_of_any_stream_first() {
        // What the two events that fit take, held by themselves.
        let twin = MemoryEventStore::with_limits(1_000, usize::MAX);
        twin.append("a", "old", StoredEvent::new(2, "x".repeat(40), false));
        twin.append("a", "new", StoredEvent::new(1, "y".repeat(40), false));
        let two = twin.held().1;
        let store = MemoryEventStore::with_limits(1_000, two + 10);
        store.append("a", "old", StoredEvent::new(1, "x".repeat(40), false));
        store.append("a", "old", StoredEvent::new(2, "x".repeat(40), false));
        store.append("a", "new", StoredEvent::new(1, "y".repeat(40), false));
        // Three events do not fit: the oldest (old:1) went.
        assert_eq!(store.held(), (2, two));
        assert_eq!(store.held(), recount(&store));
        assert!(matches!(block(store.replay("a", "old", 0)), Err(ReplayError::Gone { oldest: 2, .. })));
        assert_eq!(seqs(&block(store.replay("a", "old", 1)).unwrap()), [2]);
        for seq in 2..=100 {
            store.append("a", "new", StoredEvent::new(seq, "y".repeat(40), false));
            assert!(store.held().1 <= two + 10, "{:?}", store.held());
        }
        assert_eq!(store.held(), recount(&store));
        // The old stream lost all its events and was forgotten.
        assert!(matches!(block(store.replay("a", "old", 1)), Err(ReplayError::UnknownStream { .. })));
        let memory = store.lock();
        assert!(memory.order.len() <= 2 * memory.count + 1025, "{}", memory.order.len());
    }

    #[test]
    fn streams_of_small_events_are_bounded_by_their_bookkeeping_too() {
        // A thousand streams of one priming event each (no text at all): the streams' ids,
        // rings and table slots are what fills the store.
        let cap = 64 * 1024;
        let store = MemoryEventStore::with_limits(1_000, cap);
        for n in 0..1_000 {
            store.append("a", &format!("stream-{n}"), StoredEvent::new(0, "", false));
            assert!(store.held().1 <= cap, "{:?}", store.held());
        }
        let (events, bytes) = store.held();
        assert_eq!((events, bytes), recount(&store));
        assert_eq!(store.streams(), events);
        // Each stream is counted at what it takes (about 300 bytes), not at 64.
        assert!((150..300).contains(&events), "{events} streams held in {bytes} bytes");
        // The newest are the ones kept.
        assert!(block(store.replay("a", "stream-999", 0)).is_ok());
        assert!(block(store.replay("a", "stream-0", 0)).is_err());
    }

    #[test]
    fn past_the_stream_bound_the_oldest_stream_goes_whole_and_a_resume_of_it_is_refused() {
        let store = MemoryEventStore::with_limits(1_000, usize::MAX).max_streams(3);
        for seq in 1..=3 {
            store.append("a", "s1", StoredEvent::new(seq, format!("one-{seq}"), false));
        }
        store.append("a", "s2", StoredEvent::new(1, "two", false));
        store.append("b", "s3", StoredEvent::new(1, "three", false));
        assert_eq!(store.streams(), 3);
        // A fourth stream: the oldest (s1, with all its events) is evicted.
        store.append("b", "s4", StoredEvent::new(1, "four", false));
        assert_eq!((store.streams(), store.held().0), (3, 3));
        assert_eq!(store.held(), recount(&store));
        // A client resuming it reads that no such stream is held (the transport's 404).
        let refused = block(store.replay("a", "s1", 2)).unwrap_err();
        assert_eq!(refused, ReplayError::UnknownStream { stream: "s1".into() });
        assert_eq!(refused.to_string(), "no stream 's1' is held for this session");
        for kept in ["s2", "s3", "s4"] {
            let session = if kept == "s2" { "a" } else { "b" };
            assert_eq!(block(store.replay(session, kept, 0)).unwrap().len(), 1, "{kept}");
        }
        // The stream goes on (its call, or its GET stream, sends again): it is held anew, s2
        // evicted for it, and a resume from before its new first event is told what is gone.
        store.append("a", "s1", StoredEvent::new(4, "one-4", false));
        assert_eq!(store.streams(), 3);
        assert!(block(store.replay("a", "s2", 0)).is_err());
        let gone = block(store.replay("a", "s1", 2)).unwrap_err();
        assert_eq!(gone, ReplayError::Gone { stream: "s1".into(), after: 2, oldest: 4 });
        assert_eq!(seqs(&block(store.replay("a", "s1", 3)).unwrap()), [4]);
    }

    #[test]
    fn a_stream_whose_burst_was_dropped_gives_its_ring_back() {
        let store = MemoryEventStore::with_limits(1_000, usize::MAX);
        for seq in 1..=1_000 {
            store.append("a", "burst", StoredEvent::new(seq, "x", false));
        }
        let full = store.held().1;
        // The bound falls on it: a store of the same events, then a small one to hold.
        let small = MemoryEventStore::with_limits(1_000, 8 * 1024);
        for seq in 1..=1_000 {
            small.append("a", "burst", StoredEvent::new(seq, "x", false));
            assert!(small.held().1 <= 8 * 1024, "{:?}", small.held());
        }
        assert_eq!(small.held(), recount(&small));
        let memory = small.lock();
        let ring = memory.streams["burst"].events.capacity();
        assert!(ring <= 4 * memory.count.max(1), "a ring of {ring} for {} events", memory.count);
        assert!(full > 32 * 1024, "{full}");
    }

    #[test]
    fn the_count_stays_exact_through_any_mix_of_appends_evictions_and_ends() {
        let mut seed: u64 = 0x5eed;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let store = MemoryEventStore::with_limits(7, 16 * 1024).max_streams(40);
        let mut seqs: HashMap<String, u64> = HashMap::new();
        for _ in 0..20_000 {
            let session = format!("session-{}", next(5));
            if next(200) == 0 {
                store.forget_session(&session);
                seqs.retain(|k, _| !k.starts_with(&format!("{session}/")));
            } else {
                let stream = format!("{session}/{}", next(60));
                let seq = seqs.entry(stream.clone()).or_default();
                *seq += 1;
                let text = "z".repeat(next(300) as usize);
                store.append(&session, &stream, StoredEvent::new(*seq, text, false));
            }
            let (count, bytes) = recount(&store);
            assert_eq!(store.held(), (count, bytes));
            assert!(bytes <= 16 * 1024, "{bytes}");
            assert!(store.streams() <= 40);
        }
        for n in 0..5 {
            store.forget_session(&format!("session-{n}"));
        }
        assert_eq!(store.held(), (0, 0));
    }

    #[test]
    fn a_session_that_ends_takes_its_streams_with_it() {
        let store = MemoryEventStore::new();
        store.append("a", "s", StoredEvent::new(1, "abc", false));
        store.append("b", "t", StoredEvent::new(1, "de", false));
        store.forget_session("a");
        assert_eq!(store.held().0, 1);
        assert_eq!(store.held(), recount(&store));
        assert!(block(store.replay("a", "s", 0)).is_err());
        assert_eq!(seqs(&block(store.replay("b", "t", 0)).unwrap()), [1]);
        store.forget_session("b");
        assert_eq!(store.held(), (0, 0), "nothing held, not even the table");
    }

    #[test]
    fn event_ids_parse_only_in_their_own_shape() {
        assert_eq!(EventId::parse("abc_-9:0"), Some(EventId::new("abc_-9", 0)));
        for bad in ["", ":", "abc:", ":5", "a b:1", "abc:-1", "abc:1.5", "abc:99999999999999999999999"] {
            assert_eq!(EventId::parse(bad), None, "{bad:?}");
        }
    }
}
