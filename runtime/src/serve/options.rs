//! [`ServeOptions`]: which transport, where, with what auth, and the server's limits.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::server::ServerOptions;

/// Which transport the agent CLI uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// How [`serve_registry`](fn@crate::serve_registry) serves.
///
/// The defaults are the safe ones: HTTP on `127.0.0.1`, an ephemeral port, a generated
/// bearer token, a private config directory, no deadline.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub(crate) transport: TransportKind,
    pub(crate) command: Option<StdioCommand>,
    pub(crate) bind: SocketAddr,
    pub(crate) allow_non_loopback: bool,
    pub(crate) auth_disabled: bool,
    pub(crate) stateless: bool,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) config_path: Option<PathBuf>,
    pub(crate) version: Option<String>,
    pub(crate) instructions: Option<String>,
    pub(crate) deadline: Option<Duration>,
    pub(crate) cancellation: Option<CancellationToken>,
    pub(crate) server: Option<ServerOptions>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions::http()
    }
}

impl ServeOptions {
    /// Loopback streamable HTTP (the default).
    pub fn http() -> Self {
        ServeOptions {
            transport: TransportKind::Http,
            command: None,
            bind: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            allow_non_loopback: false,
            auth_disabled: false,
            stateless: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            config_path: None,
            version: None,
            instructions: None,
            deadline: None,
            cancellation: None,
            server: None,
        }
    }

    /// The stdio projection, spawning `command`.
    pub fn stdio(command: StdioCommand) -> Self {
        ServeOptions { transport: TransportKind::Stdio, command: Some(command), ..ServeOptions::http() }
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

    /// Say explicitly that a non-loopback bind is meant. Auth must stay on: the token
    /// narrows who can call, not who can reach.
    pub fn allow_non_loopback(mut self) -> Self {
        self.allow_non_loopback = true;
        self
    }

    /// Turn bearer auth off. Only for a server something else already fences: anything
    /// that can reach the port can then run every tool, `requires_approval` ones included.
    pub fn auth_none(mut self) -> Self {
        self.auth_disabled = true;
        self
    }

    /// Issue no session ids (see [`HttpConfigBuilder::stateless`](crate::HttpConfigBuilder::stateless)).
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Accept this `Host` besides the loopback names.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Accept this `Origin` besides loopback ones.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Write the config here instead of a private temp directory. The file is still 0600,
    /// and rewritten on every `start()`; it and its directory are yours, and `stop()`
    /// leaves them alone.
    pub fn config_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.config_path = Some(path.into());
        self
    }

    /// The version `serverInfo` reports (default: toolwire's; pass your crate's
    /// `env!("CARGO_PKG_VERSION")`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// The `instructions` the server sends.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The server's own deadline per call. `None` (the default) is forever: a default would
    /// kill a legitimately slow tool.
    pub fn deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = deadline;
        self
    }

    /// The host's cancellation for the run: once cancelled, calls are refused before
    /// dispatch and running ones are abandoned.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Serve with exactly these engine options (limits, page size, ping interval, ...),
    /// instead of the ones built from `version`, `instructions`, `deadline` and
    /// `cancellation` here. Their name is what `serverInfo` reports.
    pub fn with_server_options(mut self, options: ServerOptions) -> Self {
        self.server = Some(options);
        self
    }

    pub(crate) fn server_options(&self, name: &str) -> ServerOptions {
        if let Some(options) = &self.server {
            return options.clone();
        }
        let version = self.version.clone().unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned());
        let mut b = ServerOptions::builder(name, version).deadline(self.deadline);
        if let Some(i) = &self.instructions {
            b = b.instructions(i.clone());
        }
        if let Some(c) = &self.cancellation {
            b = b.cancellation(c.clone());
        }
        b.build()
    }
}
