//! [`SessionStore`]: where a legacy session's settled state is kept so that any replica
//! sharing the store can serve it, and [`MemorySessionStore`], a store in this process.
//!
//! A legacy (2025-03-26 to 2025-11-25) session is made by `initialize` on one replica; a
//! load balancer may send its next request to another. That replica does not hold the
//! session in its own table, so it asks the store ([`HttpConfig::session_store`]): the
//! [`SessionState`] there (the negotiated version, the client's name, version and
//! capabilities, the log level, whether `notifications/initialized` arrived, and the
//! subject of the principal that made it) is enough to re-make the session here, and the
//! request is served as if it had landed on the first replica.
//!
//! Without a store (the default), nothing of this runs: the endpoint's own table is the
//! only place sessions live, and no request pays for a lookup. With one:
//!
//! - `initialize` saves the session's state before its answer goes out, and every request
//!   that changes it (`notifications/initialized`, `logging/setLevel`,
//!   `resources/subscribe`, `resources/unsubscribe`) saves it again before it is answered;
//! - every other request on a session this replica holds pays one [`touch`](SessionStore::touch),
//!   which restarts the idle TTL in the store and reads the state back: a session a
//!   `DELETE` on another replica ended is dropped here too (404), and one whose state
//!   another replica changed (a `logging/setLevel` or a `resources/subscribe` that landed
//!   there) is brought up to date before the request is served;
//! - a resource update (raised here or carried by the fan-out) that finds a session with its
//!   GET stream open on this replica [`load`](SessionStore::load)s the session's
//!   subscriptions first, so a `resources/subscribe` served by another replica after the
//!   stream opened here takes effect at once: one store read per such session and update,
//!   off the request path (see `toolwire::redis` for why it is read and not pushed);
//! - a list change (`notifications/tools/list_changed`, …) that finds a session with its
//!   GET stream open here but not initialized as far as this replica knows `load`s it too:
//!   the GET may have re-made the session here before its `notifications/initialized`
//!   reached another replica, and the change goes out once the store says it arrived (one
//!   read per such session and change, until one says so; none for a session known here to
//!   be initialized);
//! - a session id this replica does not hold is [`load`](SessionStore::load)ed, checked
//!   against the request's principal, and re-made;
//! - `DELETE` [`remove`](SessionStore::remove)s it.
//!
//! A store that cannot be reached is an error the client reads: 503, with the JSON-RPC
//! error text [`STORE_UNAVAILABLE`], never a hang (a networked store bounds every call by
//! a timeout) and never a session silently forgotten.
//!
//! [`HttpConfig::session_store`]: crate::http::HttpConfig::session_store

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::sync::lock;

/// The longest the transport waits for one store call, whatever the store's own timeouts:
/// 2 seconds.
pub(super) const STORE_CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// The message of the 503 a request gets when its session could not be read from or
/// written to the shared [`SessionStore`]: `service unavailable: the session store is
/// unavailable; try again`. (Why it was unavailable goes to the server's log.)
pub const STORE_UNAVAILABLE: &str = "service unavailable: the session store is unavailable; try again";

/// What a [`SessionStore`] call resolves to.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send + 'a>>;

/// Why a [`SessionStore`] call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionStoreError {
    /// The store could not be reached, or did not answer in time (a networked store is
    /// down): the request is refused with 503 and [`STORE_UNAVAILABLE`].
    #[error("the session store is unavailable: {0}")]
    Unavailable(String),
    /// The store holds something under the session's key that is not a session's state
    /// (written by another program, or by an incompatible version).
    #[error("the session store holds an unreadable state for this session: {0}")]
    Corrupt(String),
}

/// A legacy session's state as the handshake settled it: what another replica needs to
/// serve the session's next request.
///
/// Stores keep it as the JSON text [`SessionState::to_json`] writes and
/// [`SessionState::from_json`] reads, so a store need not know its fields.
///
/// ```
/// use toolwire::http::SessionState;
///
/// let text = r#"{"protocolVersion":"2025-11-25","clientName":"t","clientVersion":"1","capabilities":["sampling"],"logLevel":"debug","initialized":true,"subject":"alice"}"#;
/// let state = SessionState::from_json(text).unwrap();
/// assert_eq!((state.protocol_version.as_str(), state.subject.as_str()), ("2025-11-25", "alice"));
/// assert_eq!(SessionState::from_json(&state.to_json()).unwrap(), state);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionState {
    /// The negotiated protocol version (`2025-11-25`, say).
    pub protocol_version: String,
    /// The client's self-reported name (`clientInfo.name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// The client's self-reported version (`clientInfo.version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_version: Option<String>,
    /// What the client said it can be asked for: any of `elicitation.form`,
    /// `elicitation.url`, `sampling`, `roots`, `roots.listChanged`.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// The least severe log level the client wants (`logging/setLevel`), as the protocol
    /// writes it (`info`, `debug`, …).
    pub log_level: String,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
    /// The URIs the session sent `resources/subscribe` for (and did not unsubscribe), in
    /// order: whichever replica holds the session's GET stream reads them before it sends
    /// a `notifications/resources/updated`. Left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
    /// The subject of the principal whose `initialize` made the session: a request of
    /// another principal is answered as for a session that does not exist.
    pub subject: String,
}

impl SessionState {
    /// The state as JSON text (what a store keeps).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a session state is strings and booleans, which always serialise")
    }

    /// Read a state from the JSON text [`to_json`](Self::to_json) wrote.
    pub fn from_json(text: &str) -> Result<SessionState, SessionStoreError> {
        serde_json::from_str(text).map_err(|e| SessionStoreError::Corrupt(e.to_string()))
    }
}

/// Where legacy sessions' [`SessionState`]s are kept, for replicas to share.
///
/// Every call is bounded in time by the store (a networked one fails with
/// [`SessionStoreError::Unavailable`] rather than wait). The idle TTL is the endpoint's
/// ([`HttpConfig::session_idle_ttl`](crate::http::HttpConfig::session_idle_ttl)), handed to
/// [`save`](Self::save) and [`touch`](Self::touch): a session neither saved nor touched
/// for that long is gone from the store.
///
/// ```
/// use std::time::Duration;
/// use toolwire::http::{MemorySessionStore, SessionState, SessionStore};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let store = MemorySessionStore::new();
/// let state = SessionState::from_json(r#"{"protocolVersion":"2025-06-18","logLevel":"info","initialized":true,"subject":"host"}"#).unwrap();
/// let ttl = Duration::from_secs(60);
/// store.save("s1", &state, ttl).await.unwrap();
/// assert_eq!(store.load("s1").await.unwrap(), Some(state));
/// assert!(store.touch("s1", ttl).await.unwrap().is_some());
/// assert!(store.remove("s1").await.unwrap());
/// assert_eq!(store.touch("s1", ttl).await.unwrap(), None);
/// assert_eq!(store.load("s1").await.unwrap(), None);
/// # });
/// ```
pub trait SessionStore: Send + Sync + 'static {
    /// The state of session `id`, or `None` when the store holds none (it never existed,
    /// it ended, or it was idle past its TTL).
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>>;

    /// Keep `state` as session `id`'s, replacing what was there, for `idle_ttl`.
    fn save<'a>(&'a self, id: &'a str, state: &'a SessionState, idle_ttl: Duration) -> StoreFuture<'a, ()>;

    /// Restart session `id`'s idle TTL at `idle_ttl`, and read its state: `None` when the
    /// store no longer holds it. (One round trip for a networked store: Redis's `GETEX`.)
    fn touch<'a>(&'a self, id: &'a str, idle_ttl: Duration) -> StoreFuture<'a, Option<SessionState>>;

    /// Forget session `id`; whether the store held it.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;
}

/// A [`SessionStore`] in this process's memory: two endpoints of one process (two
/// routers, say) given the same one share their sessions. Each session expires its idle
/// TTL after it was last saved or touched; expired ones are swept as new ones are saved.
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    table: Mutex<HashMap<String, (SessionState, Instant)>>,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> MemorySessionStore {
        MemorySessionStore::default()
    }

    /// How many sessions it holds, expired ones included until they are swept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds no session.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (SessionState, Instant)>> {
        lock(&self.table)
    }
}

fn ready<'a, T: Send + 'a>(value: T) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}

impl SessionStore for MemorySessionStore {
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionState>> {
        let now = Instant::now();
        let mut table = self.lock();
        let state = match table.get(id) {
            Some((state, expires)) if *expires > now => Some(state.clone()),
            Some(_) => {
                table.remove(id);
                None
            }
            None => None,
        };
        ready(state)
    }

    fn save<'a>(&'a self, id: &'a str, state: &'a SessionState, idle_ttl: Duration) -> StoreFuture<'a, ()> {
        let now = Instant::now();
        let mut table = self.lock();
        table.retain(|_, (_, expires)| *expires > now);
        table.insert(id.to_owned(), (state.clone(), now + idle_ttl));
        ready(())
    }

    fn touch<'a>(&'a self, id: &'a str, idle_ttl: Duration) -> StoreFuture<'a, Option<SessionState>> {
        let now = Instant::now();
        let mut table = self.lock();
        let held = match table.get_mut(id) {
            Some((state, expires)) if *expires > now => {
                *expires = now + idle_ttl;
                Some(state.clone())
            }
            Some(_) => {
                table.remove(id);
                None
            }
            None => None,
        };
        ready(held)
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let held = self.lock().remove(id).is_some_and(|(_, expires)| expires > now);
        ready(held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    fn state(subject: &str) -> SessionState {
        SessionState {
            protocol_version: "2025-11-25".into(),
            client_name: Some("t".into()),
            client_version: None,
            capabilities: vec!["roots".into()],
            log_level: "warning".into(),
            initialized: false,
            subscriptions: Vec::new(),
            subject: subject.into(),
        }
    }

    #[test]
    fn a_session_expires_its_idle_ttl_after_the_last_save_or_touch() {
        let store = MemorySessionStore::new();
        let ttl = Duration::from_millis(60);
        block(store.save("a", &state("x"), ttl)).unwrap();
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(block(store.touch("a", ttl)).unwrap(), Some(state("x")));
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(block(store.load("a")).unwrap(), Some(state("x")), "the touch restarted its TTL");
        std::thread::sleep(Duration::from_millis(70));
        assert_eq!(block(store.load("a")).unwrap(), None);
        assert_eq!(block(store.touch("a", ttl)).unwrap(), None);
        assert!(!block(store.remove("a")).unwrap());
        assert!(store.is_empty());
    }

    #[test]
    fn a_state_reads_back_as_written_and_a_foreign_text_is_corrupt() {
        let text = state("alice").to_json();
        assert_eq!(
            text,
            r#"{"protocolVersion":"2025-11-25","clientName":"t","capabilities":["roots"],"logLevel":"warning","initialized":false,"subject":"alice"}"#
        );
        assert_eq!(SessionState::from_json(&text).unwrap(), state("alice"));
        let err = SessionState::from_json("[1]").unwrap_err();
        assert!(matches!(err, SessionStoreError::Corrupt(_)), "{err:?}");
        assert!(
            err.to_string().starts_with("the session store holds an unreadable state for this session: ")
        );
    }
}
