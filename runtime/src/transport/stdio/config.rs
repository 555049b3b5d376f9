//! [`StdioConfig`]: what only the stdio transport reads.

use std::time::Duration;

/// Default time in-flight calls get to finish once the input closes.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// How the stdio transport serves a [`Server`](crate::Server): what only stdio reads (the
/// engine's limits are the server's own [`ServerOptions`](crate::ServerOptions)).
///
/// ```
/// use std::time::Duration;
/// use toolwire::stdio::StdioConfig;
///
/// let config = StdioConfig::new()
///     .shutdown_grace(Duration::from_secs(5))
///     .ping_interval(Some(Duration::from_secs(30)));
/// # let _ = config;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub struct StdioConfig {
    pub(crate) shutdown_grace: Duration,
    pub(crate) ping_interval: Option<Duration>,
}

impl Default for StdioConfig {
    fn default() -> Self {
        StdioConfig::new()
    }
}

impl StdioConfig {
    /// The defaults: a [`DEFAULT_SHUTDOWN_GRACE`] grace, no pings.
    pub fn new() -> StdioConfig {
        StdioConfig { shutdown_grace: DEFAULT_SHUTDOWN_GRACE, ping_interval: None }
    }

    /// How long in-flight calls may run on after stdin closes, so a client that writes
    /// its requests and closes its end still reads the answers (default
    /// [`DEFAULT_SHUTDOWN_GRACE`]). Calls still running after that are dropped unanswered.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Ping the client of a legacy session this often (the spec's server-to-client `ping`);
    /// `None`, the default, never does. A missed ping is logged, not fatal.
    pub fn ping_interval(mut self, interval: Option<Duration>) -> Self {
        self.ping_interval = interval.filter(|d| !d.is_zero());
        self
    }
}
