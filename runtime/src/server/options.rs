//! [`ServerOptions`]: who the server says it is and the limits it serves under.

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
/// Default time in-flight calls get to finish once the input closes.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// How a [`Server`](crate::Server) presents itself and the limits it serves under.
///
/// ```
/// use std::time::Duration;
/// use toolwire::ServerOptions;
///
/// let options = ServerOptions::builder("engine", "1.2.0")
///     .instructions("Tools for the build engine.")
///     .deadline(Some(Duration::from_secs(120)))
///     .max_in_flight(8)
///     .build();
/// assert_eq!(options.name(), "engine");
/// assert_eq!(options.deadline(), Some(Duration::from_secs(120)));
/// ```
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) deadline: Option<Duration>,
    pub(crate) max_in_flight: usize,
    pub(crate) max_message_size: usize,
    pub(crate) cancellation: Option<CancellationToken>,
    pub(crate) page_size: usize,
    pub(crate) list_ttl: Duration,
    pub(crate) shutdown_grace: Duration,
    pub(crate) ping_interval: Option<Duration>,
}

impl ServerOptions {
    /// Start building options for the server `name` at `version`: what `serverInfo` says.
    /// Name the *user's* server (its crate name and version), never the SDK.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerOptionsBuilder {
        ServerOptionsBuilder {
            options: ServerOptions {
                info: Implementation { name: name.into(), version: version.into(), title: None },
                instructions: None,
                deadline: None,
                max_in_flight: DEFAULT_MAX_IN_FLIGHT,
                max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
                cancellation: None,
                page_size: DEFAULT_PAGE_SIZE,
                list_ttl: DEFAULT_LIST_TTL,
                shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
                ping_interval: None,
            },
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

    /// The server's display title (`serverInfo.title`), if set.
    pub fn title(&self) -> Option<&str> {
        self.info.title.as_deref()
    }

    /// The instructions sent in `initialize` and `server/discover` results.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The server's own deadline per call; `None` (the default) waits forever.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// How many tool calls may run at once; later ones wait their turn.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight
    }

    /// The largest inbound message accepted, in bytes.
    pub fn max_message_size(&self) -> usize {
        self.max_message_size
    }

    /// The host's cancellation token for the run, if one was given.
    pub fn cancellation(&self) -> Option<&CancellationToken> {
        self.cancellation.as_ref()
    }

    /// How many tools one `tools/list` page holds.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// The `ttlMs` freshness hint on modern discover and list results.
    pub fn list_ttl(&self) -> Duration {
        self.list_ttl
    }

    /// How long in-flight calls may run on after the input closes.
    pub fn shutdown_grace(&self) -> Duration {
        self.shutdown_grace
    }

    /// How often a transport pings the client of a legacy session, if at all.
    pub fn ping_interval(&self) -> Option<Duration> {
        self.ping_interval
    }
}

/// Builds [`ServerOptions`]; start with [`ServerOptions::builder`].
#[derive(Debug, Clone)]
#[must_use = "call `.build()` to get the options"]
pub struct ServerOptionsBuilder {
    options: ServerOptions,
}

impl ServerOptionsBuilder {
    /// A display title for `serverInfo.title`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.options.info.title = Some(title.into());
        self
    }

    /// Instructions for the model on how to use this server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.options.instructions = Some(instructions.into());
        self
    }

    /// The server's own deadline per call. A call still running when it fires is abandoned
    /// and reported as `tool 'x' did not return within 0.05s and was abandoned`, which is
    /// never confused with a tool's own timeout error. `None`, the default, waits forever:
    /// a default would kill a legitimately slow tool.
    pub fn deadline(mut self, deadline: Option<Duration>) -> Self {
        self.options.deadline = deadline;
        self
    }

    /// How many tool calls may run at once (at least 1). Later calls wait their turn;
    /// `ping` and listing are never held up by them.
    pub fn max_in_flight(mut self, n: usize) -> Self {
        self.options.max_in_flight = n.max(1);
        self
    }

    /// The largest inbound message accepted, in bytes. A longer one is answered with an
    /// error and discarded; the server serves on.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.options.max_message_size = bytes.max(1);
        self
    }

    /// The host's cancellation for the run. Once it fires, a call not yet dispatched reads
    /// `the run was cancelled; 'x' was not run` and one running reads
    /// `the run was cancelled while 'x' was running`. The server keeps answering.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.options.cancellation = Some(token);
        self
    }

    /// How many tools one `tools/list` page holds (at least 1).
    pub fn page_size(mut self, n: usize) -> Self {
        self.options.page_size = n.max(1);
        self
    }

    /// The `ttlMs` freshness hint on modern discover and list results.
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.options.list_ttl = ttl;
        self
    }

    /// How long in-flight calls may run on after the input closes, so a client that writes
    /// its requests and closes its end still reads the answers. Calls still running after
    /// that are dropped unanswered.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.options.shutdown_grace = grace;
        self
    }

    /// Ping the client of a legacy session this often (the spec's server-to-client `ping`);
    /// `None`, the default, never does. A missed ping is logged, not fatal.
    pub fn ping_interval(mut self, interval: Option<Duration>) -> Self {
        self.options.ping_interval = interval.filter(|d| !d.is_zero());
        self
    }

    /// Finish.
    pub fn build(self) -> ServerOptions {
        self.options
    }
}
