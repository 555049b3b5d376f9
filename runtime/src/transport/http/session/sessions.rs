//! Legacy-era HTTP sessions: `Mcp-Session-Id` → [`Session`], with an idle TTL and a cap.
//!
//! Ids are 32 bytes from the OS CSPRNG as base64url: visible ASCII, as the spec requires,
//! and unguessable, since an id is what lets a request into someone's session. Idle
//! sessions are swept when a new one is made and by a periodic task; a full table refuses
//! new sessions rather than evicting a live one. A session with its GET stream open is not
//! idle, and ending a session ends its stream and drops its events from the store.
//!
//! A session belongs to the principal whose `initialize` made it (its subject): a request
//! of another principal naming its id is answered as for an id that does not exist. With a
//! shared session store (module `session_store`), this table is a cache of the sessions
//! this replica serves: one swept here lives on in the store, its events kept, and a
//! session whose GET stream is open here reads its state from the store before a resource
//! update is sent on it, and before a list change while it is not known here to be
//! initialized ([`StoreRecheck`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::session_store::{STORE_CALL_TIMEOUT, SessionStore};
use crate::server::{Recheck, Reread, Server, Session, Settled};
use crate::sync::lock;
use crate::transport::http::stream::channel::Resumable;
use crate::transport::http::stream::event_store::EventStore;
use crate::transport::http::stream::slot::StreamSlot;

struct Entry {
    session: Session,
    last_seen: Instant,
    /// Its GET stream, and the session's notifier.
    stream: Arc<StreamSlot>,
    /// The subject of the principal that made it.
    subject: Arc<str>,
    /// What was last saved to the shared session store (`None`: nothing yet).
    saved: Option<Settled>,
    /// Whether dropping the entry ends the session (its events forgotten), or only lets
    /// this replica's copy go (a shared store keeps it for the others).
    ends_on_drop: bool,
}

impl Entry {
    fn busy(&self) -> bool {
        self.session.in_flight() > 0 || self.stream.is_open()
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.stream.close_with(self.ends_on_drop);
    }
}

/// The live sessions of one endpoint.
pub(crate) struct Sessions {
    table: Mutex<HashMap<String, Entry>>,
    idle_ttl: Duration,
    cap: usize,
    max_backlog: usize,
    store: Arc<dyn EventStore>,
    /// The shared session store that keeps the sessions, if any: a local entry is a copy.
    shared: Option<Arc<dyn SessionStore>>,
}

/// Why a session could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full {
    pub(crate) cap: usize,
}

impl Sessions {
    /// Sessions idle for at most `idle_ttl`, at most `cap` of them, each holding at most
    /// `max_backlog` bytes of notifications for its GET stream, their events kept in `store`;
    /// `shared`, the shared session store that keeps them too, if any.
    pub(crate) fn new(
        idle_ttl: Duration,
        cap: usize,
        max_backlog: usize,
        store: Arc<dyn EventStore>,
        shared: Option<Arc<dyn SessionStore>>,
    ) -> Sessions {
        Sessions { table: Mutex::new(HashMap::new()), idle_ttl, cap, max_backlog, store, shared }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        lock(&self.table)
    }

    /// A new session of `subject`'s, and its id.
    pub(crate) fn create(&self, server: &Server, subject: &str) -> Result<(String, Session), Full> {
        let id = crate::transport::http::auth::token::random_id(32);
        let session = server.session();
        self.insert(&id, session.clone(), subject, None)?;
        Ok((id, session))
    }

    /// Hold `session` (re-made from the shared store's state, `saved`) under `id` for
    /// `subject`; when another request re-made it first, that one is kept and returned.
    pub(crate) fn adopt(
        &self,
        id: &str,
        session: Session,
        subject: &str,
        saved: Settled,
    ) -> Result<(Session, Arc<StreamSlot>), Full> {
        self.insert(id, session, subject, Some(saved))
    }

    fn insert(
        &self,
        id: &str,
        session: Session,
        subject: &str,
        saved: Option<Settled>,
    ) -> Result<(Session, Arc<StreamSlot>), Full> {
        let now = Instant::now();
        let mut table = self.lock();
        if let Some(entry) = table.get_mut(id).filter(|e| &*e.subject == subject) {
            entry.last_seen = now;
            return Ok((entry.session.clone(), entry.stream.clone()));
        }
        sweep(&mut table, now, self.idle_ttl);
        if table.len() >= self.cap {
            return Err(Full { cap: self.cap });
        }
        let resumable = Resumable { store: self.store.clone(), session: id.into() };
        let stream = StreamSlot::new(self.max_backlog, resumable);
        session.set_id(id);
        session.set_notifier(stream.notifier());
        if let Some(store) = &self.shared {
            // The subscriptions come with the notifier: take the stored ones now.
            if let Some(saved) = &saved {
                session.apply_settled(saved);
            }
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                let recheck = StoreRecheck {
                    store: Arc::clone(store),
                    id: id.into(),
                    subject: subject.into(),
                    stream: Arc::downgrade(&stream),
                    runtime,
                };
                session.recheck_subscriptions(Arc::new(recheck));
            }
        }
        let entry = Entry {
            session: session.clone(),
            last_seen: now,
            stream: stream.clone(),
            subject: subject.into(),
            saved,
            ends_on_drop: self.shared.is_none(),
        };
        table.insert(id.to_owned(), entry);
        Ok((session, stream))
    }

    /// The session under `id` and its GET stream's slot, if it is live and `subject`'s;
    /// touching it resets its idle clock.
    pub(crate) fn get(&self, id: &str, subject: &str) -> Option<(Session, Arc<StreamSlot>)> {
        let now = Instant::now();
        let mut table = self.lock();
        let entry = table.get_mut(id)?;
        if now.duration_since(entry.last_seen) > self.idle_ttl && !entry.busy() {
            table.remove(id);
            return None;
        }
        if &*entry.subject != subject {
            return None;
        }
        entry.last_seen = now;
        Some((entry.session.clone(), entry.stream.clone()))
    }

    /// Whether a session is held under `id`, whoever's it is.
    pub(crate) fn holds(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    /// What of session `id` (of `subject`'s) changed since it was last saved to the shared
    /// store: its settled state now, or `None` when that is what was saved (or there is no
    /// such session, or no handshake yet).
    pub(crate) fn unsaved(&self, id: &str, subject: &str) -> Option<Settled> {
        let table = self.lock();
        let entry = table.get(id).filter(|e| &*e.subject == subject)?;
        let now = entry.session.settled()?;
        (entry.saved.as_ref() != Some(&now)).then_some(now)
    }

    /// Bring session `id` up to `settled`, what the shared store holds now, when that is not
    /// what this replica last saved or read (another replica changed it).
    pub(crate) fn refresh(&self, id: &str, settled: Settled) {
        let mut table = self.lock();
        let Some(entry) = table.get_mut(id) else { return };
        if entry.saved.as_ref() != Some(&settled) {
            entry.session.apply_settled(&settled);
            entry.saved = Some(settled);
        }
    }

    /// Record that `settled` is what the shared store holds for session `id`.
    pub(crate) fn mark_saved(&self, id: &str, settled: Settled) {
        if let Some(entry) = self.lock().get_mut(id) {
            entry.saved = Some(settled);
        }
    }

    /// End the session under `id` if it is `subject`'s; whether there was one.
    pub(crate) fn remove(&self, id: &str, subject: &str) -> bool {
        let mut table = self.lock();
        if table.get(id).is_none_or(|e| &*e.subject != subject) {
            return false;
        }
        let removed = table.remove(id);
        drop(table);
        match removed {
            Some(mut entry) => {
                entry.ends_on_drop = true;
                true
            }
            None => false,
        }
    }

    /// Let go of this replica's copy of session `id` (the shared store no longer holds it:
    /// another replica ended it, or it expired there); its events are forgotten.
    pub(crate) fn forget(&self, id: &str) {
        let removed = self.lock().remove(id);
        if let Some(mut entry) = removed {
            entry.ends_on_drop = true;
        }
    }

    /// Drop sessions idle past the TTL (a session with calls in flight is not idle).
    pub(crate) fn sweep(&self) {
        sweep(&mut self.lock(), Instant::now(), self.idle_ttl);
    }
}

fn sweep(table: &mut HashMap<String, Entry>, now: Instant, ttl: Duration) {
    table.retain(|_, e| now.duration_since(e.last_seen) <= ttl || e.busy());
}

/// A roaming session's state, read from the shared store before a notification is sent on
/// its GET stream: before each resource update (a `resources/subscribe` or unsubscribe
/// served by another replica after the stream opened here is in the store before it was
/// answered, so the read sees it), and before a list change while the session is not
/// initialized as far as this replica knows (its `notifications/initialized` may have
/// reached another replica after the GET here re-made it). Only while the stream is open
/// here: a copy whose stream is elsewhere (or closed) goes by what this replica last read,
/// and a GET that opens it here reads the store first anyway.
struct StoreRecheck {
    store: Arc<dyn SessionStore>,
    id: Arc<str>,
    subject: Arc<str>,
    stream: Weak<StreamSlot>,
    runtime: tokio::runtime::Handle,
}

impl Recheck for StoreRecheck {
    fn recheck(&self, then: Box<dyn FnOnce(Reread) + Send>) -> bool {
        if !self.stream.upgrade().is_some_and(|s| s.is_open()) {
            return false;
        }
        let (store, id, subject) = (Arc::clone(&self.store), Arc::clone(&self.id), Arc::clone(&self.subject));
        self.runtime.spawn(async move {
            let found = match tokio::time::timeout(STORE_CALL_TIMEOUT, store.load(&id)).await {
                Ok(Ok(Some(state))) if *state.subject == *subject => Reread::Now {
                    uris: state.subscriptions.into_iter().collect(),
                    initialized: state.initialized,
                },
                Ok(Ok(_)) => Reread::Gone,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "the session store failed to read a session's subscriptions; sent by the last ones read");
                    Reread::Unknown
                }
                Err(_) => {
                    tracing::warn!(timeout = ?STORE_CALL_TIMEOUT, "the session store did not read a session's subscriptions in time; sent by the last ones read");
                    Reread::Unknown
                }
            };
            then(found);
        });
        true
    }
}
