//! Legacy-era HTTP sessions: `Mcp-Session-Id` → [`Session`], with an idle TTL and a cap.
//!
//! Ids are 32 bytes from the OS CSPRNG as base64url: visible ASCII, as the spec requires,
//! and unguessable, since an id is what lets a request into someone's session. Idle
//! sessions are swept when a new one is made and by a periodic task; a full table refuses
//! new sessions rather than evicting a live one. A session with its GET stream open is not
//! idle, and ending a session ends its stream and drops its events from the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::channel::Resumable;
use super::event_store::EventStore;
use super::stream::StreamSlot;
use crate::server::{Server, Session};

struct Entry {
    session: Session,
    last_seen: Instant,
    /// Its GET stream, and the session's notifier.
    stream: Arc<StreamSlot>,
}

impl Entry {
    fn busy(&self) -> bool {
        self.session.in_flight() > 0 || self.stream.is_open()
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.stream.close();
    }
}

/// The live sessions of one endpoint.
pub(crate) struct Sessions {
    table: Mutex<HashMap<String, Entry>>,
    idle_ttl: Duration,
    cap: usize,
    max_backlog: usize,
    store: Arc<dyn EventStore>,
}

/// Why a session could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    pub(crate) cap: usize,
}

impl Sessions {
    /// Sessions idle for at most `idle_ttl`, at most `cap` of them, each holding at most
    /// `max_backlog` bytes of notifications for its GET stream, their events kept in `store`.
    pub(crate) fn new(
        idle_ttl: Duration,
        cap: usize,
        max_backlog: usize,
        store: Arc<dyn EventStore>,
    ) -> Sessions {
        Sessions { table: Mutex::new(HashMap::new()), idle_ttl, cap, max_backlog, store }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new session and its id.
    pub(crate) fn create(&self, server: &Server) -> Result<(String, Session), Full> {
        let now = Instant::now();
        let mut table = self.lock();
        sweep(&mut table, now, self.idle_ttl);
        if table.len() >= self.cap {
            return Err(Full { cap: self.cap });
        }
        let id = super::auth::random_id(32);
        let session = server.session();
        let resumable = Resumable { store: self.store.clone(), session: id.as_str().into() };
        let stream = StreamSlot::new(self.max_backlog, resumable);
        session.set_notifier(stream.notifier());
        table.insert(id.clone(), Entry { session: session.clone(), last_seen: now, stream });
        Ok((id, session))
    }

    /// The session under `id` and its GET stream's slot, if it is live; touching it resets
    /// its idle clock.
    pub(crate) fn get(&self, id: &str) -> Option<(Session, Arc<StreamSlot>)> {
        self.touch(id)
    }

    /// The GET stream's slot of the session under `id`, if it is live; touching it resets
    /// its idle clock.
    pub(crate) fn stream(&self, id: &str) -> Option<Arc<StreamSlot>> {
        self.touch(id).map(|e| e.1)
    }

    fn touch(&self, id: &str) -> Option<(Session, Arc<StreamSlot>)> {
        let now = Instant::now();
        let mut table = self.lock();
        let entry = table.get_mut(id)?;
        if now.duration_since(entry.last_seen) > self.idle_ttl && !entry.busy() {
            table.remove(id);
            return None;
        }
        entry.last_seen = now;
        Some((entry.session.clone(), entry.stream.clone()))
    }

    /// End the session under `id`; whether there was one.
    pub(crate) fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Drop sessions idle past the TTL (a session with calls in flight is not idle).
    pub(crate) fn sweep(&self) {
        sweep(&mut self.lock(), Instant::now(), self.idle_ttl);
    }
}

fn sweep(table: &mut HashMap<String, Entry>, now: Instant, ttl: Duration) {
    table.retain(|_, e| now.duration_since(e.last_seen) <= ttl || e.busy());
}
