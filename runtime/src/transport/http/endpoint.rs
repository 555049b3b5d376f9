//! [`Endpoint`]: what every handler of `/mcp` serves from (the server, the config, the legacy
//! sessions, the event store), and the two steps each of them takes first: [`admit`] (who may
//! call) and, for a legacy request, [`find_session`].
//!
//! The parent module builds it once, with the router, and the handlers only read it: `post`,
//! `get`, `delete`, and the listener's `direct`. It lives in a module of its own so that they
//! import it from beside them, not from the parent that routes to them.

use std::sync::Arc;

use axum::response::Response;

use super::auth::authn;
use super::config::{Auth, HttpConfig};
use super::read::heads::Heads;
use super::read::params::ParamHeaders;
use super::session::roaming::{Refused, Roaming};
use super::session::sessions::Sessions;
use super::stream::channel::LiveStreams;
use super::stream::event_store::EventStore;
use super::stream::slot::StreamSlot;
use crate::principal::Principal;
use crate::server::{Exposure, Server, Session};

/// The MCP endpoint's path: the router's one route, and what the listener answers directly.
pub(super) const MCP_PATH: &str = "/mcp";

/// The MCP endpoint, shared by its handlers.
pub(crate) struct Endpoint {
    pub(super) server: Server,
    /// Who the callers are: the host named it when mounting.
    pub(super) exposure: Arc<Exposure>,
    pub(super) config: HttpConfig,
    pub(super) sessions: Sessions,
    /// Where legacy sessions' SSE events are kept for `Last-Event-ID`.
    pub(super) store: Arc<dyn EventStore>,
    /// The POST streams still running, by stream id, for a resume to follow.
    pub(super) live: Arc<LiveStreams>,
    /// The tools whose parameters are mirrored into `Mcp-Param-*` headers.
    pub(super) params: ParamHeaders,
    /// The shared session store, when sessions roam between replicas.
    pub(super) roaming: Option<Roaming>,
}

/// Session `sid` of `subject`'s: from this endpoint's table, or (sessions roaming) re-made
/// from the shared store.
pub(super) async fn find_session(
    endpoint: &Endpoint,
    sid: &str,
    subject: &str,
) -> Result<Option<(Session, Arc<StreamSlot>)>, Refused> {
    match &endpoint.roaming {
        None => Ok(endpoint.sessions.get(sid, subject)),
        Some(r) => r.find(&endpoint.sessions, &endpoint.server, sid, subject).await,
    }
}

/// Whether a request to `/mcp` may go on, and who it is from: the guard's Host and Origin
/// checks first, then the endpoint's authenticator; with none, the server's host. The refusal
/// is the whole answer.
pub(super) async fn admit(
    endpoint: &Endpoint,
    parts: &axum::http::request::Parts,
    heads: &Heads<'_>,
) -> Result<Arc<Principal>, Response> {
    if let Some(refused) = endpoint.config.guard.refusal(heads) {
        return Err(refused);
    }
    match &endpoint.config.auth {
        Auth::Bearer(token) => authn::bearer_token(token, heads.authorization.first),
        Auth::None => Ok(endpoint.server.host_principal()),
        Auth::Authenticator(auth) => authn::authenticate(&**auth, parts).await,
    }
}
