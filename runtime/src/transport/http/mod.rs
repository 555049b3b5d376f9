//! Streamable HTTP at `/mcp`, on axum: framing, sessions and who may call; no tool logic.
//!
//! | request | answer |
//! | --- | --- |
//! | any path but `/mcp` | 404 |
//! | a repeated `Host` or `Origin` | 400, before anything else |
//! | a bad `Host`, a foreign `Origin` | 403, before anything else |
//! | no or a wrong bearer token | 401 with `WWW-Authenticate: Bearer` (under a [`ResourceServer`]: naming its metadata and scopes; an invalid token says `error="invalid_token"`) |
//! | a resource server's token without a required scope | 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` |
//! | GET `/.well-known/oauth-protected-resource` (and `…/mcp`), under a [`ResourceServer`] | 200, its RFC 9728 metadata |
//! | POST whose `Accept` does not name both `application/json` and `text/event-stream` | 406 |
//! | POST that is not `application/json` | 415 |
//! | a body over the limit | 413, `Connection: close`; at once when `Content-Length` says so |
//! | any request answered with its body unread (refused from its headers, a GET, a DELETE) | the body read and thrown away first (within `max_body`, 5 s) and the connection kept; else `Connection: close` (module `inbound`) |
//! | a body that fails to arrive (cut short, bad chunking; both `Content-Length` and `Transfer-Encoding`, where toolwire serves the listener) | 400, naming what was wrong |
//! | an empty or whitespace-only body | 400, -32700 |
//! | an unsupported `MCP-Protocol-Version` | 400, -32022 with `data.supported` and `data.requested` |
//! | a request over its principal's rate limit ([`RateLimit`](crate::server::RateLimit)) | 429 with `Retry-After`, -32029 |
//! | POST of a notification or a response | 202, no body |
//! | POST of a request | 200: JSON, or SSE when progress must stream before the result |
//! | legacy: `initialize` | a new session, its id in `Mcp-Session-Id` |
//! | legacy: no `Mcp-Session-Id` | 400; an unknown or ended one: 404 (a modern request's is ignored) |
//! | legacy: the `Mcp-Session-Id` of another principal's session | 404, the same body as for an unknown one |
//! | legacy, with a shared [`SessionStore`] that cannot be reached | 503, [`STORE_UNAVAILABLE`] |
//! | modern (2026-07-28): `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` missing or not matching the body | 400, -32020 |
//! | modern: `_meta` without its protocol version or client capabilities | 400, -32602 |
//! | modern: an unknown method, and `initialize` and `ping` (gone from 2026-07-28) | 404, -32601 |
//! | modern: the client closes the connection before the answer is complete | the request is cancelled |
//! | legacy GET with `Accept: text/event-stream` and a live `Mcp-Session-Id` | 200, the session's GET stream (SSE): its `notifications/resources/updated` and `notifications/*/list_changed`, and what a call sends after its own answer ended (module `stream`) |
//! | legacy GET with `Last-Event-ID` (an id from one of the session's SSE streams) | 200, that stream resumed: the events after it from the [`EventStore`], then the stream live (module `channel`) |
//! | legacy GET whose `Last-Event-ID` is not an id this server writes | 400 |
//! | legacy GET whose `Last-Event-ID` names no stream of the session (never, another session's, or dropped whole) | 404 |
//! | legacy GET whose `Last-Event-ID` is older than what the store still holds of its stream | 410: resuming would skip events |
//! | legacy GET: no `Mcp-Session-Id`; an unknown or ended one | 400; 404, with a POST's words |
//! | legacy GET whose `Accept` does not name `text/event-stream` | 406 |
//! | legacy GET while the session's stream is open | 409: one GET stream per session |
//! | GET in the modern era (`MCP-Protocol-Version: 2026-07-28`), or in stateless mode | 405: no session to stream for |
//! | DELETE with a session id | ends the session (204); unknown: 404 |
//!
//! An error the transport answers itself carries the request's id once the body has been
//! read far enough to know it (the guard's refusals come before that, and carry none).
//!
//! The router is axum's: `post`, `get`, `delete` and a fallback for the 405 on `/mcp`. Each
//! of them first calls `admit`: the guard (`guard`), then the authenticator (`authn`). They
//! are calls, not axum middleware, because a `from_fn` layer boxes its future and clones the
//! route's service for every request (20 of the 64 allocations a stateless call made,
//! bench/findings.md). On toolwire's own listener ([`serve`])
//! a `POST /mcp` does not pass through the router at all: the listener calls `post` itself
//! (`direct`), answering as the router would, about 9% fewer instructions a stateless call.
//! The files:
//!
//! - `auth`: [`BearerToken`] and the random ids; `guard`: Host, Origin; `authn`: who is
//!   calling ([`Authenticate`], [`ResourceServer`]), whose [`Principal`](crate::principal::Principal)
//!   the engine hands each tool;
//! - `config`: [`HttpConfig`]; `response`: the error bodies and statuses the transport writes;
//! - `peek`, `params`: what routing reads from a body and from `Mcp-Param-*` headers; `inbound`:
//!   what a POST must be before it is routed (media types, the body, the era's headers),
//!   and what becomes of a body a request is answered without (read and discarded, bounded);
//!   `names`: the MCP header names, made once; `heads`: the headers a request is read by,
//!   found in one pass;
//! - `post`: a POST's way from its body to its answer;
//! - `sessions`: legacy sessions; `outbox`, `sse`: one POST's answer, bounded, and its SSE;
//!   `stream`: a legacy session's GET stream; `event_store`: [`EventStore`], where a legacy
//!   session's events wait for a `Last-Event-ID`; `channel`: a resumable stream's sending end;
//!   `session_store`: [`SessionStore`], where replicas share legacy sessions; `roaming`: the
//!   table in front of it (a session this replica does not hold is re-made from the store);
//! - `listen`: [`serve`], the accept loop with timeouts and a connection cap (the spec's
//!   and the `--http` main's listener too)
//!   (`woken`: the connection's rarely-ready branches, polled only when they wake;
//!   `head_scan`: whether a request head names both `Content-Length` and
//!   `Transfer-Encoding`, read from the socket's bytes; `direct`: its `POST /mcp`
//!   answered without the router);
//!   `drain`: `/healthz`, `/readyz` and stopping a replica without losing a request ([`Drain`]).
//!
//! Modern requests are stateless: each is served on a fresh engine session, so two clients
//! using the same request id at once never meet.
//!
//! Legacy sessions have an idle TTL and a cap. In stateless mode (for replicas behind a
//! load balancer) no session ids are issued: each legacy request is served by a fresh
//! session, brought up with the version its `MCP-Protocol-Version` header names.

mod auth;
mod authn;
mod channel;
mod config;
mod direct;
mod drain;
mod event_store;
mod guard;
pub(crate) mod head_scan;
mod heads;
mod inbound;
#[cfg(feature = "oauth")]
mod jwks;
mod listen;
mod names;
mod outbox;
mod params;
pub(crate) mod peek;
mod post;
mod response;
mod roaming;
mod session_store;
mod sessions;
mod sse;
mod stream;
mod woken;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::protocol::{Era, ProtocolVersion};
use crate::server::{Exposure, Server, Session};

/// axum's router, which [`mcp_router`] returns: named here so that mounting the endpoint in
/// an app of one's own needs no `axum` in one's `Cargo.toml`.
pub use axum::Router;

pub use auth::BearerToken;
pub(crate) use auth::random_id;
pub use authn::{Authenticate, BoxFuture, Refusal, ResourceServer, VerifyToken};
pub use config::{
    Auth, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SSE_BACKLOG, DEFAULT_SESSION_IDLE_TTL, HttpConfig,
};
use direct::Direct;
pub use drain::{DEFAULT_DRAIN_GRACE, Drain, ReadyCheck};
pub use event_store::{
    DEFAULT_EVENT_STORE_BYTES, DEFAULT_EVENT_STORE_STREAMS, DEFAULT_EVENTS_PER_STREAM, EventId, EventStore,
    MemoryEventStore, Replay, ReplayError, StoredEvent,
};
use heads::Heads;
/// A JWT signing algorithm, as [`JwksVerifier::algorithms`] takes it (`jsonwebtoken`'s,
/// named here so that a server needs no `jsonwebtoken` of its own).
#[cfg(feature = "oauth")]
pub use jsonwebtoken::Algorithm;
#[cfg(feature = "oauth")]
pub use jwks::{DEFAULT_JWKS_REFRESH, DEFAULT_MIN_REFETCH, DEFAULT_TOKEN_TYPES, JwksError, JwksVerifier};
pub(crate) use listen::accept;
pub use listen::serve;
use names::LAST_EVENT_ID;
use params::ParamHeaders;
use post::post;
use response::error_response;
pub use session_store::{
    MemorySessionStore, STORE_UNAVAILABLE, SessionState, SessionStore, SessionStoreError, StoreFuture,
};
use sessions::Sessions;

/// The MCP endpoint's path: the router's one route, and what the listener answers directly.
const MCP_PATH: &str = "/mcp";

/// Legacy methods a modern-era request gets 404 and -32601 for, before the engine sees it.
const REMOVED_IN_MODERN: [&str; 2] = ["initialize", "ping"];

/// JSON-RPC code for a request whose `Mcp-Method`/`Mcp-Name` headers do not match its body.
pub const HEADER_MISMATCH: i64 = -32020;

struct Endpoint {
    server: Server,
    /// Who the callers are: the server's exposure.
    exposure: Arc<Exposure>,
    config: HttpConfig,
    sessions: Sessions,
    /// Where legacy sessions' SSE events are kept for `Last-Event-ID`.
    store: Arc<dyn EventStore>,
    /// The POST streams still running, by stream id, for a resume to follow.
    live: Arc<channel::LiveStreams>,
    /// The tools whose parameters are mirrored into `Mcp-Param-*` headers.
    params: ParamHeaders,
    /// The shared session store, when sessions roam between replicas.
    roaming: Option<roaming::Roaming>,
}

/// The MCP endpoint as an axum [`Router`]: `/mcp` and nothing else (and, under a
/// [`ResourceServer`], its metadata; with a [`Drain`], `/healthz` and `/readyz`). Mount it
/// into an existing app with `Router::merge`; to serve it on its own, [`serve`] is
/// toolwire's own listener (timeouts, a connection cap, and a quicker `POST /mcp`).
///
/// Who the callers are is the server's [`exposure`](crate::server::ServerBuilder::exposure),
/// said once on its builder.
///
/// ```
/// use toolwire::http::{Auth, HttpConfig, Router, mcp_router};
/// use toolwire::{Server, ServerOptions, tool, tools};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let server = Server::new(tools![hello].unwrap(), ServerOptions::new("demo", "0.1.0"));
/// let app: Router = mcp_router(server, HttpConfig::new(Auth::None).stateless(true));
/// # let _ = app;
/// ```
pub fn mcp_router(server: Server, config: HttpConfig) -> Router {
    endpoint(server, config).0
}

/// The MCP endpoint as toolwire's own listener serves it ([`serve`]):
/// [`mcp_router`]'s router, with `POST /mcp` answered without it (module `direct`).
pub(crate) fn mcp_service(server: Server, config: HttpConfig) -> Direct {
    let (router, endpoint) = endpoint(server, config);
    Direct::new(router, endpoint)
}

/// The endpoint, and its router.
fn endpoint(server: Server, config: HttpConfig) -> (Router, Arc<Endpoint>) {
    let store: Arc<dyn EventStore> = match &config.event_store {
        Some(handle) => handle.0.clone(),
        None => Arc::new(MemoryEventStore::new()),
    };
    let roaming = config
        .session_store
        .as_ref()
        .map(|h| roaming::Roaming { store: h.0.clone(), idle_ttl: config.session_idle_ttl });
    let (ttl, shared) = (config.session_idle_ttl, roaming.as_ref().map(|r| Arc::clone(&r.store)));
    let sessions = Sessions::new(ttl, config.max_sessions, config.max_sse_backlog, store.clone(), shared);
    let params = ParamHeaders::of(&server.registry());
    let live = Arc::default();
    let exposure = server.exposure();
    let endpoint = Arc::new(Endpoint { server, exposure, config, sessions, store, live, params, roaming });
    let sweeper = Arc::downgrade(&endpoint);
    let period = endpoint.config.session_idle_ttl.max(Duration::from_secs(1));
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        // Idle sessions go even when no new one is made; the task ends with the endpoint.
        handle.spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                match sweeper.upgrade() {
                    Some(e) => e.sessions.sweep(),
                    None => break,
                }
            }
        });
    }
    let auth = endpoint.config.auth.clone();
    // Every handler of `/mcp`, its method fallback too, calls `admit` first; the 404 does not.
    let mcp =
        axum::routing::post(post::<axum::body::Body>).get(get).delete(delete).fallback(method_not_allowed);
    let mut router = Router::new().route(MCP_PATH, mcp);
    if let Auth::Authenticator(a) = &auth
        && let Some(rs) = a.resource_server()
    {
        let json: Arc<str> = rs.metadata_json().into();
        for path in rs.metadata_paths() {
            let json = Arc::clone(&json);
            router = router
                .route(&path, axum::routing::get(move || async move { authn::metadata_response(&json) }));
        }
    }
    let drain = endpoint.config.drain.clone();
    let router = router.fallback(not_found).with_state(Arc::clone(&endpoint));
    let router = match drain {
        Some(drain) => {
            // A 2026-07-28 listen never ends by itself: the drain ends it gracefully.
            let server = endpoint.server.clone();
            drain.on_begin(move || server.end_listens());
            // A replica that keeps its sessions in a shared store is ready only while it can
            // reach it: `/readyz` checks the store by itself.
            let store = endpoint.roaming.as_ref().map(|r| Arc::clone(&r.store));
            drain::wrap(router, &drain, endpoint.config.max_body, store)
        }
        None => router,
    };
    (router, endpoint)
}

/// 404 for any path but `/mcp` (and the metadata's and the drain's probes).
async fn not_found(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let answer = error_response(StatusCode::NOT_FOUND, None, "not found: the MCP endpoint is /mcp");
    inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
}

/// 405 for anything but POST, GET and DELETE (once the request is admitted).
async fn method_not_allowed(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let answer = not_allowed(&endpoint, &parts).await;
    inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
}

async fn not_allowed(endpoint: &Endpoint, parts: &axum::http::request::Parts) -> Response {
    if let Err(refused) = admit(endpoint, parts, &Heads::of(&parts.headers)).await {
        return refused;
    }
    let mut response = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        "method not allowed: this endpoint takes POST (GET for a legacy session's stream, DELETE to end it)",
    );
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, GET, DELETE"));
    response
}

/// Session `sid` of `subject`'s: from this endpoint's table, or (sessions roaming) re-made
/// from the shared store.
async fn find_session(
    endpoint: &Endpoint,
    sid: &str,
    subject: &str,
) -> Result<Option<(Session, Arc<stream::StreamSlot>)>, roaming::Refused> {
    match &endpoint.roaming {
        None => Ok(endpoint.sessions.get(sid, subject)),
        Some(r) => r.find(&endpoint.sessions, &endpoint.server, sid, subject).await,
    }
}

/// Whether a request to `/mcp` may go on, and who it is from: the guard's Host and Origin
/// checks first, then the endpoint's authenticator; with none, the server's host. The refusal
/// is the whole answer.
async fn admit(
    endpoint: &Endpoint,
    parts: &axum::http::request::Parts,
    heads: &Heads<'_>,
) -> Result<Arc<crate::principal::Principal>, Response> {
    if let Some(refused) = endpoint.config.guard.refusal(heads) {
        return Err(refused);
    }
    match &endpoint.config.auth {
        Auth::Bearer(token) => authn::bearer_token(token, heads.authorization.first),
        Auth::None => Ok(endpoint.server.host_principal()),
        Auth::Authenticator(auth) => authn::authenticate(&**auth, parts).await,
    }
}

/// GET: open a legacy session's stream (module `stream`).
async fn get(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let answer = open_stream(&endpoint, &parts).await;
    inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
}

/// The answer to a GET: the session's stream, or why not.
async fn open_stream(endpoint: &Endpoint, parts: &axum::http::request::Parts) -> Response {
    let heads = Heads::of(&parts.headers);
    let principal = match admit(endpoint, parts, &heads).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let modern = heads
        .protocol_version
        .text()
        .and_then(ProtocolVersion::parse)
        .is_some_and(|v| v.era() == Era::Modern);
    if modern || endpoint.config.stateless {
        let mut response = error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            None,
            if modern {
                "method not allowed: 2026-07-28 has no GET stream; send subscriptions/listen"
            } else {
                "method not allowed: a stateless server keeps no sessions, so it has no GET stream"
            },
        );
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        return response;
    }
    let takes_sse = parts.headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).any(|v| {
        v.split(',')
            .any(|item| item.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("text/event-stream"))
    });
    if !takes_sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            "not acceptable: a GET stream is server-sent events; the Accept header must name text/event-stream",
        );
    }
    let Some(sid) = heads.session_id() else {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            "bad request: missing Mcp-Session-Id header; send initialize first",
        );
    };
    let found = match find_session(endpoint, sid, principal.subject()).await {
        Ok(found) => found.map(|(_, slot)| slot),
        Err(refused) => return refused.response(None),
    };
    let Some(slot) = found else {
        return error_response(
            StatusCode::NOT_FOUND,
            None,
            "not found: no such session (it ended or never existed); send initialize again",
        );
    };
    if let Some(last) = parts.headers.get(LAST_EVENT_ID) {
        return resume(endpoint, sid, &slot, last.as_bytes()).await;
    }
    match slot.open(until_drained(endpoint)) {
        Ok(stream) => stream,
        Err(stream::AlreadyOpen) => error_response(
            StatusCode::CONFLICT,
            None,
            "conflict: this session already has its GET stream open; only one is allowed per session",
        ),
    }
}

/// A GET with `Last-Event-ID`: the stream it names, resumed after it (the session's GET
/// stream, or a POST's answer), or the refusal saying why not.
async fn resume(endpoint: &Endpoint, sid: &str, slot: &Arc<stream::StreamSlot>, header: &[u8]) -> Response {
    let Some(last) = std::str::from_utf8(header).ok().and_then(EventId::parse) else {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            &format!(
                "bad request: Last-Event-ID {} is not an event id of this server (its ids read <stream>:<number>)",
                crate::json::json_string(&String::from_utf8_lossy(header))
            ),
        );
    };
    let outcome = if last.stream() == &*slot.stream_id() {
        slot.resume(last.seq(), until_drained(endpoint)).await
    } else {
        resume_post(endpoint, sid, &last).await
    };
    outcome.unwrap_or_else(|e| replay_refused(&last, &e))
}

/// A POST's answer resumed after `last`: the stored events after it, then the rest of the
/// answer as it comes if the call still runs here; else the stream is closed with `retry:`
/// after the replay (unless the replay ends with the response), and the client polls again.
async fn resume_post(endpoint: &Endpoint, sid: &str, last: &EventId) -> Result<Response, ReplayError> {
    let (live, through, ended) = match endpoint.live.find(sid, last.stream()) {
        Some(channel) => {
            let (feed, rx) = outbox::channel(endpoint.config.max_sse_backlog);
            let (through, ended) = channel.resume(feed);
            (Some(rx), through, ended)
        }
        None => (None, u64::MAX, false),
    };
    let stored = endpoint.store.replay(sid, last.stream(), last.seq()).await;
    let replay = match &live {
        // The call still runs here: a stream the store lost whole is gone, not unknown.
        Some(_) => event_store::replay_of_live(last.stream(), last.seq(), through, stored)?,
        None => stored?,
    };
    let replay = replay.into_iter().filter(|e| e.seq <= through).collect();
    let retry = endpoint.config.sse_polling.map_or(DEFAULT_SSE_RETRY, |p| p.retry);
    let tail = sse::Tail { live, ends_with_response: true, ended, guard: None, until: None };
    Ok(sse::resumed(last.stream().into(), replay, tail, retry))
}

/// A GET stream's early end: when the endpoint's drain begins (see [`sse::Until`]).
fn until_drained(endpoint: &Endpoint) -> Option<sse::Until> {
    let retry = endpoint.config.sse_polling.map_or(DEFAULT_SSE_RETRY, |p| p.retry);
    endpoint.config.drain.as_ref().map(|d| sse::Until { stop: d.begun_token(), retry })
}

/// How long a client whose resumed stream was closed before its end is told to wait
/// (`retry:`), when the endpoint does not poll: one second.
const DEFAULT_SSE_RETRY: Duration = Duration::from_secs(1);

/// The answer to a `Last-Event-ID` the store cannot replay from.
fn replay_refused(last: &EventId, error: &ReplayError) -> Response {
    match error {
        ReplayError::Gone { oldest, .. } => error_response(
            StatusCode::GONE,
            None,
            &format!(
                "gone: the events after Last-Event-ID '{last}' are no longer held (the oldest held of that stream is '{}'); the stream cannot be resumed without missing events",
                EventId::new(last.stream(), *oldest)
            ),
        ),
        ReplayError::Unavailable(why) => error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            &format!("service unavailable: the event store could not be read ({why}); try again"),
        ),
        // -32600, not the -32601 a 404 defaults to: the request was understood, its stream is
        // what is missing.
        _ => error_response(
            StatusCode::NOT_FOUND,
            Some(crate::protocol::code::INVALID_REQUEST),
            &format!(
                "not found: Last-Event-ID '{last}' names no stream of this session (it never existed, or its events are gone)"
            ),
        ),
    }
}

async fn delete(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let answer = end_session(&endpoint, &parts).await;
    inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
}

/// The answer to a DELETE: the session ended, or why not.
async fn end_session(endpoint: &Endpoint, parts: &axum::http::request::Parts) -> Response {
    let heads = Heads::of(&parts.headers);
    let principal = match admit(endpoint, parts, &heads).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let ended = match (heads.session_id(), &endpoint.roaming) {
        (None, _) => None,
        (Some(id), None) => Some(endpoint.sessions.remove(id, principal.subject())),
        (Some(id), Some(r)) => match r.end(&endpoint.sessions, id, principal.subject()).await {
            Ok(ended) => Some(ended),
            Err(refused) => return refused.response(None),
        },
    };
    match ended {
        None => error_response(
            StatusCode::BAD_REQUEST,
            None,
            "bad request: DELETE needs an Mcp-Session-Id header",
        ),
        Some(true) => StatusCode::NO_CONTENT.into_response(),
        Some(false) => error_response(
            StatusCode::NOT_FOUND,
            None,
            "not found: no such session (it ended or never existed)",
        ),
    }
}
