//! [`RedisEventStore`]: legacy sessions' SSE events in Redis, so that a client resumes a
//! stream with `Last-Event-ID` on any replica.
//!
//! Keys: `<prefix>:events:<session>:<stream>`, a list of the stream's events as JSON
//! (`{"seq":…,"data":"…","end":…}`), oldest first, trimmed to the last `per_stream`; and
//! `<prefix>:streams:<session>`, the set of a session's streams, for
//! [`forget_session`](EventStore::forget_session). Both expire `retention` after the last
//! event (so a store whose sessions vanished without a `DELETE` empties itself).
//!
//! [`append`](EventStore::append) does not wait for Redis: the event is queued (at most
//! [`WRITE_QUEUE`] of them; past that, new ones are dropped and logged) and a background
//! task writes the queue in order, many events per round trip. A replay on another replica
//! therefore sees the events whose write has landed: all but the last few milliseconds'.

use std::sync::OnceLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::transport::http::{EventStore, Replay, ReplayError, StoredEvent};

use super::connection::{Connection, RedisError};

/// The default number of events kept per stream: 1,000 (as the in-memory store).
pub const DEFAULT_REDIS_EVENTS_PER_STREAM: usize = 1_000;
/// The default time a stream's events are kept after its last one: 1 hour.
pub const DEFAULT_EVENT_RETENTION: Duration = Duration::from_secs(3600);
/// The most events waiting to be written: 10,000.
pub const WRITE_QUEUE: usize = 10_000;
/// The most writes sent in one round trip.
const BATCH: usize = 256;

/// An [`EventStore`] in Redis, for replicas to share (give each replica's
/// [`HttpConfig::event_store`](crate::http::HttpConfig::event_store) one made from the same
/// URL and prefix).
///
/// ```no_run
/// use std::sync::Arc;
/// use toolwire::http::{Auth, HttpConfig};
/// use toolwire::redis::RedisEventStore;
///
/// # async fn replica() -> Result<(), toolwire::redis::RedisError> {
/// let events = RedisEventStore::open("redis://127.0.0.1:6379/", "tools-prod")?;
/// let config = HttpConfig::new(Auth::None).event_store(Arc::new(events));
/// # let _ = config;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RedisEventStore {
    redis: Connection,
    per_stream: usize,
    retention: Duration,
    /// The writer's queue, made (and its task spawned) at the first write.
    queue: OnceLock<mpsc::Sender<Write>>,
}

#[derive(Debug)]
enum Write {
    Append { session: String, stream: String, event: String },
    Forget { session: String },
}

/// One event as Redis keeps it.
#[derive(Serialize, Deserialize)]
struct Kept<'a> {
    seq: u64,
    #[serde(borrow)]
    data: std::borrow::Cow<'a, str>,
    end: bool,
}

impl RedisEventStore {
    /// A store on the Redis at `url`, its keys under `prefix`, keeping the last
    /// [`DEFAULT_REDIS_EVENTS_PER_STREAM`] events of each stream for
    /// [`DEFAULT_EVENT_RETENTION`]. Connects lazily; must be called inside a tokio runtime.
    /// To share one connection with the other stores, make it from a
    /// [`Redis`](super::Redis) instead.
    pub fn open(url: &str, prefix: &str) -> Result<RedisEventStore, RedisError> {
        Ok(RedisEventStore::on(Connection::open(url, prefix)?))
    }

    /// A store on `redis`, with the default limits.
    pub(super) fn on(redis: Connection) -> RedisEventStore {
        RedisEventStore {
            redis,
            per_stream: DEFAULT_REDIS_EVENTS_PER_STREAM,
            retention: DEFAULT_EVENT_RETENTION,
            queue: OnceLock::new(),
        }
    }

    /// The same store keeping `per_stream` events per stream (at least 1) for `retention`
    /// after a stream's last event.
    pub fn with_limits(mut self, per_stream: usize, retention: Duration) -> RedisEventStore {
        self.per_stream = per_stream.max(1);
        self.retention = retention.max(Duration::from_millis(1));
        self
    }

    /// The same store, each command bounded by `timeout`.
    pub fn with_command_timeout(mut self, timeout: Duration) -> Result<RedisEventStore, RedisError> {
        self.redis = self.redis.with_timeout(timeout)?;
        Ok(self)
    }

    fn events_key(&self, session: &str, stream: &str) -> String {
        self.redis.key("events", &format!("{session}:{stream}"))
    }

    fn queue(&self, write: Write) {
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = mpsc::channel(WRITE_QUEUE);
            let writer =
                Writer { redis: self.redis.clone(), per_stream: self.per_stream, retention: self.retention };
            tokio::spawn(writer.run(rx));
            tx
        });
        if let Err(e) = queue.try_send(write) {
            tracing::warn!(error = %e, "an SSE event was not stored: the Redis write queue is full or closed");
        }
    }
}

/// The background task that writes queued events in order.
struct Writer {
    redis: Connection,
    per_stream: usize,
    retention: Duration,
}

impl Writer {
    async fn run(self, mut rx: mpsc::Receiver<Write>) {
        let mut batch = Vec::with_capacity(BATCH);
        while rx.recv_many(&mut batch, BATCH).await > 0 {
            let pipe = self.pipeline(&batch);
            if let Err(why) = self.redis.run_pipe::<()>(&pipe).await {
                tracing::warn!(why, writes = batch.len(), "SSE events could not be written to Redis");
            }
            batch.clear();
        }
    }

    fn pipeline(&self, batch: &[Write]) -> ::redis::Pipeline {
        let mut pipe = ::redis::pipe();
        let keep = millis(self.retention);
        for write in batch {
            match write {
                Write::Append { session, stream, event } => {
                    let key = self.redis.key("events", &format!("{session}:{stream}"));
                    let set = self.redis.key("streams", session);
                    let from = -i64::try_from(self.per_stream).unwrap_or(i64::MAX);
                    pipe.cmd("RPUSH").arg(&key).arg(event).ignore();
                    pipe.cmd("LTRIM").arg(&key).arg(from).arg(-1).ignore();
                    pipe.cmd("PEXPIRE").arg(&key).arg(keep).ignore();
                    pipe.cmd("SADD").arg(&set).arg(stream).ignore();
                    pipe.cmd("PEXPIRE").arg(&set).arg(keep).ignore();
                }
                Write::Forget { session } => {
                    // The set names the lists; a small script drops them and it in one step.
                    let set = self.redis.key("streams", session);
                    let prefix = self.redis.key("events", &format!("{session}:"));
                    pipe.cmd("EVAL").arg(FORGET).arg(1).arg(&set).arg(prefix).ignore();
                }
            }
        }
        pipe
    }
}

/// Drop every list the set `KEYS[1]` names (each `ARGV[1]..name`), then the set.
const FORGET: &str = "for _, s in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('DEL', ARGV[1] .. s) end redis.call('DEL', KEYS[1]) return 0";

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl EventStore for RedisEventStore {
    fn append(&self, session: &str, stream: &str, event: StoredEvent) {
        let kept = Kept { seq: event.seq, data: event.data.as_str().into(), end: event.ends_stream };
        let event = serde_json::to_string(&kept).expect("an event is a number, a string and a boolean");
        self.queue(Write::Append { session: session.to_owned(), stream: stream.to_owned(), event });
    }

    fn replay<'a>(&'a self, session: &'a str, stream: &'a str, after: u64) -> Replay<'a> {
        Box::pin(async move {
            let cmd = ::redis::cmd("LRANGE").arg(self.events_key(session, stream)).arg(0).arg(-1).clone();
            let held: Vec<String> = self.redis.run(&cmd).await.map_err(ReplayError::Unavailable)?;
            let mut events = Vec::with_capacity(held.len());
            for text in &held {
                let kept: Kept<'_> = serde_json::from_str(text)
                    .map_err(|e| ReplayError::Unavailable(format!("an event in Redis is unreadable: {e}")))?;
                events.push(StoredEvent::new(kept.seq, kept.data.into_owned(), kept.end));
            }
            let Some(oldest) = events.first().map(|e| e.seq) else {
                return Err(ReplayError::UnknownStream { stream: stream.to_owned() });
            };
            // A stream starts at 0 (its priming event) or 1: a first event past that means
            // older ones were trimmed, and the client must not skip them unawares.
            if oldest > 1 && after + 1 < oldest {
                return Err(ReplayError::Gone { stream: stream.to_owned(), after, oldest });
            }
            events.retain(|e| e.seq > after);
            Ok(events)
        })
    }

    fn forget_session(&self, session: &str) {
        self.queue(Write::Forget { session: session.to_owned() });
    }
}
