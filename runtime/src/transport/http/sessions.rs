//! Legacy-era HTTP sessions: `Mcp-Session-Id` → [`Session`], with an idle TTL and a cap.
//!
//! Ids are 32 bytes from the OS CSPRNG as base64url: visible ASCII, as the spec requires,
//! and unguessable, since an id is what lets a request into someone's session. Idle
//! sessions are swept when a new one is made and by a periodic task; a full table refuses
//! new sessions rather than evicting a live one.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::server::{Server, Session};

struct Entry {
    session: Session,
    last_seen: Instant,
}

/// The live sessions of one endpoint.
pub(crate) struct Sessions {
    table: Mutex<HashMap<String, Entry>>,
    idle_ttl: Duration,
    cap: usize,
}

/// Why a session could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    pub(crate) cap: usize,
}

impl Sessions {
    pub(crate) fn new(idle_ttl: Duration, cap: usize) -> Sessions {
        Sessions { table: Mutex::new(HashMap::new()), idle_ttl, cap }
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
        table.insert(id.clone(), Entry { session: session.clone(), last_seen: now });
        Ok((id, session))
    }

    /// The session under `id`, if it is live; touching it resets its idle clock.
    pub(crate) fn get(&self, id: &str) -> Option<Session> {
        let now = Instant::now();
        let mut table = self.lock();
        let entry = table.get_mut(id)?;
        if now.duration_since(entry.last_seen) > self.idle_ttl && entry.session.in_flight() == 0 {
            table.remove(id);
            return None;
        }
        entry.last_seen = now;
        Some(entry.session.clone())
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
    table.retain(|_, e| now.duration_since(e.last_seen) <= ttl || e.session.in_flight() > 0);
}
