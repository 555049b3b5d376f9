//! [`McpServerSpec`] and [`serve_registry`]: serve a [`Server`] to an agent CLI, and hand back
//! a spec that is complete (URL, token, config file, qualified names) before anything serves.
//!
//! The lifecycle, as the seed fixes it:
//!
//! - [`serve_registry`] is synchronous. It reserves the loopback port by binding it and
//!   holding the socket (asking the OS for a free port and closing it again leaves a window
//!   another agent wins), generates the token, and writes the config file. A busy port is
//!   an error here, in the caller's own frame, naming the address; never a process exit.
//! - [`McpServerSpec::start`] begins listening (on the held socket: the same port every
//!   time) and rewrites the config file; [`McpServerSpec::stop`] stops listening and deletes
//!   the file and the directory the spec created. Both are idempotent, and a spec can be
//!   started again. Dropping the spec stops it.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::registry::{NameMap, RegistryError};
use crate::server::Server;
use crate::transport::http::{Auth, BearerToken, HttpConfig, serve_until};

use super::config::{self, ConfigFile, Endpoint};
use super::options::{SpecOptions, TransportKind};

/// Why a spec could not be made or started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The server name is unusable, or two tool names collide once sanitised.
    #[error(transparent)]
    Names(#[from] RegistryError),
    /// The address could not be bound (a busy port, most often).
    #[error("could not bind {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// A non-loopback address was asked for without saying so explicitly, or without auth.
    #[error(
        "refusing to serve on {addr}: it is not a loopback address; call `.allow_non_loopback()` to mean it, and keep bearer auth on"
    )]
    NotLoopback {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// `transport = stdio` without a command.
    #[error(
        "transport = stdio needs a command: the agent CLI spawns a stdio server itself, in a fresh process, so this process's tools, closures and state do not cross over; pass `.command(StdioCommand::current_exe(args))` naming a binary whose main calls `serve_stdio`"
    )]
    StdioNeedsCommand,
    /// The config file could not be written or removed.
    #[error("could not write the MCP config file {path}: {source}")]
    Config {
        /// The file.
        path: std::path::PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// `start()` was called outside a tokio runtime.
    #[error("start() needs a tokio runtime to serve on; call it from within one")]
    NoRuntime,
}

/// Everything an agent CLI needs to use a served registry, and the switch that serves it.
#[derive(Debug)]
pub struct McpServerSpec {
    name: String,
    server: Server,
    names: NameMap,
    tool_names: Vec<String>,
    requires_approval: Vec<String>,
    auto_approve: Vec<String>,
    caps: Vec<String>,
    endpoint: Endpoint,
    config: ConfigFile,
    http: Option<HttpParts>,
    running: Option<CancellationToken>,
}

#[derive(Debug)]
struct HttpParts {
    /// `None` once a drain closed it ([`McpServerSpec::close_listener`]).
    listener: Option<TcpListener>,
    addr: SocketAddr,
    config: HttpConfig,
}

/// Serve `server` to an agent CLI, and hand back a spec that is complete (URL, token,
/// config file, qualified names) before anything serves. The spec's name is the server's
/// (`serverInfo.name`), and its tool lists are the tools the server serves now (a live
/// server's later changes reach clients as `list_changed`; the spec's lists do not move).
///
/// - It is synchronous. It reserves the loopback port by binding it and holding the socket
///   (asking the OS for a free port and closing it again leaves a window another agent
///   wins), generates the token, and writes the config file. A busy port is an error here,
///   in the caller's own frame, naming the address; never a process exit.
/// - [`McpServerSpec::start`] begins listening (on the held socket: the same port every
///   time) and rewrites the config file; [`McpServerSpec::stop`] stops listening and deletes
///   the file and the directory the spec created. Both are idempotent, and a spec can be
///   started again. Dropping the spec stops it.
///
/// ```
/// use toolwire::spec::SpecOptions;
/// use toolwire::{Server, ServerOptions, serve_registry, tool, tools};
///
/// /// Run the named check and report whether it passed.
/// #[tool(read_only)]
/// fn run_check(name: String) -> String {
///     format!("{name}:ok")
/// }
///
/// /// Deploy the current build.
/// #[tool(side_effecting, requires_approval, caps = ["egress"])]
/// fn deploy(target: String) -> String {
///     format!("deployed to {target}")
/// }
///
/// let server = Server::new(tools![run_check, deploy].unwrap(), ServerOptions::new("engine", "1.0.0"));
/// let spec = serve_registry(server, SpecOptions::http()).unwrap();
/// assert_eq!(spec.tool_names(), ["mcp__engine__deploy", "mcp__engine__run_check"]);
/// assert_eq!(spec.requires_approval(), ["mcp__engine__deploy"]);
/// assert_eq!(spec.auto_approve(), ["mcp__engine__run_check"]);
/// assert_eq!(spec.caps(), ["egress"]);
/// assert!(spec.url().unwrap().starts_with("http://127.0.0.1:"));
/// assert!(spec.claude_cli_args(true).contains(&"--strict-mcp-config".to_owned()));
/// ```
pub fn serve_registry(server: Server, options: SpecOptions) -> Result<McpServerSpec, SpecError> {
    let name = server.options().name().to_owned();
    let name = name.as_str();
    let registry = server.registry();
    let names = registry.qualified_names(name)?;
    let mut tool_names = Vec::new();
    let mut requires_approval = Vec::new();
    let mut auto_approve = Vec::new();
    let mut caps: Vec<String> = Vec::new();
    for tool in registry.iter() {
        let info = tool.info();
        let qualified = names.qualified(info.name()).expect("every tool has a qualified name").to_owned();
        let d = info.declarations();
        if d.requires_approval {
            requires_approval.push(qualified.clone());
        } else {
            auto_approve.push(qualified.clone());
        }
        caps.extend(d.caps.iter().cloned());
        tool_names.push(qualified);
    }
    tool_names.sort();
    requires_approval.sort();
    auto_approve.sort();
    caps.sort();
    caps.dedup();

    let (endpoint, http) = match options.transport {
        TransportKind::Stdio => {
            let command = options.command.clone().ok_or(SpecError::StdioNeedsCommand)?;
            (Endpoint::Stdio { command: command.command, args: command.args, env: command.env }, None)
        }
        TransportKind::Http => {
            let addr = options.bind;
            let config = match options.http.clone() {
                Some(config) => config,
                None => HttpConfig::new(Auth::Bearer(BearerToken::generate())),
            };
            let open = matches!(config.auth, Auth::None);
            if !addr.ip().is_loopback() && (!options.allow_non_loopback || open) {
                return Err(SpecError::NotLoopback { addr });
            }
            let listener = TcpListener::bind(addr).map_err(|source| SpecError::Bind { addr, source })?;
            let addr = listener.local_addr().map_err(|source| SpecError::Bind { addr, source })?;
            // The config file carries the bearer token the endpoint demands; an authenticator
            // of the program's own is one whose credentials the CLI brings itself.
            let token = match &config.auth {
                Auth::Bearer(t) => Some(t.expose().to_owned()),
                _ => None,
            };
            let url = format!("http://{}/mcp", url_host(addr));
            (Endpoint::Http { url, token }, Some(HttpParts { listener: Some(listener), addr, config }))
        }
    };
    let config = match &options.config_path {
        Some(p) => ConfigFile::at(p.clone()),
        None => ConfigFile::in_private_dir(name)
            .map_err(|source| SpecError::Config { path: std::env::temp_dir(), source })?,
    };
    let spec = McpServerSpec {
        name: name.to_owned(),
        server,
        names,
        tool_names,
        requires_approval,
        auto_approve,
        caps,
        endpoint,
        config,
        http,
        running: None,
    };
    spec.write_config()?;
    Ok(spec)
}

/// `127.0.0.1:P`, or `[::1]:P` for IPv6.
fn url_host(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) => a.to_string(),
        SocketAddr::V6(a) => format!("[{}]:{}", a.ip(), a.port()),
    }
}

impl McpServerSpec {
    /// The server name, as configured and in every qualified name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The endpoint's URL (`http://127.0.0.1:P/mcp`); `None` for the stdio transport, which
    /// has no endpoint (a plausible-looking one would be a lie a caller could paste
    /// somewhere).
    pub fn url(&self) -> Option<&str> {
        match &self.endpoint {
            Endpoint::Http { url, .. } => Some(url),
            Endpoint::Stdio { .. } => None,
        }
    }

    /// The address the listener holds (HTTP only).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.http.as_ref().map(|h| h.addr)
    }

    /// The headers a client must send: `Authorization: Bearer <token>` when auth is on.
    pub fn auth_headers(&self) -> BTreeMap<String, String> {
        match &self.endpoint {
            Endpoint::Http { token: Some(t), .. } => {
                BTreeMap::from([("Authorization".to_owned(), format!("Bearer {t}"))])
            }
            _ => BTreeMap::new(),
        }
    }

    /// The bearer token an HTTP client must send (without the `Bearer ` prefix
    /// [`auth_headers`](Self::auth_headers) writes); `None` for stdio or a server without one.
    pub fn bearer_token(&self) -> Option<&str> {
        match &self.endpoint {
            Endpoint::Http { token: Some(t), .. } => Some(t),
            _ => None,
        }
    }

    /// Every tool as the CLI names it, `mcp__<name>__<tool>`, sorted.
    pub fn tool_names(&self) -> &[String] {
        &self.tool_names
    }

    /// The mapping between tool names and qualified names.
    pub fn mcp_names(&self) -> &NameMap {
        &self.names
    }

    /// Qualified names of the tools that declared `requires_approval`.
    pub fn requires_approval(&self) -> &[String] {
        &self.requires_approval
    }

    /// Qualified names of the rest: the list to hand the CLI's `--allowedTools`, which is
    /// what makes it prompt for the others.
    pub fn auto_approve(&self) -> &[String] {
        &self.auto_approve
    }

    /// The union of every tool's capability tags, sorted.
    pub fn caps(&self) -> &[String] {
        &self.caps
    }

    /// How many tool calls the server has seen. Zero means no call ever reached it, which
    /// is a different bug from calls that failed.
    pub fn calls_seen(&self) -> u64 {
        self.server.calls_seen()
    }

    /// Where the `--mcp-config` document is (it exists while the spec is not stopped).
    pub fn config_path(&self) -> &Path {
        &self.config.path
    }

    /// Whether the listener is serving.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The Claude Code arguments that point it at this server and only this server:
    /// `--mcp-config <path> --strict-mcp-config`. Without `--strict-mcp-config` the CLI also
    /// loads whatever servers the working directory or the user's home define.
    ///
    /// `builtin_tools = false` adds `--tools=` (no built-in tools), turning off the CLI's own
    /// Read, Grep and Bash: a statement about what the session can do at all, so it is a
    /// separate choice. It is one argument, not `--tools ""`: `--tools` takes a list, so in
    /// `--tools "" PROMPT` the CLI swallows the prompt as a tool name.
    pub fn claude_cli_args(&self, builtin_tools: bool) -> Vec<String> {
        let mut args = vec![
            "--mcp-config".to_owned(),
            self.config.path.display().to_string(),
            "--strict-mcp-config".to_owned(),
        ];
        if !builtin_tools {
            args.push("--tools=".to_owned());
        }
        args
    }

    /// The Codex projection: the `[mcp_servers.<name>]` table for `config.toml`, and the
    /// environment the Codex process needs (the token, under `bearer_token_env_var`).
    pub fn codex_config(&self) -> CodexConfig {
        let (toml, env) = config::codex_table(&self.name, &self.endpoint);
        CodexConfig { toml, env }
    }

    fn write_config(&self) -> Result<(), SpecError> {
        let doc = config::claude_document(&self.name, &self.endpoint);
        self.config.write(&doc).map_err(|source| SpecError::Config { path: self.config.path.clone(), source })
    }

    /// Begin serving (HTTP) and (re)write the config file. Idempotent.
    pub fn start(&mut self) -> Result<(), SpecError> {
        if self.running.is_some() {
            return Ok(());
        }
        self.write_config()?;
        let stop = CancellationToken::new();
        if let Some(http) = &self.http {
            let handle = tokio::runtime::Handle::try_current().map_err(|_| SpecError::NoRuntime)?;
            let io_err = |source| SpecError::Bind { addr: http.addr, source };
            let held = http.listener.as_ref().ok_or_else(|| {
                io_err(std::io::Error::other("the listener was closed when the server drained"))
            })?;
            let std_listener = held.try_clone().map_err(io_err)?;
            std_listener.set_nonblocking(true).map_err(io_err)?;
            let _guard = handle.enter();
            let listener = tokio::net::TcpListener::from_std(std_listener).map_err(io_err)?;
            // toolwire's own listener (header-read and idle timeouts, a connection cap: see
            // `transport::http::listen`), until `stop` or the config's drain.
            let shutdown = stop.clone();
            let serving = serve_until(listener, self.server.clone(), http.config.clone(), async move {
                shutdown.cancelled().await
            });
            handle.spawn(serving);
        }
        self.running = Some(stop);
        Ok(())
    }

    /// Close the listening socket this spec holds (the accept loop holds a copy until it
    /// stops), so that new connections are refused once a drain began; the spec cannot be
    /// started again after it.
    pub(crate) fn close_listener(&mut self) {
        if let Some(http) = &mut self.http {
            http.listener = None;
        }
    }

    /// Stop serving, and delete the config file and the directory the spec created (a
    /// `config_path` you supplied is yours to keep). Idempotent.
    pub fn stop(&mut self) {
        if let Some(stop) = self.running.take() {
            stop.cancel();
        }
        if let Err(e) = self.config.remove() {
            tracing::warn!(path = %self.config.path.display(), error = %e, "could not remove the MCP config file");
        }
    }

    /// Start, then serve until `shutdown` resolves, then stop.
    pub async fn serve_until(
        &mut self,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), SpecError> {
        self.start()?;
        shutdown.await;
        self.stop();
        Ok(())
    }
}

impl Drop for McpServerSpec {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The Codex side of a spec: a `config.toml` table, and the environment Codex must run
/// with. The token travels in `env`, never in argv.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodexConfig {
    /// `[mcp_servers.<name>]` and its keys.
    pub toml: String,
    /// Variables to set in the Codex process's environment.
    pub env: BTreeMap<String, String>,
}
