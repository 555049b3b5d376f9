//! [`ServerOptions`]: who the server says it is and the limits it serves under.
//!
//! Only what the engine itself reads lives here. What one transport alone reads lives in
//! that transport's config: the stdio shutdown grace and keep-alive pings in
//! [`StdioConfig`](crate::stdio::StdioConfig), the HTTP limits, auth and shared stores in
//! `http::HttpConfig`.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::protocol::Implementation;

/// Default bound on tool calls running at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 32;
/// Default bound on one inbound message, in bytes (16 MiB).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;
/// Default number of tools per `tools/list` page.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// Default freshness hint (`ttlMs`) on modern discover and list results: five minutes.
pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);
/// Default time a call waits for the client to answer a request it sent (an elicitation,
/// which waits on a person, a sampling, a roots list): five minutes.
pub const DEFAULT_CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(300);
/// Default life of a 2026-07-28 `requestState`: how long a client may take between an
/// `input_required` result and its retry (a person answering a form): ten minutes.
pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(600);
/// Default most `input_required` rounds one 2026-07-28 request may take: the server stops a
/// body that asks more often ([`ServerOptions::max_input_rounds`]), and a client gives up on a
/// server that asks more often (`client::ClientOptions::max_input_rounds`, which names this
/// same constant as `client::DEFAULT_MAX_INPUT_ROUNDS`).
pub const DEFAULT_MAX_INPUT_ROUNDS: u32 = 8;

/// How long a task (the tasks extension) is kept after it was created, unless told
/// otherwise: one hour. Its `ttlMs`; the body is cancelled when it runs out.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// How often a client is told to poll a task, unless told otherwise: 500 ms
/// (`pollIntervalMs`).
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Default bound on tasks (the tasks extension) running at once on one replica: 32, as
/// [`DEFAULT_MAX_IN_FLIGHT`].
pub const DEFAULT_MAX_TASKS: usize = 32;

/// How long a replica's lease on a task it runs lasts, unless told otherwise: 15 seconds. The
/// replica renews it every third of that; a task whose lease ran out (its replica died) reads
/// as failed.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(15);

/// How a [`Server`](crate::Server) presents itself and the limits it serves under.
///
/// ```
/// use std::time::Duration;
/// use toolwire::ServerOptions;
///
/// let options = ServerOptions::new("engine", "1.2.0")
///     .instructions("Tools for the build engine.")
///     .deadline(Some(Duration::from_secs(120)))
///     .max_in_flight(8);
/// assert_eq!(options.name(), "engine");
/// ```
#[derive(Clone)]
#[non_exhaustive]
#[must_use]
pub struct ServerOptions {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) deadline: Option<Duration>,
    pub(crate) max_in_flight: usize,
    pub(crate) max_message_size: usize,
    pub(crate) cancellation: Option<CancellationToken>,
    pub(crate) page_size: usize,
    pub(crate) list_ttl: Duration,
    pub(crate) client_request_timeout: Duration,
    pub(crate) forward_tracing: bool,
    /// The key `requestState` is sealed with; `None`: one made at random per process.
    pub(crate) request_state_key: Option<std::sync::Arc<[u8]>>,
    pub(crate) request_state_ttl: Duration,
    pub(crate) max_input_rounds: u32,
    pub(crate) task_ttl: Duration,
    pub(crate) task_poll_interval: Duration,
    pub(crate) task_lease: Duration,
    pub(crate) max_tasks: usize,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Every field but the state key, which is a secret.
        f.debug_struct("ServerOptions")
            .field("info", &self.info)
            .field("instructions", &self.instructions)
            .field("deadline", &self.deadline)
            .field("max_in_flight", &self.max_in_flight)
            .field("max_message_size", &self.max_message_size)
            .field("cancellation", &self.cancellation)
            .field("page_size", &self.page_size)
            .field("list_ttl", &self.list_ttl)
            .field("client_request_timeout", &self.client_request_timeout)
            .field("forward_tracing", &self.forward_tracing)
            .field("request_state_key", &self.request_state_key.as_ref().map(|_| "(set)"))
            .field("request_state_ttl", &self.request_state_ttl)
            .field("max_input_rounds", &self.max_input_rounds)
            .field("task_ttl", &self.task_ttl)
            .field("task_poll_interval", &self.task_poll_interval)
            .field("task_lease", &self.task_lease)
            .field("max_tasks", &self.max_tasks)
            .finish()
    }
}

impl ServerOptions {
    /// Options for the server `name` at `version` (what `serverInfo` says), with the
    /// default limits. Name the *user's* server, never the SDK: pass your crate's
    /// `env!("CARGO_PKG_NAME")` and `env!("CARGO_PKG_VERSION")`, as `serve_registry!` does.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> ServerOptions {
        ServerOptions {
            info: Implementation::new(name, version),
            instructions: None,
            deadline: None,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            cancellation: None,
            page_size: DEFAULT_PAGE_SIZE,
            list_ttl: DEFAULT_LIST_TTL,
            client_request_timeout: DEFAULT_CLIENT_REQUEST_TIMEOUT,
            forward_tracing: false,
            request_state_key: None,
            request_state_ttl: DEFAULT_REQUEST_STATE_TTL,
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            task_ttl: DEFAULT_TASK_TTL,
            task_poll_interval: DEFAULT_TASK_POLL_INTERVAL,
            task_lease: DEFAULT_TASK_LEASE,
            max_tasks: DEFAULT_MAX_TASKS,
        }
    }

    /// The server's name (`serverInfo.name`).
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The server's version (`serverInfo.version`).
    pub fn version(&self) -> &str {
        &self.info.version
    }

    /// A display title for `serverInfo.title`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Instructions for the model on how to use this server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The server's own deadline per call. A call still running when it fires is abandoned
    /// and reported as `tool 'x' did not return within 0.05s and was abandoned`, which is
    /// never confused with a tool's own timeout error. `None`, the default, waits forever:
    /// a default would kill a legitimately slow tool.
    pub fn deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = deadline;
        self
    }

    /// How many tool calls may run at once (at least 1). Later calls wait their turn;
    /// `ping` and listing are never held up by them. An open `subscriptions/listen` stream
    /// takes no slot and is not ended by [`deadline`](Self::deadline).
    ///
    /// A call that became a task (the tasks extension) gives its slot back when its request
    /// is answered with the task: the task's body runs on, bounded by
    /// [`max_tasks`](Self::max_tasks) and its TTL, not by this (a task may run for an hour,
    /// and calls must not wait that long behind it). So at most `max_in_flight` calls and
    /// `max_tasks` tasks run at once.
    pub fn max_in_flight(mut self, n: usize) -> Self {
        self.max_in_flight = n.max(1);
        self
    }

    /// How many tasks (the tasks extension) may run at once on this replica (at least 1;
    /// default [`DEFAULT_MAX_TASKS`]). A call that may become a task takes a task's place
    /// when it starts, and keeps it for the task if it becomes one (else gives it back when
    /// it is answered). With every place taken, a call of a tool that *may* run as a task
    /// (`task = "optional"`) runs as an ordinary call, holding its request open (and its
    /// [`max_in_flight`](Self::max_in_flight) slot); one of a tool that runs *only* as a task
    /// (`task = "required"`) is refused, before it runs, with JSON-RPC
    /// [`TOO_MANY_TASKS`](crate::server::TOO_MANY_TASKS):
    /// `tool 'x' runs only as a task, and this server runs 32 tasks already, the most it runs
    /// at once; try again when one has ended`. Tasks stay counted until their body ends
    /// (completed, failed, cancelled, or stopped at its TTL); the records the store keeps
    /// after that are bounded by the store
    /// ([`MemoryTaskStore::with_capacity`](crate::server::MemoryTaskStore::with_capacity)).
    pub fn max_tasks(mut self, n: usize) -> Self {
        self.max_tasks = n.max(1);
        self
    }

    /// The largest inbound message accepted, in bytes. A longer one is answered with an
    /// error and discarded; the server serves on.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes.max(1);
        self
    }

    /// The host's cancellation for the run. Once it fires, a call not yet dispatched reads
    /// `the run was cancelled; 'x' was not run` and one running reads
    /// `the run was cancelled while 'x' was running`. The server keeps answering.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// How many tools one `tools/list` page holds (at least 1).
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// The `ttlMs` freshness hint on modern discover and list results.
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// How long a call waits for the client to answer a request it sent from its
    /// [`Context`](crate::Context) (elicitation, sampling, roots) before the ask fails with
    /// [`AskError::TimedOut`](crate::context::AskError::TimedOut) and the request is
    /// withdrawn. Default [`DEFAULT_CLIENT_REQUEST_TIMEOUT`]; the server's
    /// [`deadline`](Self::deadline), if shorter, ends the call first.
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// Forward the `tracing` events a tool emits during a call (`tracing::info!` and the
    /// rest, in the call's own future) to the client that made it, as
    /// `notifications/message` at the client's level, besides handing them to your own
    /// subscriber as before. Off by default. A 2026-07-28 call forwards them only when its
    /// request's `_meta` carries `io.modelcontextprotocol/logLevel`, at that level.
    pub fn forward_tracing(mut self, on: bool) -> Self {
        self.forward_tracing = on;
        self
    }

    /// The key a 2026-07-28 `requestState` is sealed with (HMAC-SHA-256; use 32 random
    /// bytes or more). By default each process makes its own at random, so only the process
    /// that issued a state accepts it back: give every replica behind a load balancer the
    /// same key, and any of them can take a client's retry.
    pub fn request_state_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.request_state_key = Some(key.as_ref().into());
        self
    }

    /// How long a `requestState` stays good (default [`DEFAULT_REQUEST_STATE_TTL`]): a
    /// retry after that is refused (-32602, saying how long ago it expired), and the client
    /// starts over.
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// The most `input_required` rounds one 2026-07-28 call may take (at least 1; default
    /// [`DEFAULT_MAX_INPUT_ROUNDS`]). A body that still asks after that is stopped, and the
    /// call fails saying so.
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.max_input_rounds = rounds.max(1);
        self
    }

    /// How long a task is kept after it was created (default [`DEFAULT_TASK_TTL`], at least
    /// one second): its `ttlMs`. A body still running when it runs out is cancelled, and the
    /// task fails saying so.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// How often clients are told to poll a task (default [`DEFAULT_TASK_POLL_INTERVAL`], at
    /// least 1 ms): its `pollIntervalMs`. A replica also looks in the task store for the
    /// answers and cancellations another replica took this often.
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.task_poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// How long a replica's lease on a task it runs lasts (default [`DEFAULT_TASK_LEASE`], at
    /// least 300 ms): renewed every third of it while the body runs; a task whose lease ran
    /// out reads as failed (its replica died), on every replica sharing the task store.
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.task_lease = lease.max(Duration::from_millis(300));
        self
    }

    /// Whether these options can answer a call while its code still runs: the host's
    /// cancellation, or the deadline of a `bounded` call (one that takes an in-flight slot).
    pub(crate) fn answers_running_calls(&self, bounded: bool) -> bool {
        self.cancellation.is_some() || (bounded && self.deadline.is_some())
    }
}
