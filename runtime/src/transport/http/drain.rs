//! Readiness and drain, for replicas behind a load balancer: `/healthz`, `/readyz`, and
//! stopping without losing a request ([`Drain`], whose docs say what it answers and when).

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::auth::authn::BoxFuture;
use super::read::inbound::unread;
use super::response::{closing, error_response, holding};
use super::session::session_store::{SessionStore, SessionStoreError};
use crate::race::first;
use crate::sync::lock;

/// How long a drain waits for the requests in flight by default: 30 seconds (Kubernetes'
/// default `terminationGracePeriodSeconds`, the longest a supervisor usually waits).
pub const DEFAULT_DRAIN_GRACE: Duration = Duration::from_secs(30);

/// The words a request to `/mcp` is refused with once the drain began.
const DRAINING: &str =
    "service unavailable: this replica is draining; send the request again (to another replica)";

/// Something a replica needs to take requests (a shared store it must reach): `/readyz`
/// answers 503 naming it while [`ReadyCheck::check`] fails.
pub trait ReadyCheck: Send + Sync + 'static {
    /// What is checked, as `/readyz` names it (`session store`).
    fn name(&self) -> &str;
    /// `Ok` when it is usable; else why not, in words for an operator.
    fn check(&self) -> BoxFuture<'_, Result<(), String>>;
}

/// A [`SessionStore`] as a [`ReadyCheck`]: ready while a read of an id no session has comes
/// back (found or not), named `session store`. Every endpoint with both a drain and a session
/// store checks its store this way by itself ([`wrap`]): a replica that cannot reach the
/// store where its sessions live is not ready, and nobody has to remember to say so.
struct SessionStoreCheck(Arc<dyn SessionStore>);

/// The id [`SessionStoreCheck`] reads: never a session's (ids are random hex).
const PROBE_ID: &str = "toolwire-readyz-probe";

impl ReadyCheck for SessionStoreCheck {
    fn name(&self) -> &str {
        "session store"
    }

    fn check(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            match self.0.load(PROBE_ID).await {
                Ok(_) | Err(SessionStoreError::Corrupt(_)) => Ok(()),
                Err(SessionStoreError::Unavailable(why)) => Err(format!("unavailable: {why}")),
            }
        })
    }
}

/// A replica's readiness and drain: cheap to clone, every clone the same drain.
///
/// A [`Drain`] given to [`HttpConfig::drain`](super::HttpConfig::drain) makes
/// [`mcp_router`](super::mcp_router) answer two more paths, outside the Host/Origin guard and
/// the authenticator (a load balancer's probe carries neither):
///
/// | request | answer |
/// | --- | --- |
/// | GET `/healthz` | 200 `ok`: the process is up and serving HTTP |
/// | GET `/readyz` | 200 `ready`; 503 `not ready: draining` once the drain began; 503 `not ready: <check>: <reason>` while a [`ReadyCheck`] fails, or while the endpoint's [`session_store`](super::HttpConfig::session_store) cannot be read (`not ready: session store: unavailable: …`: checked by itself whenever one is set) |
/// | a request to `/mcp` once the drain began | 503, JSON-RPC -32600 `service unavailable: this replica is draining; send the request again (to another replica)`, `Connection: close` |
/// | a legacy session's GET stream, open when the drain begins | its last event, `retry:` alone (the client reconnects, to another replica), then its end |
/// | a 2026-07-28 `subscriptions/listen`, open when the drain begins | its graceful closure ([`Server::end_listens`](crate::Server::end_listens)): the listen's completion result, then the stream's end |
///
/// The drain: [`Drain::begin`] (toolwire's `--http` main calls it on SIGTERM or SIGINT), then
/// the listener stops accepting (new connections are refused, which a load balancer retries on
/// another replica whatever the method), idle keep-alive connections close, and the requests
/// in flight finish (a session's GET stream and a `subscriptions/listen` are not: they would
/// never finish by themselves, and carry nothing a call in flight waits for, so they end at
/// once, as the table says);
/// [`Drain::finished`] resolves when none is left and every connection has
/// closed, or when the grace period ([`DEFAULT_DRAIN_GRACE`] unless [`Drain::grace`] says
/// otherwise) has passed. A request is in
/// flight until its response body has been written out or dropped, so a call answered over SSE
/// counts until its last event.
///
/// toolwire's own listener ([`serve`](super::serve)) does all of this by itself. For a
/// router mounted in an app of one's own, the same hook serves `axum::serve`:
///
/// ```no_run
/// use toolwire::http::{Auth, Drain, HttpConfig, mcp_router};
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
/// let drain = Drain::new().grace(std::time::Duration::from_secs(20));
/// let config = HttpConfig::new(Auth::None).stateless(true).drain(drain.clone());
/// let app = mcp_router(server, config);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// // SIGTERM or SIGINT begins the drain; axum then stops accepting.
/// tokio::spawn(drain.clone().begin_on_signal());
/// let serving = axum::serve(listener, app).with_graceful_shutdown(drain.begun());
/// // Done when axum has written the last answer and closed every connection, or when the
/// // grace period is spent, whichever comes first.
/// tokio::select! {
///     served = serving => served?,
///     () = drain.expired() => eprintln!("drained; {} requests cut off", drain.in_flight()),
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Drain {
    inner: Arc<Inner>,
}

struct Inner {
    /// The grace period, in milliseconds.
    grace_ms: AtomicU64,
    begun: CancellationToken,
    in_flight: AtomicUsize,
    /// Connections open on a listener toolwire serves (none counted under `axum::serve`).
    connections: AtomicUsize,
    /// Woken when `in_flight` or `connections` drops to zero.
    idle: Notify,
    checks: Mutex<Vec<Arc<dyn ReadyCheck>>>,
    /// Run once when the drain begins (the endpoints' servers ending their listens).
    on_begin: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

impl fmt::Debug for Drain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Drain")
            .field("grace", &self.grace_period())
            .field("draining", &self.is_draining())
            .field("in_flight", &self.in_flight())
            .finish_non_exhaustive()
    }
}

impl Default for Drain {
    fn default() -> Self {
        Drain::new()
    }
}

impl Drain {
    /// Not draining, nothing in flight, the default grace period, no checks.
    pub fn new() -> Drain {
        Drain {
            inner: Arc::new(Inner {
                grace_ms: AtomicU64::new(DEFAULT_DRAIN_GRACE.as_secs() * 1000),
                begun: CancellationToken::new(),
                in_flight: AtomicUsize::new(0),
                connections: AtomicUsize::new(0),
                idle: Notify::new(),
                checks: Mutex::default(),
                on_begin: Mutex::default(),
            }),
        }
    }

    /// Wait at most `grace` for the requests in flight once the drain began (default
    /// [`DEFAULT_DRAIN_GRACE`]); every clone sees it.
    pub fn grace(self, grace: Duration) -> Drain {
        let ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX);
        self.inner.grace_ms.store(ms, Ordering::Release);
        self
    }

    /// The grace period.
    pub fn grace_period(&self) -> Duration {
        Duration::from_millis(self.inner.grace_ms.load(Ordering::Acquire))
    }

    /// Answer `/readyz` with 503 while `check` fails.
    pub fn require(&self, check: impl ReadyCheck) {
        lock(&self.inner.checks).push(Arc::new(check));
    }

    /// Begin draining: `/readyz` answers 503, `/mcp` refuses new requests, and the listener
    /// toolwire serves stops accepting. Idempotent; there is no way back.
    pub fn begin(&self) {
        self.inner.begun.cancel();
        let hooks = std::mem::take(&mut *lock(&self.inner.on_begin));
        for hook in hooks {
            hook();
        }
    }

    /// Run `hook` when the drain begins, or now if it has (an endpoint's server ending its
    /// `subscriptions/listen` streams, which would never end by themselves).
    pub(super) fn on_begin(&self, hook: impl FnOnce() + Send + 'static) {
        let mut hooks = lock(&self.inner.on_begin);
        if self.is_draining() {
            drop(hooks);
            hook();
        } else {
            hooks.push(Box::new(hook));
        }
    }

    /// Whether the drain began.
    pub fn is_draining(&self) -> bool {
        self.inner.begun.is_cancelled()
    }

    /// Requests in flight now (counted from the router's entry until the response body is
    /// written out or dropped).
    pub fn in_flight(&self) -> usize {
        self.inner.in_flight.load(Ordering::Acquire)
    }

    /// Resolves once the drain began (for `axum::serve(..).with_graceful_shutdown`).
    pub fn begun(&self) -> impl Future<Output = ()> + Send + 'static {
        let begun = self.inner.begun.clone();
        async move { begun.cancelled().await }
    }

    /// Resolves once the drain began and then nothing is in flight and no connection is open
    /// (where toolwire serves the listener, so the last answers are written out), or when
    /// the grace period has passed since it began; to how many requests were still in flight
    /// (cut off) then.
    ///
    /// Under `axum::serve`, await the server instead (it returns once every connection
    /// closed), bounded by [`Drain::expired`]: the count here reaches zero when the last body
    /// is handed to hyper, a moment before hyper has written it.
    pub fn finished(&self) -> impl Future<Output = usize> + Send + 'static {
        let inner = Arc::clone(&self.inner);
        let expired = self.expired();
        async move {
            let settled = async {
                inner.begun.cancelled().await;
                loop {
                    let idle = inner.idle.notified();
                    if inner.in_flight.load(Ordering::Acquire) == 0
                        && inner.connections.load(Ordering::Acquire) == 0
                    {
                        return;
                    }
                    idle.await;
                }
            };
            first(settled, expired).await;
            inner.in_flight.load(Ordering::Acquire)
        }
    }

    /// Resolves once the grace period has passed since the drain began.
    pub fn expired(&self) -> impl Future<Output = ()> + Send + 'static {
        let drain = self.clone();
        async move {
            drain.inner.begun.cancelled().await;
            tokio::time::sleep(drain.grace_period()).await;
        }
    }

    /// Begin the drain on SIGTERM or SIGINT (on other platforms, Ctrl-C).
    pub async fn begin_on_signal(self) {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut term), Ok(mut int)) =
                (signal(SignalKind::terminate()), signal(SignalKind::interrupt()))
            else {
                tracing::warn!("cannot listen for SIGTERM and SIGINT; the drain begins only when asked");
                return;
            };
            first(term.recv(), int.recv()).await;
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        self.begin();
    }

    /// What `/readyz` answers now.
    async fn readiness(&self) -> Result<(), String> {
        if self.is_draining() {
            return Err("draining".to_owned());
        }
        let checks = lock(&self.inner.checks).clone();
        for check in checks {
            check.check().await.map_err(|reason| format!("{}: {reason}", check.name()))?;
        }
        Ok(())
    }

    /// Cancelled when the drain begins: what a GET stream ends on (module `stream::sse`).
    pub(super) fn begun_token(&self) -> CancellationToken {
        self.inner.begun.clone()
    }

    fn enter(&self) -> Flight {
        self.inner.in_flight.fetch_add(1, Ordering::AcqRel);
        Flight(Arc::clone(&self.inner), Counter::Request)
    }

    /// Count a connection open until the guard drops (toolwire's accept loop).
    pub(super) fn connection(&self) -> Flight {
        self.inner.connections.fetch_add(1, Ordering::AcqRel);
        Flight(Arc::clone(&self.inner), Counter::Connection)
    }
}

/// `/healthz` and `/readyz`, and the in-flight count and the drain's refusal around `router`
/// (the MCP routes). `/readyz` checks `store`, the endpoint's shared session store when it
/// has one, after the drain's own checks.
pub(super) fn wrap(
    router: Router,
    drain: &Drain,
    max_body: usize,
    store: Option<Arc<dyn SessionStore>>,
) -> Router {
    let store = store.map(|s| Arc::new(SessionStoreCheck(s)) as Arc<dyn ReadyCheck>);
    let probes = Router::new()
        .route("/healthz", axum::routing::get(|| async { "ok" }))
        .route("/readyz", axum::routing::get(readyz))
        .with_state((drain.clone(), store));
    router.layer(axum::middleware::from_fn_with_state((drain.clone(), max_body), layer)).merge(probes)
}

async fn readyz(State((drain, store)): State<(Drain, Option<Arc<dyn ReadyCheck>>)>) -> Response {
    let mut ready = drain.readiness().await;
    if let (Ok(()), Some(store)) = (&ready, store) {
        ready = store.check().await.map_err(|reason| format!("{}: {reason}", store.name()));
    }
    match ready {
        Ok(()) => "ready".into_response(),
        Err(why) => (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}")).into_response(),
    }
}

async fn layer(State((drain, max_body)): State<(Drain, usize)>, request: Request, next: Next) -> Response {
    let flight = match admit(&drain) {
        Ok(flight) => flight,
        Err(refused) => {
            let (parts, body) = request.into_parts();
            return unread(refused, body, max_body, &parts.headers).await;
        }
    };
    let response = next.run(request).await;
    response.map(|body| holding(body, flight))
}

/// A request let in while the replica is not draining, counted in flight for as long as the
/// returned [`Flight`] lives (the response's body holds it); while draining, the 503 to
/// answer instead. What the drain's layer does for each request, and what the listener's
/// direct `POST /mcp` (module `listen::direct`) does in its place.
#[allow(clippy::result_large_err)] // The refusal is the answer itself, as in `inbound`.
pub(super) fn admit(drain: &Drain) -> Result<Flight, Response> {
    if drain.is_draining() {
        return Err(closing(error_response(StatusCode::SERVICE_UNAVAILABLE, None, DRAINING)));
    }
    Ok(drain.enter())
}

/// One request in flight or one connection open, for as long as it lives.
pub(super) struct Flight(Arc<Inner>, Counter);

enum Counter {
    Request,
    Connection,
}

impl Drop for Flight {
    fn drop(&mut self) {
        let counter = match self.1 {
            Counter::Request => &self.0.in_flight,
            Counter::Connection => &self.0.connections,
        };
        if counter.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn finished_waits_for_the_last_request_in_flight() {
        let drain = Drain::new().grace(Duration::from_secs(5));
        let flight = drain.enter();
        let finished = tokio::spawn(drain.finished());
        drain.begin();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!finished.is_finished(), "a request is still in flight");
        drop(flight);
        assert_eq!(finished.await.unwrap(), 0);
    }

    #[tokio::test]
    async fn finished_waits_for_the_last_connection_to_close() {
        let drain = Drain::new().grace(Duration::from_secs(5));
        let connection = drain.connection();
        drain.begin();
        let finished = tokio::spawn(drain.finished());
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!finished.is_finished(), "its last answer may still be unwritten");
        drop(connection);
        assert_eq!(finished.await.unwrap(), 0);
    }

    #[tokio::test]
    async fn finished_gives_up_after_the_grace_period() {
        let drain = Drain::new().grace(Duration::from_millis(100));
        let _stuck = drain.enter();
        drain.begin();
        assert_eq!(drain.finished().await, 1);
    }

    struct Down;
    impl ReadyCheck for Down {
        fn name(&self) -> &str {
            "session store"
        }
        fn check(&self) -> BoxFuture<'_, Result<(), String>> {
            Box::pin(async { Err("connection refused".to_owned()) })
        }
    }

    #[tokio::test]
    async fn readiness_names_a_failing_check_then_the_drain() {
        let drain = Drain::new();
        assert_eq!(drain.readiness().await, Ok(()));
        drain.require(Down);
        assert_eq!(drain.readiness().await, Err("session store: connection refused".to_owned()));
        drain.begin();
        assert_eq!(drain.readiness().await, Err("draining".to_owned()));
    }
}
