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
//! | any request answered with its body unread (refused from its headers, a GET, a DELETE) | the body read and thrown away first (within `max_body`, 5 s) and the connection kept; else `Connection: close` (module `read::inbound`) |
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
//! | legacy GET with `Accept: text/event-stream` and a live `Mcp-Session-Id` | 200, the session's GET stream (SSE): its `notifications/resources/updated` and `notifications/*/list_changed`, and what a call sends after its own answer ended (module `stream::slot`) |
//! | legacy GET with `Last-Event-ID` (an id from one of the session's SSE streams) | 200, that stream resumed: the events after it from the [`EventStore`], then the stream live (module `stream::channel`) |
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
//! of them first calls `admit` (module `endpoint`): the guard (`auth::guard`), then the
//! authenticator (`auth::authn`). They are calls, not axum middleware, because a `from_fn`
//! layer boxes its future and clones the route's service for every request (20 of the 64
//! allocations a stateless call made, bench/findings.md). On toolwire's own listener
//! ([`serve`]) a `POST /mcp` does not pass through the router at
//! all: the listener calls `post` itself (`listen::direct`), answering as the router would,
//! about 9% fewer instructions a stateless call.
//!
//! The way a POST travels, on toolwire's own listener: `listen::accept` (the connection,
//! with `listen::head_scan` and `listen::woken`) → `listen::direct` → `drain` (admitted while
//! not draining) → `post`: `read::heads`, then `endpoint::admit` (`auth::guard`,
//! `auth::authn`) and `read::inbound` (media types, the body) → `read::peek` (the body's
//! shape) → the engine's rate limit → `endpoint::find_session` (`session::sessions`, or
//! `session::roaming` over `session::session_store`) → `read::params` → the sink
//! (`stream::outbox`, or `stream::channel` with `stream::slot` and `stream::event_store` in a
//! legacy session) → the engine → `post`'s answer (`response`, or `stream::sse`). Under
//! [`mcp_router`] the router takes `listen`'s place.
//!
//! This module declares, re-exports and builds the endpoint and its router; it is imported
//! by none of its files. The files, top level first:
//!
//! - `config`: [`HttpConfig`]; `endpoint`: what every handler serves from (`Endpoint`), and
//!   `admit` and `find_session`, which each handler calls first;
//! - `post`, `get`, `delete`: the three handlers (a POST's way from its body to its answer;
//!   a legacy session's GET stream opened or resumed with `Last-Event-ID`; a session ended);
//! - `response`: the error bodies and statuses the transport writes;
//! - `drain`: `/healthz`, `/readyz` and stopping a replica without losing a request ([`Drain`]);
//! - `auth/`: who may call: `guard` (Host, Origin), `authn` (who is calling: [`Authenticate`],
//!   [`ResourceServer`], whose [`Principal`](crate::principal::Principal) the engine hands
//!   each tool), `token` ([`BearerToken`] and the random ids), `jwks` (feature `oauth`);
//! - `read/`: what a request is read by: `names` (the MCP header names, made once), `heads`
//!   (the headers, found in one pass), `peek` and `params` (what routing reads from a body and
//!   from `Mcp-Param-*` headers), `inbound` (what a POST must be before it is routed: media
//!   types, the body, the era's headers; and a body a request is answered without, read and
//!   discarded, bounded);
//! - `session/`: legacy sessions: `sessions` (this endpoint's table), `session_store`
//!   ([`SessionStore`], where replicas share legacy sessions), `roaming` (the table in front
//!   of it: a session this replica does not hold is re-made from the store);
//! - `stream/`: what goes back as SSE: `outbox` (one POST's answer, bounded), `sse` (the
//!   framing and bodies), `event_store` ([`EventStore`], where a legacy session's events wait
//!   for a `Last-Event-ID`), `channel` (a resumable stream's sending end), `slot` (a legacy
//!   session's GET stream);
//! - `listen/`: toolwire's own listener, [`serve`] (the spec's and the `--http` main's too): `accept`
//!   (the accept loop with timeouts and a connection cap), `woken` (the connection's
//!   rarely-ready branches, polled only when they wake), `head_scan` (whether a request head
//!   names both `Content-Length` and `Transfer-Encoding`, read from the socket's bytes),
//!   `direct` (its `POST /mcp` answered without the router).
//!
//! Modern requests are stateless: each is served on a fresh engine session, so two clients
//! using the same request id at once never meet.
//!
//! Legacy sessions have an idle TTL and a cap. In stateless mode (for replicas behind a
//! load balancer) no session ids are issued: each legacy request is served by a fresh
//! session, brought up with the version its `MCP-Protocol-Version` header names.

mod auth;
mod config;
mod delete;
mod drain;
mod endpoint;
mod get;
pub(crate) mod listen;
mod post;
pub(crate) mod read;
mod response;
mod session;
mod stream;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::server::Server;

/// axum's router, which [`mcp_router`] returns: named here so that mounting the endpoint in
/// an app of one's own needs no `axum` in one's `Cargo.toml`.
pub use axum::Router;

pub use auth::authn::{Authenticate, BoxFuture, Refusal, ResourceServer, VerifyToken};
#[cfg(feature = "oauth")]
pub use auth::jwks::{
    DEFAULT_JWKS_REFRESH, DEFAULT_MIN_REFETCH, DEFAULT_TOKEN_TYPES, JwksError, JwksVerifier,
};
pub use auth::token::BearerToken;
pub(crate) use auth::token::random_id;
pub use config::{
    Auth, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SSE_BACKLOG, DEFAULT_SESSION_IDLE_TTL, HttpConfig,
};
use delete::delete;
pub use drain::{DEFAULT_DRAIN_GRACE, Drain, ReadyCheck};
use endpoint::{Endpoint, MCP_PATH, admit};
use get::get;
/// A JWT signing algorithm, as [`JwksVerifier::algorithms`] takes it (`jsonwebtoken`'s,
/// named here so that a server needs no `jsonwebtoken` of its own).
#[cfg(feature = "oauth")]
pub use jsonwebtoken::Algorithm;
use listen::direct::Direct;
pub use post::HEADER_MISMATCH;
use post::post;
use read::heads::Heads;
use read::params::ParamHeaders;
use response::error_response;
pub use session::session_store::{
    MemorySessionStore, STORE_UNAVAILABLE, SessionState, SessionStore, SessionStoreError, StoreFuture,
};
use session::sessions::Sessions;
pub use stream::event_store::{
    DEFAULT_EVENT_STORE_BYTES, DEFAULT_EVENT_STORE_STREAMS, DEFAULT_EVENTS_PER_STREAM, EventId, EventStore,
    MemoryEventStore, Replay, ReplayError, StoredEvent,
};

/// The MCP endpoint as an axum [`Router`]: `/mcp` and nothing else (and, under a
/// [`ResourceServer`], its metadata; with a [`Drain`], `/healthz` and `/readyz`). Mount it
/// into an existing app with `Router::merge`; to serve it on its own, [`serve`] is
/// toolwire's own listener (timeouts, a connection cap, and a quicker `POST /mcp`).
///
/// Who the callers are is the server's [`exposure`](crate::server::ServerBuilder::exposure),
/// said once on its builder. A router cannot know the address it is served on, so an unsaid
/// exposure is the trusted host here (and a warning in the log): an app that others reach
/// over a network says `.exposure(Exposure::untrusted_callers())` on the builder.
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
    if !server.exposure_said() {
        tracing::warn!(
            "mcp_router: the server's exposure was not said; serving it as the trusted host. An app \
             others reach over a network says .exposure(Exposure::untrusted_callers()) on the builder"
        );
    }
    endpoint(server, config, false).0
}

/// Serve `server`'s MCP endpoint on `listener` with toolwire's own accept loop: the
/// header-read and idle timeouts and the connection cap of `config` (module header), and a
/// `POST /mcp` answered without the router (module `listen::direct`). Everything else is
/// [`mcp_router`]'s: `/mcp`, the resource server's metadata, and with a
/// [`Drain`] in `config`, `/healthz` and `/readyz`.
///
/// Without a drain it serves until the future is dropped. With one, it returns once the
/// drain has begun ([`Drain::begin`], or [`Drain::begin_on_signal`] on SIGTERM/SIGINT) and
/// finished: accepting stops, idle connections close, and the requests in flight finish
/// within the drain's grace. This is what the `serve_registry!` main's `--http` and
/// [`McpServerSpec`](crate::McpServerSpec) serve on.
///
/// Who the callers are is the server's [`exposure`](crate::server::ServerBuilder::exposure);
/// unsaid, a listener on a loopback address serves the trusted host and one on any other
/// address serves [`untrusted callers`](crate::server::Exposure::untrusted_callers).
///
/// ```no_run
/// use toolwire::http::{Auth, BearerToken, Drain, HttpConfig};
/// use toolwire::{Server, ServerOptions, tool, tools};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// # async fn run() -> std::io::Result<()> {
/// let server = Server::new(tools![hello].unwrap(), ServerOptions::new("demo", "0.1.0"));
/// let drain = Drain::new();
/// let config = HttpConfig::new(Auth::Bearer(BearerToken::generate())).drain(drain.clone());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// tokio::spawn(drain.clone().begin_on_signal());
/// toolwire::http::serve(listener, server, config).await;
/// # Ok(())
/// # }
/// ```
pub async fn serve(listener: tokio::net::TcpListener, server: Server, config: HttpConfig) {
    let drain = config.drain.clone();
    serve_until(listener, server, config, std::future::pending()).await;
    if let Some(drain) = drain {
        drain.finished().await;
    }
}

/// [`serve`]'s accept loop, until `shutdown` resolves or the config's drain begins, whichever
/// comes first (the spec's `start` spawns it with its stop token); it does not wait for the
/// drain to finish.
pub(crate) async fn serve_until(
    listener: tokio::net::TcpListener,
    server: Server,
    config: HttpConfig,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let (limits, drain) = (config.limits, config.drain.clone());
    let network = listener.local_addr().is_ok_and(|a| !a.ip().is_loopback());
    let service = mcp_service(server, config, network);
    let begun = drain.clone();
    // A drain that begins stops the accept loop too: new connections are refused.
    let stop = async move {
        match begun {
            Some(drain) => {
                crate::race::first(shutdown, drain.begun()).await;
            }
            None => shutdown.await,
        }
    };
    listen::accept::accept(listener, service, limits, stop, drain).await;
}

/// The MCP endpoint as toolwire's own listener serves it ([`serve`]):
/// [`mcp_router`]'s router, with `POST /mcp` answered without it (module `listen::direct`);
/// `network`: its listener is on an address others can reach (`Server::exposure_on`).
pub(crate) fn mcp_service(server: Server, config: HttpConfig, network: bool) -> Direct {
    let (router, endpoint) = endpoint(server, config, network);
    Direct::new(router, endpoint)
}

/// The endpoint, and its router.
fn endpoint(server: Server, config: HttpConfig, network: bool) -> (Router, Arc<Endpoint>) {
    let store: Arc<dyn EventStore> = match &config.event_store {
        Some(handle) => handle.0.clone(),
        None => Arc::new(MemoryEventStore::new()),
    };
    let roaming = config
        .session_store
        .as_ref()
        .map(|h| session::roaming::Roaming { store: h.0.clone(), idle_ttl: config.session_idle_ttl });
    let (ttl, shared) = (config.session_idle_ttl, roaming.as_ref().map(|r| Arc::clone(&r.store)));
    let sessions = Sessions::new(ttl, config.max_sessions, config.max_sse_backlog, store.clone(), shared);
    let params = ParamHeaders::of(&server.registry());
    let live = Arc::default();
    let exposure = server.exposure_on(network);
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
            router = router.route(
                &path,
                axum::routing::get(move || async move { auth::authn::metadata_response(&json) }),
            );
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
    read::inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
}

/// 405 for anything but POST, GET and DELETE (once the request is admitted).
async fn method_not_allowed(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let answer = not_allowed(&endpoint, &parts).await;
    read::inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
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
