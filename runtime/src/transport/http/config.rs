//! [`HttpConfig`]: who may call the endpoint ([`Auth`]), and its limits; built with
//! [`HttpConfigBuilder`].

use std::time::Duration;

use super::auth::BearerToken;
use super::guard::Guard;

/// Default cap on a POST body: 4 MiB.
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// Default idle time after which a legacy session ends: 10 minutes.
pub const DEFAULT_SESSION_IDLE_TTL: Duration = Duration::from_secs(600);
/// Default cap on live legacy sessions.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// Who may call the endpoint.
#[derive(Debug, Clone)]
pub enum Auth {
    /// A bearer token the caller must present.
    Bearer(BearerToken),
    /// No authentication: only for a server that something else already fences off. Asked
    /// for by name, never a default.
    None,
}

/// How the HTTP endpoint behaves; build with [`HttpConfig::builder`].
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub(crate) guard: Guard,
    pub(crate) stateless: bool,
    pub(crate) max_body: usize,
    pub(crate) session_idle_ttl: Duration,
    pub(crate) max_sessions: usize,
}

impl HttpConfig {
    /// Start with `auth` (there is no default: say which).
    pub fn builder(auth: Auth) -> HttpConfigBuilder {
        let token = match auth {
            Auth::Bearer(t) => Some(t),
            Auth::None => None,
        };
        HttpConfigBuilder {
            config: HttpConfig {
                guard: Guard { token, ..Guard::default() },
                stateless: false,
                max_body: DEFAULT_MAX_BODY,
                session_idle_ttl: DEFAULT_SESSION_IDLE_TTL,
                max_sessions: DEFAULT_MAX_SESSIONS,
            },
        }
    }
}

/// Builds an [`HttpConfig`].
#[derive(Debug, Clone)]
pub struct HttpConfigBuilder {
    config: HttpConfig,
}

impl HttpConfigBuilder {
    /// Accept this `Host` (e.g. `tools.internal` or `tools.internal:8443`) besides the
    /// loopback names.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.config.guard.allowed_hosts.push(host.into());
        self
    }

    /// Accept requests carrying this `Origin` (e.g. `https://app.example`) besides loopback ones.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.config.guard.allowed_origins.push(origin.into());
        self
    }

    /// Issue no session ids; serve every request on its own (for many replicas behind a
    /// load balancer).
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.config.stateless = stateless;
        self
    }

    /// Refuse bodies over `bytes` with 413.
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.config.max_body = bytes;
        self
    }

    /// End legacy sessions idle this long.
    pub fn session_idle_ttl(mut self, ttl: Duration) -> Self {
        self.config.session_idle_ttl = ttl;
        self
    }

    /// Refuse new legacy sessions (503) beyond this many.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.config.max_sessions = n.max(1);
        self
    }

    /// Finish.
    pub fn build(self) -> HttpConfig {
        self.config
    }
}
