//! [`SpecOptions`]: which transport, where, and the endpoint's [`HttpConfig`] (its auth
//! included).

#[cfg(doc)]
use crate::transport::http::Auth;
use crate::transport::http::HttpConfig;
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

/// Which transport the agent CLI uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// Loopback streamable HTTP served by this process: the tools stay here, with their
    /// handles, connections and closures. The default.
    Http,
    /// The CLI spawns a command that serves over stdio: the tools are rebuilt in a fresh
    /// process, and nothing of this one crosses over.
    Stdio,
}

/// The command an agent CLI spawns for the stdio transport.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioCommand {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment for it.
    pub env: BTreeMap<String, String>,
}

impl StdioCommand {
    /// This very executable with `args`: an absolute path, because the CLI spawns the child
    /// with its own `PATH`, where a bare name may find something else.
    pub fn current_exe<I, S>(args: I) -> std::io::Result<StdioCommand>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let exe = std::env::current_exe()?;
        Ok(StdioCommand {
            command: exe.display().to_string(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
        })
    }

    /// Add an environment variable for the child.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }
}

/// How [`serve_registry`](fn@crate::serve_registry) serves a built [`Server`](crate::Server)
/// to an agent CLI: which transport, where, and the endpoint's [`HttpConfig`]. What the server
/// is (its name, tools, resources, prompts, exposure, authorization, rate limits, fan-out) is
/// the [`Server`](crate::Server)'s own, said once on its builder.
///
/// The defaults are the safe ones: HTTP on `127.0.0.1`, an ephemeral port, a bearer token
/// generated for each [`serve_registry`](fn@crate::serve_registry), a private config
/// directory. [`http_config`](Self::http_config) replaces the endpoint's options, its
/// [`Auth`] included, which is honoured as given: an [`Auth::Bearer`] token is the one the
/// config file carries, [`Auth::None`] serves without one (only for a server something else
/// fences), and an authenticator of your own ([`Auth::with`], [`Auth::resource_server`])
/// checks every request while the config file names no credential (the CLI brings its own).
///
/// ```
/// use toolwire::http::{Auth, BearerToken, HttpConfig};
/// use toolwire::spec::SpecOptions;
///
/// let config = HttpConfig::new(Auth::Bearer(BearerToken::generate())).stateless(true);
/// let options = SpecOptions::http().port(0).http_config(config);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
#[must_use]
pub struct SpecOptions {
    pub(crate) transport: TransportKind,
    pub(crate) command: Option<StdioCommand>,
    pub(crate) bind: SocketAddr,
    pub(crate) allow_non_loopback: bool,
    pub(crate) config_path: Option<PathBuf>,
    /// `None`: the default endpoint, with a bearer token generated when the spec is made.
    pub(crate) http: Option<HttpConfig>,
}

impl Default for SpecOptions {
    fn default() -> Self {
        SpecOptions::http()
    }
}

impl SpecOptions {
    /// Loopback streamable HTTP, served by this process, behind a generated bearer token.
    pub fn http() -> Self {
        SpecOptions {
            transport: TransportKind::Http,
            command: None,
            bind: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            allow_non_loopback: false,
            config_path: None,
            http: None,
        }
    }

    /// The stdio projection: the agent CLI spawns `command`, which serves the same server
    /// over stdio.
    pub fn stdio(command: StdioCommand) -> Self {
        SpecOptions { transport: TransportKind::Stdio, command: Some(command), ..SpecOptions::http() }
    }

    /// Choose the transport; `Stdio` also needs [`command`](Self::command).
    pub fn transport(mut self, transport: TransportKind) -> Self {
        self.transport = transport;
        self
    }

    /// The command the CLI spawns (stdio transport).
    pub fn command(mut self, command: StdioCommand) -> Self {
        self.command = Some(command);
        self
    }

    /// Listen on this loopback port instead of an ephemeral one.
    pub fn port(mut self, port: u16) -> Self {
        self.bind.set_port(port);
        self
    }

    /// Listen on this address. Anything but loopback also needs
    /// [`allow_non_loopback`](Self::allow_non_loopback), and auth.
    pub fn bind(mut self, addr: SocketAddr) -> Self {
        self.bind = addr;
        self
    }

    /// Say explicitly that a non-loopback bind is meant. Auth must stay on (anything but
    /// [`Auth::None`]): the token narrows who can call, not who can reach.
    pub fn allow_non_loopback(mut self) -> Self {
        self.allow_non_loopback = true;
        self
    }

    /// Write the config here instead of a private temp directory. The file is still 0600,
    /// and rewritten on every `start()`; it and its directory are yours, and `stop()`
    /// leaves them alone.
    pub fn config_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.config_path = Some(path.into());
        self
    }

    /// The endpoint's options: who may call ([`Auth`], honoured as given; see the type's
    /// docs), allowed hosts and origins, statelessness, body, session and connection limits,
    /// shared stores and a drain. Default: [`HttpConfig::new`] with a generated
    /// [`BearerToken`](crate::http::BearerToken).
    pub fn http_config(mut self, http: HttpConfig) -> Self {
        self.http = Some(http);
        self
    }
}
