//! [`HttpConfig`]: who may call the endpoint ([`Auth`]), and its limits.

use std::sync::Arc;
use std::time::Duration;

use super::auth::authn::{Authenticate, ResourceServer};
use super::auth::guard::Guard;
use super::auth::token::BearerToken;
use super::drain::Drain;
use super::session::session_store::SessionStore;
use super::stream::event_store::EventStore;

/// Default cap on a POST body: 4 MiB.
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// Default idle time after which a legacy session ends: 10 minutes.
pub const DEFAULT_SESSION_IDLE_TTL: Duration = Duration::from_secs(600);
/// Default cap on live legacy sessions.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// Default time a connection has to send a request's headers: 10 seconds, counted from
/// when it opened (for its first request) or from the first byte of a later one.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time a keep-alive connection may sit idle between requests: 60 seconds.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default cap on open connections: 512, half of the usual 1,024 file descriptors. Past it,
/// a new connection closes the one idle the longest.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Default cap on what one SSE stream holds unwritten for a client that is not reading: 1 MiB.
/// Past it, further notifications on that stream (progress) are dropped; the response
/// itself is always kept.
pub const DEFAULT_MAX_SSE_BACKLOG: usize = 1024 * 1024;

/// Who may call the endpoint.
#[derive(Clone)]
#[non_exhaustive]
pub enum Auth {
    /// A bearer token the caller must present; its holder is the host
    /// ([`Principal::host`](crate::principal::Principal::host)).
    Bearer(BearerToken),
    /// No authentication: only for a server that something else already fences off. Asked
    /// for by name, never a default. Every caller is the server's host principal.
    None,
    /// An authenticator of the program's ([`Auth::with`]), or a resource server's
    /// ([`Auth::resource_server`]): it says who each request's principal is.
    Authenticator(Arc<dyn Authenticate>),
}

impl Auth {
    /// Authenticate with `authenticator`.
    pub fn with(authenticator: impl Authenticate) -> Auth {
        Auth::Authenticator(Arc::new(authenticator))
    }

    /// The MCP authorization spec's resource-server role: bearer tokens checked by
    /// `server`'s verifier, and its RFC 9728 metadata served at
    /// `/.well-known/oauth-protected-resource`.
    pub fn resource_server(server: ResourceServer) -> Auth {
        Auth::with(server)
    }
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::Bearer(token) => f.debug_tuple("Bearer").field(token).finish(),
            Auth::None => f.write_str("None"),
            Auth::Authenticator(a) => match a.resource_server() {
                Some(rs) => f.debug_tuple("Authenticator").field(rs).finish(),
                None => f.write_str("Authenticator(..)"),
            },
        }
    }
}

/// How the HTTP endpoint serves a [`Server`](crate::Server): [`HttpConfig::new`] with the
/// [`Auth`], then a setter per limit, each consuming and returning the options. Every way of
/// serving HTTP takes one beside the server: [`serve`](super::serve) (toolwire's own
/// listener), [`mcp_router`](super::mcp_router) (a router to mount) and
/// [`SpecOptions::http_config`](crate::spec::SpecOptions::http_config).
///
/// What the engine reads (tools, exposure, authorization, rate limits, the
/// [`Fanout`](crate::server::Fanout) that carries notifications between replicas) is the
/// server's, set on its builder; what only HTTP reads is here: who may call, the limits, and
/// the shared stores ([`session_store`](Self::session_store),
/// [`event_store`](Self::event_store)), which only an HTTP endpoint has sessions and
/// streams to keep in. With a [`drain`](Self::drain) and a session store both set, `/readyz`
/// checks the store by itself.
///
/// ```
/// use std::time::Duration;
/// use toolwire::http::{Auth, HttpConfig};
///
/// let config = HttpConfig::new(Auth::None).stateless(true).idle_timeout(Duration::from_secs(5));
/// # let _ = config;
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    pub(crate) guard: Guard,
    /// Who may call; [`Auth::None`] only when auth was turned off by name.
    pub(crate) auth: Auth,
    pub(crate) stateless: bool,
    pub(crate) max_body: usize,
    pub(crate) session_idle_ttl: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) limits: Limits,
    pub(crate) max_sse_backlog: usize,
    pub(crate) event_store: Option<StoreHandle>,
    pub(crate) session_store: Option<SessionStoreHandle>,
    pub(crate) sse_polling: Option<SsePolling>,
    pub(crate) drain: Option<Drain>,
}

/// The [`EventStore`] an endpoint was given (its `Debug` names no contents).
#[derive(Clone)]
pub(crate) struct StoreHandle(pub(crate) Arc<dyn EventStore>);

impl std::fmt::Debug for StoreHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventStore")
    }
}

/// The [`SessionStore`] an endpoint was given (its `Debug` names no contents).
#[derive(Clone)]
pub(crate) struct SessionStoreHandle(pub(crate) Arc<dyn SessionStore>);

impl std::fmt::Debug for SessionStoreHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionStore")
    }
}

/// When a legacy POST's answer is closed early to be polled (SEP-1699), and when the client
/// is told to come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SsePolling {
    pub(crate) after: Duration,
    pub(crate) retry: Duration,
}

/// The connection limits, applied where toolwire serves the listener itself
/// ([`serve`](super::serve), which [`McpServerSpec`](crate::McpServerSpec) and the
/// `serve_registry!` main use); a router mounted with `axum::serve` gets axum's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_connections: usize,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("guard", &self.guard)
            .field("authenticated", &!matches!(self.auth, Auth::None))
            .field("stateless", &self.stateless)
            .field("max_body", &self.max_body)
            .field("session_idle_ttl", &self.session_idle_ttl)
            .field("max_sessions", &self.max_sessions)
            .field("limits", &self.limits)
            .field("max_sse_backlog", &self.max_sse_backlog)
            .field("shared_sessions", &self.session_store.is_some())
            .field("drain", &self.drain)
            .finish()
    }
}

impl HttpConfig {
    /// Start with `auth` (there is no default: say which) and the default limits.
    pub fn new(auth: Auth) -> HttpConfig {
        HttpConfig {
            guard: Guard::default(),
            auth,
            stateless: false,
            max_body: DEFAULT_MAX_BODY,
            session_idle_ttl: DEFAULT_SESSION_IDLE_TTL,
            max_sessions: DEFAULT_MAX_SESSIONS,
            limits: Limits {
                header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
                idle_timeout: DEFAULT_IDLE_TIMEOUT,
                max_connections: DEFAULT_MAX_CONNECTIONS,
            },
            max_sse_backlog: DEFAULT_MAX_SSE_BACKLOG,
            event_store: None,
            session_store: None,
            sse_polling: None,
            drain: None,
        }
    }

    /// Accept this `Host` (e.g. `tools.internal` or `tools.internal:8443`) besides the
    /// loopback names.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.guard.allowed_hosts.push(host.into());
        self
    }

    /// Accept requests carrying this `Origin` (e.g. `https://app.example`) besides loopback ones.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.guard.allowed_origins.push(origin.into());
        self
    }

    /// Issue no session ids; serve every request on its own (for many replicas behind a
    /// load balancer).
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Refuse bodies over `bytes` with 413.
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// End legacy sessions idle this long.
    pub fn session_idle_ttl(mut self, ttl: Duration) -> Self {
        self.session_idle_ttl = ttl;
        self
    }

    /// Refuse new legacy sessions (503) beyond this many.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n.max(1);
        self
    }

    /// Close a connection that has not sent its request's headers this long (default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`]). Applies where toolwire serves the listener
    /// ([`serve`](super::serve)), as do the two limits below.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_read_timeout = timeout;
        self
    }

    /// Close a keep-alive connection idle this long between requests (default
    /// [`DEFAULT_IDLE_TIMEOUT`]).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.limits.idle_timeout = timeout;
        self
    }

    /// Keep at most `n` connections open (default [`DEFAULT_MAX_CONNECTIONS`]); a new one
    /// past the cap closes the connection idle the longest, or is itself closed at once
    /// when every connection has a request in flight.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.limits.max_connections = n.max(1);
        self
    }

    /// Hold at most `bytes` of unwritten notifications per SSE stream for a client that is
    /// not reading (default [`DEFAULT_MAX_SSE_BACKLOG`]); past it they are dropped, and the
    /// response is still sent.
    pub fn max_sse_backlog(mut self, bytes: usize) -> Self {
        self.max_sse_backlog = bytes;
        self
    }

    /// Keep a legacy session's SSE events in `store`, for clients that resume a stream with
    /// `Last-Event-ID` (default: a [`MemoryEventStore`](super::MemoryEventStore) per
    /// endpoint, with its default bounds). A store shared by several replicas lets a client
    /// resume on any of them.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwire::http::{Auth, HttpConfig, MemoryEventStore};
    ///
    /// let store = Arc::new(MemoryEventStore::with_limits(100, 1 << 20));
    /// let config = HttpConfig::new(Auth::None).event_store(store);
    /// # let _ = config;
    /// ```
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = Some(StoreHandle(store));
        self
    }

    /// Keep legacy sessions in `store` too, so that any replica given the same store serves
    /// any session (module `session::session_store`: what is kept, when it is read and written, and
    /// the 503 a request gets while the store is down). Default: none; sessions live in this
    /// endpoint alone, and no request pays for a store call. Use it with a shared
    /// [`event_store`](Self::event_store), so that streams resume on any replica too.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolwire::http::{Auth, HttpConfig, MemoryEventStore, MemorySessionStore};
    ///
    /// // Two routers of one process sharing their sessions and events.
    /// let (sessions, events) = (Arc::new(MemorySessionStore::new()), Arc::new(MemoryEventStore::new()));
    /// let config = HttpConfig::new(Auth::None).session_store(sessions).event_store(events);
    /// # let _ = config;
    /// ```
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = Some(SessionStoreHandle(store));
        self
    }

    /// Close a legacy POST's answer that is not ready after `after` (SEP-1699 polling): the
    /// client gets an SSE stream holding only the priming event (an id, empty data, and
    /// `retry: <retry>`), and the connection closes; the client reconnects with a GET naming
    /// that id after `retry`, and gets the rest of the answer on it. This spares a
    /// long-running call a connection held open for its whole run. Off by default: an
    /// answer's connection stays open until its response.
    pub fn sse_polling(mut self, after: Duration, retry: Duration) -> Self {
        self.sse_polling = Some(SsePolling { after, retry });
        self
    }

    /// Answer `/healthz` and `/readyz`, count the requests in flight and refuse new ones
    /// once `drain` began (see [`Drain`]); where toolwire serves the listener, it also stops
    /// accepting then. Without it the endpoint answers `/mcp` only.
    pub fn drain(mut self, drain: Drain) -> Self {
        self.drain = Some(drain);
        self
    }
}
