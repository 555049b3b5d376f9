//! Serving the endpoint on a listener: hyper's HTTP/1 connections under three limits, so
//! that idle or slow sockets cannot crowd out a client with the token.
//!
//! - **Header-read timeout** ([`DEFAULT_HEADER_READ_TIMEOUT`](crate::http::DEFAULT_HEADER_READ_TIMEOUT)): a connection that has not
//!   sent its first request's headers this long after it opened, or whose next request's
//!   headers started arriving and are not complete this long after, is closed.
//! - **Idle keep-alive timeout** ([`DEFAULT_IDLE_TIMEOUT`](crate::http::DEFAULT_IDLE_TIMEOUT)): a connection with no request in
//!   flight and nothing arriving this long after its last answer ended is closed.
//! - **Connection cap** ([`DEFAULT_MAX_CONNECTIONS`](crate::http::DEFAULT_MAX_CONNECTIONS)): a new connection past the cap closes
//!   the connection idle the longest (a request whose answer is still streaming is never
//!   idle); when every connection is busy, the new one is closed at once. Running out of
//!   file descriptors is handled the same way: the longest-idle connection goes, and
//!   accepting resumes.
//!
//! A request is in flight from the moment hyper hands it to the router until its response
//! body has been written out or dropped. On shutdown (or when the endpoint's
//! [`Drain`](crate::http::Drain) begins) the listener stops accepting, idle connections close, and
//! answers in flight are finished; the drain counts each connection until it has closed.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Bytes, HttpBody};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{BoxError, Router};
use futures_util::FutureExt as _;
use futures_util::future::Either;
use hyper::service::Service as _;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::head_scan::HeadScan;
use super::woken::OnWake;
use crate::race::{Either as First, first};
use crate::sync::lock;
use crate::transport::http::config::Limits;
use crate::transport::http::drain::Drain;
use crate::transport::http::response::{Holding, error_response};

/// No time recorded (in the millisecond clocks of [`Activity`]).
const NEVER: u64 = u64::MAX;

/// What one connection is doing, shared between its task, its body guards and the table.
struct Activity {
    /// The connection's start, the zero of the millisecond clocks below.
    opened: Instant,
    /// Requests in flight.
    busy: AtomicUsize,
    /// When the connection last went idle (opened, or its last answer ended), in ms.
    idle_since: AtomicU64,
    /// When the first byte arrived since it went idle, in ms; [`NEVER`] if none has.
    first_byte: AtomicU64,
    /// Requests served so far.
    served: AtomicU64,
    /// The request head just read carried both `Content-Length` and `Transfer-Encoding`
    /// (hyper drops the first and reads the body as chunked; we refuse it instead).
    both_lengths: AtomicBool,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            opened: Instant::now(),
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            first_byte: AtomicU64::new(NEVER),
            served: AtomicU64::new(0),
            both_lengths: AtomicBool::new(false),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(NEVER - 1)
    }

    fn at(&self, ms: u64) -> Instant {
        self.opened + Duration::from_millis(ms)
    }

    fn is_idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0
    }

    /// When this connection is to be closed if nothing changes; `None` while it is busy.
    fn deadline(&self, limits: &Limits) -> Option<Instant> {
        if !self.is_idle() {
            return None;
        }
        let first_byte = self.first_byte.load(Ordering::Acquire);
        if first_byte != NEVER {
            return Some(self.at(first_byte) + limits.header_read_timeout);
        }
        let idle_since = self.at(self.idle_since.load(Ordering::Acquire));
        if self.served.load(Ordering::Acquire) == 0 {
            Some(idle_since + limits.header_read_timeout)
        } else {
            Some(idle_since + limits.idle_timeout)
        }
    }
}

/// Marks a request in flight for as long as it lives (it rides on the response body).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn enter(activity: &Arc<Activity>) -> InFlight {
        activity.busy.fetch_add(1, Ordering::AcqRel);
        activity.served.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(activity))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let a = &self.0;
        a.first_byte.store(NEVER, Ordering::Release);
        a.idle_since.store(a.now_ms(), Ordering::Release);
        a.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The socket, noting when the first byte of a request arrives on an idle connection, and
/// whether that request's head names both `Content-Length` and `Transfer-Encoding`.
///
/// Only the head that starts on an idle connection is scanned: one pipelined behind a
/// request in flight is framed by hyper alone (by `Transfer-Encoding`, as RFC 9112 §6.3
/// allows, with the connection closed after it).
struct Tracked {
    tcp: TcpStream,
    activity: Arc<Activity>,
    scan: Option<HeadScan>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.tcp).poll_read(cx, buf);
        let new = &buf.filled()[before..];
        if new.is_empty() {
            return polled;
        }
        let this = &mut *self;
        if this.activity.is_idle() {
            let now = this.activity.now_ms();
            if this
                .activity
                .first_byte
                .compare_exchange(NEVER, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                this.scan = Some(HeadScan::default());
            }
        }
        if let Some(scan) = &mut this.scan
            && let Some(named) = scan.feed(new)
        {
            if named.content_length && named.transfer_encoding {
                this.activity.both_lengths.store(true, Ordering::Release);
            }
            this.scan = None;
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

struct Entry {
    activity: Arc<Activity>,
    close: CancellationToken,
}

/// The open connections.
#[derive(Default)]
struct Table {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Entry>>,
}

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Entry>> {
        lock(&self.open)
    }

    fn insert(&self, activity: &Arc<Activity>, close: &CancellationToken) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, Entry { activity: Arc::clone(activity), close: close.clone() });
        id
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    fn len(&self) -> usize {
        self.lock().len()
    }

    /// Close the connection idle the longest; whether there was one.
    fn evict_oldest_idle(&self) -> bool {
        let mut open = self.lock();
        let oldest = open
            .iter()
            .filter(|(_, e)| e.activity.is_idle())
            .min_by_key(|(_, e)| e.activity.at(e.activity.idle_since.load(Ordering::Acquire)))
            .map(|(id, _)| *id);
        match oldest.and_then(|id| open.remove(&id)) {
            Some(entry) => {
                entry.close.cancel();
                true
            }
            None => false,
        }
    }
}

/// Whether an accept error means this process is out of file descriptors.
fn out_of_descriptors(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// What answers a connection's requests: an axum [`Router`], or the MCP endpoint as
/// toolwire's listener serves it (module `direct`: `POST /mcp` without the router). Any body
/// axum takes will do (hyper's, on a connection; another in a unit test).
pub(crate) trait Answer: Clone + Send + Sync + 'static {
    /// The response to `request`.
    fn answer<B>(&self, request: hyper::Request<B>) -> impl Future<Output = Response> + Send + use<Self, B>
    where
        B: HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>;
}

impl Answer for Router {
    fn answer<B>(&self, request: hyper::Request<B>) -> impl Future<Output = Response> + Send + use<B>
    where
        B: HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        TowerToHyperService::new(self.clone()).call(request).map(|routed| match routed {
            Ok(response) => response,
            Err(never) => match never {},
        })
    }
}

/// Serve `answer` on `listener` under `limits` until `shutdown` resolves; then stop
/// accepting, close idle connections and let answers in flight finish.
pub(crate) async fn accept(
    listener: TcpListener,
    answer: impl Answer,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()>,
    drain: Option<Drain>,
) {
    let table = Arc::new(Table::default());
    let draining = CancellationToken::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // The shutdown first: with connections always waiting, `accept` is always ready, and
        // a future polled after it would never be.
        let accepted = match first(&mut shutdown, listener.accept()).await {
            First::Left(()) => break,
            First::Right(accepted) => accepted,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) if out_of_descriptors(&e) => {
                // Free one and try again; with nothing idle, wait for a close.
                if !table.evict_oldest_idle() {
                    tracing::warn!(error = %e, "out of file descriptors and every connection is busy");
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Err(e) => {
                // A connection that failed before it was accepted (reset, aborted): skip it.
                tracing::debug!(error = %e, "accept failed");
                continue;
            }
        };
        if table.len() >= limits.max_connections && !table.evict_oldest_idle() {
            tracing::debug!(cap = limits.max_connections, "every connection is busy; closing a new one");
            drop(tcp);
            continue;
        }
        // Nagle would hold small answers back ~40 ms waiting for more to send.
        let _ = tcp.set_nodelay(true);
        let activity = Arc::new(Activity::new());
        let close = CancellationToken::new();
        let id = table.insert(&activity, &close);
        let connection =
            Connection { tcp, activity, close, draining: draining.clone(), answer: answer.clone(), limits };
        let table = Arc::clone(&table);
        // Open until its last answer is written: what a drain waits for.
        let open = drain.as_ref().map(Drain::connection);
        tokio::spawn(async move {
            connection.run().await;
            drop(open);
            table.remove(id);
        });
    }
    draining.cancel();
}

struct Connection<A> {
    tcp: TcpStream,
    activity: Arc<Activity>,
    close: CancellationToken,
    draining: CancellationToken,
    answer: A,
    limits: Limits,
}

impl<A: Answer> Connection<A> {
    async fn run(self) {
        let Connection { tcp, activity, close, draining, answer, limits } = self;
        let io = TokioIo::new(Tracked { tcp, activity: Arc::clone(&activity), scan: None });
        let in_flight = Arc::clone(&activity);
        // Combinators, not an `async` block: a block would hold the answer's future twice
        // (captured, then awaited), and hyper moves the service's future by value.
        let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let held = InFlight::enter(&in_flight);
            let answered = if in_flight.both_lengths.swap(false, Ordering::AcqRel) {
                Either::Right(std::future::ready(error_response(
                    StatusCode::BAD_REQUEST,
                    None,
                    "bad request: both Content-Length and Transfer-Encoding are set; send one (RFC 9112 §6.3)",
                )))
            } else {
                Either::Left(answer.answer(request))
            };
            // The body holds the request in flight; hyper takes it unboxed.
            answered.map(move |response| Ok::<_, Infallible>(response.map(|body| Holding::new(body, held))))
        });
        let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
        let mut conn = std::pin::pin!(conn);
        let mut draining_seen = false;
        loop {
            let deadline = activity.deadline(&limits);
            let sleep_until = deadline.unwrap_or_else(|| Instant::now() + limits.idle_timeout);
            // Once seen, the drain is not waited for again.
            let drain = async {
                match draining_seen {
                    true => std::future::pending().await,
                    false => OnWake::new(draining.cancelled()).await,
                }
            };
            let timer = OnWake::new(tokio::time::sleep_until(sleep_until.into()));
            // The connection wakes this task for every request, and is polled first; the
            // other futures are polled only when they woke it (module `woken`).
            let woke = first(conn.as_mut(), first(OnWake::new(close.cancelled()), first(drain, timer))).await;
            match woke {
                First::Left(served) => {
                    if let Err(e) = served {
                        tracing::debug!(error = %e, "HTTP connection ended with an error");
                    }
                    return;
                }
                First::Right(First::Left(())) => return,
                First::Right(First::Right(First::Left(()))) => {
                    draining_seen = true;
                    conn.as_mut().graceful_shutdown();
                }
                First::Right(First::Right(First::Right(()))) => {
                    if activity.deadline(&limits).is_some_and(|d| d <= Instant::now()) {
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn serving(limits: Limits) -> (std::net::SocketAddr, CancellationToken) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = Router::new().route("/", axum::routing::get(|| async { "ok" }));
        let stop = CancellationToken::new();
        let shutdown = stop.clone();
        tokio::spawn(accept(listener, router, limits, async move { shutdown.cancelled().await }, None));
        (addr, stop)
    }

    /// Whether the server has closed `s` (EOF within a second).
    async fn closed(s: &mut TcpStream) -> bool {
        let mut byte = [0u8; 1];
        matches!(tokio::time::timeout(Duration::from_secs(1), s.read(&mut byte)).await, Ok(Ok(0) | Err(_)))
    }

    const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

    #[tokio::test]
    async fn silent_slow_and_idle_connections_are_closed() {
        let limits = Limits {
            header_read_timeout: Duration::from_millis(200),
            idle_timeout: Duration::from_millis(400),
            max_connections: 8,
        };
        let (addr, _stop) = serving(limits).await;
        let mut silent = TcpStream::connect(addr).await.unwrap();
        let mut slow = TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        let mut kept = TcpStream::connect(addr).await.unwrap();
        kept.write_all(GET).await.unwrap();
        let mut answer = [0u8; 17];
        kept.read_exact(&mut answer).await.unwrap();
        assert_eq!(&answer, b"HTTP/1.1 200 OK\r\n");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(closed(&mut silent).await);
        assert!(closed(&mut slow).await);
        // Past the header timeout but inside the idle one: the keep-alive connection is open.
        let mut rest = vec![0u8; 256];
        let n = kept.read(&mut rest).await.unwrap();
        assert!(n > 0);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(closed(&mut kept).await);
    }

    #[tokio::test]
    async fn past_the_cap_the_longest_idle_connection_goes() {
        let limits = Limits {
            header_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            max_connections: 2,
        };
        let (addr, _stop) = serving(limits).await;
        let mut first = TcpStream::connect(addr).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let _second = TcpStream::connect(addr).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut third = TcpStream::connect(addr).await.unwrap();
        assert!(closed(&mut first).await, "the oldest idle connection is closed");
        third.write_all(GET).await.unwrap();
        let mut answer = [0u8; 17];
        third.read_exact(&mut answer).await.unwrap();
        assert_eq!(&answer, b"HTTP/1.1 200 OK\r\n");
    }
}
