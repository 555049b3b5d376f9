//! [`SpecOptions`]: which transport, where, with what auth, and the server's options.

use crate::server::ServerOptions;
use crate::transport::http::{Auth, HttpConfig};
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

/// How [`serve_registry`](fn@crate::serve_registry) serves: the engine's [`ServerOptions`]
/// (who the server is, its limits), the endpoint's [`HttpConfig`], and what only the spec
/// decides (transport, bind address, auth, where the config file goes).
///
/// The defaults are the safe ones: HTTP on `127.0.0.1`, an ephemeral port, a generated
/// bearer token, a private config directory, no deadline. The server's name and version are
/// always yours, never toolwire's: they come from the [`ServerOptions`] you pass.
///
/// ```
/// use std::time::Duration;
/// use toolwire::ServerOptions;
/// use toolwire::http::{Auth, HttpConfig};
/// use toolwire::spec::SpecOptions;
///
/// let server = ServerOptions::new("engine", env!("CARGO_PKG_VERSION")).deadline(Some(Duration::from_secs(60)));
/// let options = SpecOptions::http(server).port(0).http_config(HttpConfig::new(Auth::None).stateless(true));
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
    pub(crate) auth_disabled: bool,
    pub(crate) config_path: Option<PathBuf>,
    pub(crate) server: ServerOptions,
    pub(crate) http: HttpConfig,
    pub(crate) prompts: Option<crate::prompt::PromptRegistry>,
    pub(crate) resources: Option<crate::resource::ResourceRegistry>,
}

impl SpecOptions {
    /// Loopback streamable HTTP, served by this process, as `server`.
    pub fn http(server: ServerOptions) -> Self {
        SpecOptions {
            transport: TransportKind::Http,
            command: None,
            bind: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            allow_non_loopback: false,
            auth_disabled: false,
            config_path: None,
            server,
            // The spec puts its own generated token (or none, with `auth_none`) in.
            http: HttpConfig::new(Auth::None),
            prompts: None,
            resources: None,
        }
    }

    /// Serve `registry`'s prompts beside the tools (see
    /// [`ServerBuilder::prompts`](crate::server::ServerBuilder::prompts)).
    pub fn prompts(mut self, registry: crate::prompt::PromptRegistry) -> Self {
        self.prompts = Some(registry);
        self
    }

    /// Serve `registry`'s resources and templates beside the tools (see
    /// [`ServerBuilder::resources`](crate::server::ServerBuilder::resources)).
    pub fn resources(mut self, registry: crate::resource::ResourceRegistry) -> Self {
        self.resources = Some(registry);
        self
    }

    /// The stdio projection: the agent CLI spawns `command`, which serves as `server`.
    pub fn stdio(server: ServerOptions, command: StdioCommand) -> Self {
        SpecOptions { transport: TransportKind::Stdio, command: Some(command), ..SpecOptions::http(server) }
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

    /// Write the config here instead of a private temp directory. The file is still 0600,
    /// and rewritten on every `start()`; it and its directory are yours, and `stop()`
    /// leaves them alone.
    pub fn config_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.config_path = Some(path.into());
        self
    }

    /// The engine's options instead of the ones given at construction.
    pub fn server_options(mut self, server: ServerOptions) -> Self {
        self.server = server;
        self
    }

    /// The endpoint's options: allowed hosts and origins, statelessness, body, session and
    /// connection limits. Its [`Auth`] is ignored: the spec generates the token (or serves
    /// without one, after [`auth_none`](Self::auth_none)).
    pub fn http_config(mut self, http: HttpConfig) -> Self {
        self.http = http;
        self
    }
}
