//! [`ApprovalConsole`]: an [`Asker`] that is a person at a web page. It serves a small page on
//! `127.0.0.1` (its own axum router on its own port, on its own thread) listing each pending
//! permission prompt: the tool, its arguments (shown as untrusted text, never as HTML) and who
//! asked: the caller's [`Principal`](crate::principal::Principal) (its subject, and its tenant
//! if any, as the program or the authenticator set it, shown as untrusted text too), the CLI's
//! `tool_use_id` and the MCP client's self-reported name and version (its `clientInfo`: the
//! CLI's for a permission prompt, the calling client's for an untrusted caller's gated call;
//! shown as untrusted text too). The person approves, denies with a message, or edits the
//! arguments (JSON, checked) and approves; the answer resolves that prompt's
//! [`ask`](Asker::ask), and the [`ApprovalServer`](super::ApprovalServer) records it with
//! source [`Asker`](super::DecisionSource::Asker), as any asker's.
//!
//! How it is kept to the person it is for:
//!
//! - **Its own token.** [`url`](ApprovalConsole::url) carries a generated token once; the page
//!   trades it for an `HttpOnly`, `SameSite=Strict` cookie and redirects to a URL without it.
//!   Without the cookie every route but the static script and style is 401.
//! - **CSRF.** `GET`s change nothing. A decision is a `POST` that needs the page's per-console
//!   CSRF token in the `x-toolwire-csrf` header *and* an `Origin` that is this console's own;
//!   either missing or wrong is 403.
//! - **Host and Origin.** `Host` must be this console's `127.0.0.1:<port>` or
//!   `localhost:<port>` (DNS rebinding), and any `Origin` must be the console's own.
//! - **Untrusted text.** A strict Content-Security-Policy (`default-src 'none'`, the script
//!   and style from their own routes, no inline code), and the page writes every value with
//!   `textContent`.
//!
//! The console's own timeout ([`DEFAULT_CONSOLE_TIMEOUT`], 5 minutes, or
//! [`ApprovalConsoleBuilder::timeout`]) denies a prompt nobody answered, with a message that
//! says so, and the page lists it as timed out. The [`ApprovalServer`](super::ApprovalServer)
//! around it has a timeout of its own (60 s by default): give the server a longer one (or
//! `None`) so the console's is the one that fires; if the server's fires first, the page lists
//! the prompt as withdrawn.
//!
//! Cookies are not isolated by port: another program serving `127.0.0.1` on another port is
//! sent this console's cookie by the browser. The console cookie's name carries the port so
//! two consoles do not clobber each other, but a hostile local web server is outside what
//! this console defends against.

mod board;
mod routes;

use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

use self::board::{Board, Outcome};
use super::asker::{Answer, ApprovalRequest, AskFuture, Asker};
use crate::race::{Either, first};
use crate::sync::lock;

/// How long an [`ApprovalConsole`] waits for a person before it denies a prompt, unless told
/// otherwise: 5 minutes.
pub const DEFAULT_CONSOLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How often the page asks for the pending prompts, unless told otherwise: 1 second.
pub const DEFAULT_CONSOLE_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A web console where a person answers permission prompts; an [`Asker`].
///
/// Cheap to clone: clones share the page and its prompts. The page is served until
/// [`stop`](ApprovalConsole::stop) or until the last clone is dropped (a pending prompt holds
/// one, through the server asking it).
///
/// ```no_run
/// # async fn run() -> std::io::Result<()> {
/// use toolwire::approvals::{ApprovalConsole, ApprovalServer};
///
/// let console = ApprovalConsole::start()?;
/// eprintln!("approve tool calls at {}", console.url());
/// // The console's 5-minute timeout is the one that fires.
/// let approvals = ApprovalServer::builder(console.clone()).timeout(None).build();
/// # let _ = approvals; Ok(()) }
/// ```
#[derive(Clone)]
pub struct ApprovalConsole {
    running: Arc<Running>,
}

/// The served console; dropped with the last [`ApprovalConsole`] clone.
struct Running {
    board: Arc<Board>,
    addr: SocketAddr,
    token: String,
    timeout: Option<Duration>,
    shutdown: Mutex<Option<oneshot::Sender<()>>>,
}

impl Running {
    fn stop(&self) {
        if let Some(stop) = lock(&self.shutdown).take() {
            let _ = stop.send(());
        }
        self.board.stop_all();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

impl fmt::Debug for ApprovalConsole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the token.
        f.debug_struct("ApprovalConsole")
            .field("addr", &self.running.addr)
            .field("timeout", &self.running.timeout)
            .field("pending", &self.running.board.pending_count())
            .finish_non_exhaustive()
    }
}

/// Builds an [`ApprovalConsole`]; start with [`ApprovalConsole::builder`].
#[derive(Debug, Clone)]
pub struct ApprovalConsoleBuilder {
    timeout: Option<Duration>,
    poll_interval: Duration,
    port: u16,
}

impl ApprovalConsoleBuilder {
    /// How long a prompt waits for a person before the console denies it (default
    /// [`DEFAULT_CONSOLE_TIMEOUT`], 5 minutes). `None` waits until the
    /// [`ApprovalServer`](super::ApprovalServer)'s own timeout, or forever.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// How often the page asks for pending prompts (default
    /// [`DEFAULT_CONSOLE_POLL_INTERVAL`], 1 s; at least 50 ms).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(50));
        self
    }

    /// The loopback port to listen on (default 0: one the OS picks).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Bind `127.0.0.1`, generate the token, and serve the page on a thread of its own.
    /// Works inside or outside a tokio runtime.
    ///
    /// # Errors
    ///
    /// If the port cannot be bound or the console's runtime cannot be built.
    ///
    /// # Panics
    ///
    /// If the operating system cannot supply random bytes for the tokens.
    pub fn start(self) -> io::Result<ApprovalConsole> {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, self.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let listener = {
            let _entered = runtime.enter();
            tokio::net::TcpListener::from_std(listener)?
        };
        let board = Arc::new(Board::default());
        let token = routes::random_secret();
        let site = routes::Site::new(Arc::clone(&board), addr.port(), token.clone(), self.poll_interval);
        let router = routes::router(site);
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new().name("toolwire-approval-console".to_owned()).spawn(move || {
            runtime.block_on(async move {
                if let Either::Left(Err(e)) =
                    first(axum::serve(listener, router).into_future(), stopped).await
                {
                    tracing::warn!(error = %e, "the approval console stopped serving");
                }
            });
        })?;
        Ok(ApprovalConsole {
            running: Arc::new(Running {
                board,
                addr,
                token,
                timeout: self.timeout,
                shutdown: Mutex::new(Some(stop)),
            }),
        })
    }
}

impl ApprovalConsole {
    /// A console with the defaults, started: an OS-picked port, a 5-minute timeout, a page
    /// that polls every second. See [`ApprovalConsoleBuilder::start`].
    ///
    /// # Errors
    ///
    /// As [`ApprovalConsoleBuilder::start`].
    pub fn start() -> io::Result<ApprovalConsole> {
        ApprovalConsole::builder().start()
    }

    /// Start configuring a console.
    pub fn builder() -> ApprovalConsoleBuilder {
        ApprovalConsoleBuilder {
            timeout: Some(DEFAULT_CONSOLE_TIMEOUT),
            poll_interval: DEFAULT_CONSOLE_POLL_INTERVAL,
            port: 0,
        }
    }

    /// The address to open, token included: `http://127.0.0.1:<port>/?token=<token>`. Print
    /// it for the person (or open it); it is a credential. The page exchanges the token for
    /// a cookie and drops it from the address bar.
    pub fn url(&self) -> String {
        format!("{}/?token={}", self.origin(), self.running.token)
    }

    /// The console's origin, without the token: `http://127.0.0.1:<port>`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.running.addr)
    }

    /// The loopback address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.running.addr
    }

    /// How long a prompt waits for a person (`None`: no console timeout).
    pub fn timeout(&self) -> Option<Duration> {
        self.running.timeout
    }

    /// Stop serving the page, for every clone: each pending prompt is answered with an error
    /// (which the [`ApprovalServer`](super::ApprovalServer) turns into a deny, never an
    /// allow), and every later prompt fails the same way at once.
    pub fn stop(&self) {
        self.running.stop();
    }

    /// How many prompts wait for a person now.
    pub fn pending(&self) -> usize {
        self.running.board.pending_count()
    }
}

/// Marks the prompt withdrawn if its `ask` future is dropped before it was settled (the
/// approval server's timeout fired, or the CLI withdrew the prompt).
struct WithdrawOnDrop {
    board: Arc<Board>,
    id: u64,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        self.board.settle_unanswered(self.id, Outcome::Withdrawn);
    }
}

impl Asker for ApprovalConsole {
    fn ask(&self, request: ApprovalRequest) -> AskFuture<'_> {
        let board = Arc::clone(&self.running.board);
        let timeout = self.running.timeout;
        Box::pin(async move {
            let tool = request.tool_name.clone();
            let Some((id, mut answer)) = board.open(request, timeout) else {
                return Err("the approval console is stopped".into());
            };
            let _withdraw = WithdrawOnDrop { board: Arc::clone(&board), id };
            let received = match timeout {
                None => (&mut answer).await.ok(),
                Some(limit) => match tokio::time::timeout(limit, &mut answer).await {
                    Ok(received) => received.ok(),
                    Err(_) if board.settle_unanswered(id, Outcome::TimedOut(limit)) => {
                        return Ok(Answer::deny(format!(
                            "nobody answered the approval console within {}s, so '{tool}' was denied (timed out, not refused)",
                            crate::tool::fmt_secs(limit)
                        )));
                    }
                    // A decision landed in the same instant: it was sent before the prompt
                    // left the board, so it is there to read.
                    Err(_) => answer.try_recv().ok(),
                },
            };
            received.ok_or_else(|| "the approval console stopped before anyone answered".into())
        })
    }
}
