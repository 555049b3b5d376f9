//! Legacy sessions that roam between replicas: this endpoint's table (`sessions`) in front
//! of a shared [`SessionStore`] (module `session_store` says when each call is made).
//!
//! Every store call is bounded by [`STORE_CALL_TIMEOUT`] on top of the store's own
//! timeouts, so a store that hangs is a 503 ([`STORE_UNAVAILABLE`]) and not a request that
//! never ends.

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::Response;

use super::session_store::{
    STORE_CALL_TIMEOUT, STORE_UNAVAILABLE, SessionState, SessionStore, SessionStoreError, StoreFuture,
};
use super::sessions::{Full, Sessions};
use crate::context::PeerInfo;
use crate::protocol::{ClientCapabilities, LoggingLevel, ProtocolVersion};
use crate::server::{Server, Session, Settled};
use crate::transport::http::response::error_response_with_id;
use crate::transport::http::stream::slot::StreamSlot;

/// The shared store an endpoint was given, and the idle TTL it keeps sessions for.
pub(crate) struct Roaming {
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) idle_ttl: Duration,
}

/// Why a roaming session could not be served.
pub(crate) enum Refused {
    /// The store could not be reached: 503.
    Unavailable,
    /// This replica's table is full: 503, as for a new session.
    Full(Full),
}

impl Refused {
    /// The answer, to the request whose id is `id` (JSON text).
    pub(crate) fn response(&self, id: Option<&str>) -> Response {
        let message = match self {
            Refused::Unavailable => STORE_UNAVAILABLE.to_owned(),
            Refused::Full(full) => {
                format!("service unavailable: {} sessions are open, the most this server keeps", full.cap)
            }
        };
        error_response_with_id(StatusCode::SERVICE_UNAVAILABLE, None, id, &message)
    }
}

async fn bounded<T>(what: &'static str, call: StoreFuture<'_, T>) -> Result<T, Refused> {
    match tokio::time::timeout(STORE_CALL_TIMEOUT, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the session store failed to {what}");
            Err(Refused::Unavailable)
        }
        Err(_) => {
            tracing::warn!(timeout = ?STORE_CALL_TIMEOUT, "the session store did not {what} in time");
            Err(Refused::Unavailable)
        }
    }
}

impl Roaming {
    /// Session `id` of `subject`'s, from this replica's table (its TTL restarted in the
    /// store, which also says it still exists) or re-made from the store; `None` when
    /// neither holds it for `subject`.
    pub(crate) async fn find(
        &self,
        sessions: &Sessions,
        server: &Server,
        id: &str,
        subject: &str,
    ) -> Result<Option<(Session, Arc<StreamSlot>)>, Refused> {
        if let Some(found) = sessions.get(id, subject) {
            let state = bounded("touch a session", self.store.touch(id, self.idle_ttl)).await?;
            match state.filter(|s| s.subject == subject).as_ref().and_then(settled_of) {
                // Another replica may have changed it (a `logging/setLevel` that landed there).
                Some(settled) => sessions.refresh(id, settled),
                // Ended elsewhere (DELETE on another replica), or expired in the store.
                None => {
                    sessions.forget(id);
                    return Ok(None);
                }
            }
            return Ok(Some(found));
        }
        if sessions.holds(id) {
            // Another principal's session: as if it did not exist, and no store call.
            return Ok(None);
        }
        let state = match tokio::time::timeout(STORE_CALL_TIMEOUT, self.store.load(id)).await {
            Ok(Ok(state)) => state,
            Ok(Err(SessionStoreError::Corrupt(why))) => {
                tracing::warn!(why, "a session's state in the store is unreadable; answered as unknown");
                None
            }
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the session store failed to load a session");
                return Err(Refused::Unavailable);
            }
            Err(_) => {
                tracing::warn!(timeout = ?STORE_CALL_TIMEOUT, "the session store did not load a session in time");
                return Err(Refused::Unavailable);
            }
        };
        let Some(state) = state.filter(|s| s.subject == subject) else { return Ok(None) };
        let Some(settled) = settled_of(&state) else {
            tracing::warn!(version = state.protocol_version, "a stored session names no version served here");
            return Ok(None);
        };
        let session = server.restore_session(settled.clone());
        sessions.adopt(id, session, subject, settled).map(Some).map_err(Refused::Full)
    }

    /// Save session `id`'s state when a request changed it (`initialize`,
    /// `notifications/initialized`, `logging/setLevel`, `resources/subscribe`,
    /// `resources/unsubscribe`).
    pub(crate) async fn save_changes(
        &self,
        sessions: &Sessions,
        id: &str,
        subject: &str,
    ) -> Result<(), Refused> {
        let Some(settled) = sessions.unsaved(id, subject) else { return Ok(()) };
        let state = state_of(&settled, subject);
        bounded("save a session", self.store.save(id, &state, self.idle_ttl)).await?;
        sessions.mark_saved(id, settled);
        Ok(())
    }

    /// End session `id` of `subject`'s here and in the store; whether either held it.
    pub(crate) async fn end(&self, sessions: &Sessions, id: &str, subject: &str) -> Result<bool, Refused> {
        if sessions.remove(id, subject) {
            bounded("remove a session", self.store.remove(id)).await?;
            return Ok(true);
        }
        if sessions.holds(id) {
            return Ok(false);
        }
        let state = bounded("load a session", self.store.load(id)).await?;
        if state.is_none_or(|s| s.subject != subject) {
            return Ok(false);
        }
        bounded("remove a session", self.store.remove(id)).await
    }
}

/// The capability names a [`SessionState`] lists, with their flags.
fn capability_flags(c: &ClientCapabilities) -> [(&'static str, bool); 5] {
    [
        ("elicitation.form", c.elicitation_form),
        ("elicitation.url", c.elicitation_url),
        ("sampling", c.sampling),
        ("roots", c.roots),
        ("roots.listChanged", c.roots_list_changed),
    ]
}

/// What the store keeps of `settled`, made by `subject`.
fn state_of(settled: &Settled, subject: &str) -> SessionState {
    let capabilities =
        capability_flags(&settled.capabilities).into_iter().filter(|(_, on)| *on).map(|(n, _)| n.to_owned());
    SessionState {
        protocol_version: settled.version.as_str().to_owned(),
        client_name: settled.client.name.clone(),
        client_version: settled.client.version.clone(),
        capabilities: capabilities.collect(),
        log_level: settled.level.as_str().to_owned(),
        initialized: settled.initialized,
        subscriptions: settled.subscriptions.iter().cloned().collect(),
        subject: subject.to_owned(),
    }
}

/// A session's settled state from the store's; `None` for a version not served here.
/// Unknown capability names and levels are ignored (the default level is kept).
fn settled_of(state: &SessionState) -> Option<Settled> {
    let version = ProtocolVersion::parse(&state.protocol_version)?;
    let has = |name: &str| state.capabilities.iter().any(|c| c == name);
    // Field by field: the type is `#[non_exhaustive]` (and from `toolwire-protocol`).
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation_form = has("elicitation.form");
    capabilities.elicitation_url = has("elicitation.url");
    capabilities.sampling = has("sampling");
    capabilities.roots = has("roots");
    capabilities.roots_list_changed = has("roots.listChanged");
    let level = (0..=u8::MAX)
        .map_while(LoggingLevel::from_index)
        .find(|l| l.as_str() == state.log_level)
        .unwrap_or(LoggingLevel::Info);
    let client = PeerInfo {
        name: state.client_name.clone(),
        version: state.client_version.clone(),
        protocol_version: Some(version.as_str().to_owned()),
    };
    let subscriptions = state.subscriptions.iter().cloned().collect();
    Some(Settled { version, client, capabilities, level, initialized: state.initialized, subscriptions })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settled_state_round_trips_through_the_stored_one() {
        let settled = Settled {
            version: ProtocolVersion::parse("2025-06-18").unwrap(),
            client: PeerInfo {
                name: Some("py".into()),
                version: Some("2.3.0".into()),
                protocol_version: Some("2025-06-18".into()),
            },
            capabilities: {
                let mut c = ClientCapabilities::default();
                (c.sampling, c.roots) = (true, true);
                c
            },
            level: LoggingLevel::Debug,
            initialized: true,
            subscriptions: ["test://b".to_owned(), "test://a".to_owned()].into(),
        };
        let state = state_of(&settled, "alice");
        assert_eq!(state.capabilities, ["sampling", "roots"]);
        assert_eq!(state.subscriptions, ["test://a", "test://b"]);
        assert_eq!((state.log_level.as_str(), state.subject.as_str()), ("debug", "alice"));
        assert_eq!(settled_of(&state), Some(settled));
        let unknown = SessionState { protocol_version: "1999-01-01".into(), ..state };
        assert_eq!(settled_of(&unknown), None);
    }
}
