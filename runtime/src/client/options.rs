//! How to reach a server and how to talk to it: [`StdioServer`], [`HttpServer`],
//! [`ClientOptions`] (identity, era, roots, handlers, timeouts) and [`ShutdownGrace`].

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde_json::Value;

use super::authorizer::Authorizer;
use super::error::RootCertificateError;
use super::handlers::{
    self, CreateMessageRequest, CreateMessageResult, Direction, ElicitationCompleteFn, ElicitationRequest,
    Elicited, HandlerError, ListChanged, ListChangedFn, LogFn, LogMessage, MessageFn, RequestHandler,
};
use super::intercept::Interceptors;
pub use crate::context::Root;
use crate::protocol::methods;
use crate::server::DEFAULT_MAX_INPUT_ROUNDS;

/// The environment variables a stdio child inherits by default: enough to find programs and
/// a home directory, and nothing that usually holds a credential. Put secrets in
/// [`StdioServer::env`] explicitly.
pub const SAFE_ENV_VARS: &[&str] =
    &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"];

/// How long each step of a stdio child's graceful shutdown may take.
///
/// Shutdown closes the child's stdin and waits `after_stdin`; then sends SIGTERM and waits
/// `after_term`; then sends SIGKILL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownGrace {
    /// How long to wait for the child to exit after its stdin is closed.
    pub after_stdin: Duration,
    /// How long to wait after SIGTERM before SIGKILL.
    pub after_term: Duration,
}

impl ShutdownGrace {
    /// Wait `after_stdin` after closing stdin, then `after_term` after SIGTERM.
    pub fn new(after_stdin: Duration, after_term: Duration) -> Self {
        ShutdownGrace { after_stdin, after_term }
    }
}

impl Default for ShutdownGrace {
    /// 2 s after closing stdin, then 2 s after SIGTERM.
    fn default() -> Self {
        ShutdownGrace { after_stdin: Duration::from_secs(2), after_term: Duration::from_secs(2) }
    }
}

/// A server run as a child process, spoken to over its stdin and stdout.
///
/// The child gets [`SAFE_ENV_VARS`] from this process plus [`env`](StdioServer::env), unless
/// [`inherit_env`](StdioServer::inherit_env) asks for the whole environment. Its stderr is
/// logged through `tracing` (target `toolwire::client::stderr`), never read as an error.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioServer {
    /// The program to run.
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory; this process's when `None`.
    pub cwd: Option<PathBuf>,
    /// Variables set for the child, on top of the inherited ones.
    pub env: BTreeMap<String, String>,
    /// Inherit this process's whole environment instead of the safe set.
    pub inherit_env: bool,
    /// The grace periods of a graceful shutdown.
    pub grace: ShutdownGrace,
}

impl fmt::Debug for StdioServer {
    // Values of `env` are often credentials: only their names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioServer")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("cwd", &self.cwd)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("inherit_env", &self.inherit_env)
            .field("grace", &self.grace)
            .finish()
    }
}

impl StdioServer {
    /// Run `command` with no arguments.
    pub fn new(command: impl Into<PathBuf>) -> Self {
        StdioServer {
            command: command.into(),
            args: Vec::new(),
            cwd: None,
            env: BTreeMap::new(),
            inherit_env: false,
            grace: ShutdownGrace::default(),
        }
    }

    /// Append arguments, as [`std::process::Command::args`] does: `.arg("a").args(["b", "c"])`
    /// runs `command a b c`. (To replace them, set the public `args` field.)
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Append one argument, as [`std::process::Command::arg`] does.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Set the working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Set one environment variable for the child.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Inherit this process's whole environment (default: only [`SAFE_ENV_VARS`]).
    pub fn inherit_env(mut self, yes: bool) -> Self {
        self.inherit_env = yes;
        self
    }

    /// Set the shutdown grace periods.
    pub fn grace(mut self, grace: ShutdownGrace) -> Self {
        self.grace = grace;
        self
    }
}

/// A server reached over Streamable HTTP at `url`: `http://`, or `https://` over TLS. A server
/// that speaks only the 2024-11-05 HTTP+SSE transport is reached at the same kind of URL (its
/// SSE endpoint), by the spec's fallback or by [`legacy_sse`](HttpServer::legacy_sse): see
/// [`HttpTransportKind`].
///
/// HTTPS speaks TLS 1.2 or 1.3 (rustls on *ring*) and HTTP/1.1, asked for by ALPN. The
/// server's certificate must chain to one of Mozilla's root certificates (built in, from
/// `webpki-roots`; the operating system's store is not read) or to a root added with
/// [`root_certificate_pem`](HttpServer::root_certificate_pem), such as a private CA, and be
/// valid for the URL's host. A certificate that is not fails the connection as
/// [`ClientError::Unavailable`](super::ClientError::Unavailable), whose reason says why in
/// our words, e.g. "the server's certificate is not trusted: no known certificate authority
/// issued it". Any other scheme is [`ClientError::UnsupportedScheme`](super::ClientError::UnsupportedScheme)
/// at connect.
///
/// ```
/// # fn demo(private_ca_pem: &[u8]) -> Result<(), toolwire::client::RootCertificateError> {
/// use toolwire::client::HttpServer;
///
/// let hosted = HttpServer::new("https://mcp.example.com/mcp").bearer_env("EXAMPLE_MCP_TOKEN");
/// let internal = HttpServer::new("https://tools.internal:8443/mcp").root_certificate_pem(private_ca_pem)?;
/// # let _ = (hosted, internal);
/// # Ok(()) }
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpServer {
    /// The MCP endpoint, e.g. `http://127.0.0.1:3001/mcp` or `https://mcp.example.com/mcp`.
    pub url: String,
    /// Headers sent with every request (a bearer token is better set with
    /// [`bearer`](HttpServer::bearer) or [`bearer_env`](HttpServer::bearer_env)).
    pub headers: BTreeMap<String, String>,
    /// How long one HTTP exchange may take (connecting and the response's head, or a
    /// whole JSON body) before the server counts as unreachable (30 s). It is the
    /// transport's bound, beside the call's: see the precedence in the [`client`](super)
    /// module docs.
    pub timeout: Duration,
    /// Which HTTP transport to speak: Streamable HTTP, falling back to the 2024-11-05
    /// HTTP+SSE transport as the spec says (the default), or one of them only.
    pub kind: HttpTransportKind,
    /// Trust anchors for `https://` besides the built-in roots, each checked when added.
    roots: Vec<CertificateDer<'static>>,
    /// The bearer token, sent as `Authorization: Bearer <token>`.
    bearer: Option<Bearer>,
    /// What supplies the `Authorization` header instead (OAuth), asked before each request.
    authorizer: Option<SharedAuthorizer>,
}

/// An [`Authorizer`] shared by every clone of an [`HttpServer`]; two are equal when they are
/// the same one.
#[derive(Clone)]
pub(crate) struct SharedAuthorizer(pub(crate) Arc<dyn Authorizer>);

impl PartialEq for SharedAuthorizer {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedAuthorizer {}

/// Where an [`HttpServer`]'s bearer token comes from.
#[derive(Clone, PartialEq, Eq)]
enum Bearer {
    /// The token itself.
    Value(String),
    /// The environment variable holding it, read at connect time.
    Env(String),
}

impl fmt::Debug for HttpServer {
    // Header values are often credentials: only their names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpServer")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .field("kind", &self.kind)
            .field("root_certificates", &self.roots.len())
            .field(
                "bearer",
                &match &self.bearer {
                    None => "none".to_owned(),
                    Some(Bearer::Value(_)) => "a token".to_owned(),
                    Some(Bearer::Env(var)) => format!("from ${var}"),
                },
            )
            .field("authorizer", &self.authorizer.is_some())
            .finish()
    }
}

impl HttpServer {
    /// The endpoint at `url`, no extra headers, a 30 s exchange timeout, the built-in roots.
    pub fn new(url: impl Into<String>) -> Self {
        HttpServer {
            url: url.into(),
            headers: BTreeMap::new(),
            timeout: Duration::from_secs(30),
            kind: HttpTransportKind::default(),
            roots: Vec::new(),
            bearer: None,
            authorizer: None,
        }
    }

    /// Ask `authorizer` for the `Authorization` header before every request, and tell it
    /// about a 401 or 403 (see [`Authorizer`]); it wins over [`bearer`](Self::bearer) and an
    /// `Authorization` [`header`](Self::header). The OAuth client
    /// ([`oauth::OAuth`](super::oauth::OAuth), feature `client-oauth`) is one.
    ///
    /// Streamable HTTP only: the 2024-11-05 HTTP+SSE transport
    /// ([`legacy_sse`](Self::legacy_sse), or the fallback to it) predates MCP's authorization
    /// spec, and sends the configured [`bearer`](Self::bearer) and headers without asking the
    /// authorizer; a 401 there fails as [`ClientError::Unauthorized`](super::ClientError::Unauthorized).
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(SharedAuthorizer(authorizer));
        self
    }

    /// The authorizer, if one is set.
    pub(crate) fn authorizer_ref(&self) -> Option<Arc<dyn Authorizer>> {
        self.authorizer.as_ref().map(|a| Arc::clone(&a.0))
    }

    /// Send `Authorization: Bearer <token>` with every request (it replaces a bearer set
    /// before, and wins over an `Authorization` [`header`](Self::header)).
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(Bearer::Value(token.into()));
        self
    }

    /// Send `Authorization: Bearer <token>` with the token read from the environment
    /// variable `var` when the client connects (not now). An unset or empty variable fails
    /// [`Client::connect`](super::Client::connect) with [`ClientError::Config`](super::ClientError::Config):
    /// `server 'search': the bearer token's environment variable SEARCH_TOKEN is not set`.
    pub fn bearer_env(mut self, var: impl Into<String>) -> Self {
        self.bearer = Some(Bearer::Env(var.into()));
        self
    }

    /// The headers to send: [`headers`](Self::headers) with the bearer token, read now,
    /// as `Authorization`. `Err` names the unset variable, for the caller's message.
    pub(crate) fn resolved_headers(&self) -> Result<BTreeMap<String, String>, String> {
        let mut headers = self.headers.clone();
        let token = match &self.bearer {
            None => return Ok(headers),
            Some(Bearer::Value(token)) => token.clone(),
            Some(Bearer::Env(var)) => match std::env::var(var) {
                Ok(token) if !token.is_empty() => token,
                Ok(_) => return Err(format!("the bearer token's environment variable {var} is empty")),
                Err(_) => return Err(format!("the bearer token's environment variable {var} is not set")),
            },
        };
        headers.retain(|k, _| !k.eq_ignore_ascii_case("authorization"));
        headers.insert("Authorization".to_owned(), format!("Bearer {token}"));
        Ok(headers)
    }

    /// Add a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Set the exchange timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Choose the HTTP transport (default [`HttpTransportKind::Auto`]).
    pub fn kind(mut self, kind: HttpTransportKind) -> Self {
        self.kind = kind;
        self
    }

    /// Speak only the 2024-11-05 HTTP+SSE transport: `url` is the server's SSE endpoint
    /// (often `…/sse`). Short for `.kind(HttpTransportKind::LegacySse)`.
    pub fn legacy_sse(self) -> Self {
        self.kind(HttpTransportKind::LegacySse)
    }

    /// Also trust the certificates in `pem` (e.g. a private CA) for `https://`, besides the
    /// built-in roots. Every `CERTIFICATE` block is added; other blocks (keys) are skipped.
    ///
    /// Fails when `pem` holds no certificate, cannot be read, or holds a certificate that
    /// cannot serve as a trust anchor; nothing is added then.
    pub fn root_certificate_pem(mut self, pem: &[u8]) -> Result<Self, RootCertificateError> {
        let mut found = Vec::new();
        for item in CertificateDer::pem_slice_iter(pem) {
            let der = item.map_err(|e| RootCertificateError::BadPem { source: Arc::new(e) })?;
            found.push(der);
        }
        if found.is_empty() {
            return Err(RootCertificateError::NoCertificate);
        }
        for (i, der) in found.iter().enumerate() {
            check_anchor(der, i + 1)?;
        }
        self.roots.extend(found);
        Ok(self)
    }

    /// Also trust the DER-encoded certificate `der` for `https://`, besides the built-in
    /// roots. Fails when it cannot serve as a trust anchor.
    pub fn root_certificate_der(mut self, der: &[u8]) -> Result<Self, RootCertificateError> {
        let der = CertificateDer::from(der.to_vec());
        check_anchor(&der, 1)?;
        self.roots.push(der);
        Ok(self)
    }

    /// The added trust anchors, DER-encoded, in the order they were added.
    pub fn root_certificates(&self) -> impl Iterator<Item = &[u8]> {
        self.roots.iter().map(|c| c.as_ref())
    }

    /// The added trust anchors, for the TLS configuration.
    pub(crate) fn roots(&self) -> &[CertificateDer<'static>] {
        &self.roots
    }
}

/// Which HTTP transport an [`HttpServer`] speaks.
///
/// The 2024-11-05 HTTP+SSE transport is the one Streamable HTTP replaced in 2025-03-26: the
/// client opens a `GET` SSE stream at the URL, the server's first event (`endpoint`) names the
/// URL to `POST` each message to, and every answer comes back on that one stream. Many hosted
/// servers, the Python SDK's `sse` app and the TypeScript SDK v1's `SSEServerTransport` still
/// speak only it. How the client speaks it, and what a broken stream means for calls, is in
/// the [`client`](super) module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum HttpTransportKind {
    /// Streamable HTTP, and the spec's backwards-compatibility rule: when the `initialize`
    /// POST (the first message of a connection) is answered 400, 404 or 405, the client
    /// tries the 2024-11-05 HTTP+SSE transport at the same URL. No other status, and no later
    /// message, falls back.
    #[default]
    Auto,
    /// Streamable HTTP only: a 4xx to `initialize` fails the connection.
    StreamableHttp,
    /// The 2024-11-05 HTTP+SSE transport only; the URL is the SSE endpoint.
    LegacySse,
}

/// Refuse `der` (the `index`th certificate, from 1) unless it can serve as a trust anchor.
fn check_anchor(der: &CertificateDer<'static>, index: usize) -> Result<(), RootCertificateError> {
    rustls::RootCertStore::empty()
        .add(der.clone())
        .map_err(|source| RootCertificateError::Unusable { index, source })
}

/// Where a server is: a child process or an HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerTransport {
    /// A child process over stdio.
    Stdio(StdioServer),
    /// Streamable HTTP.
    Http(HttpServer),
}

impl From<StdioServer> for ServerTransport {
    fn from(s: StdioServer) -> Self {
        ServerTransport::Stdio(s)
    }
}

impl From<HttpServer> for ServerTransport {
    fn from(s: HttpServer) -> Self {
        ServerTransport::Http(s)
    }
}

/// Which protocol era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum EraMode {
    /// The `initialize` handshake (2025-11-25, counter-offers accepted down to 2024-11-05).
    #[default]
    Legacy,
    /// 2026-07-28 only: `server/discover`, then version and capabilities in every request's
    /// `_meta`.
    Modern,
    /// Probe with `server/discover`; fall back to `initialize` when the server does not
    /// answer it as a modern server would.
    Auto,
}

/// How a [`Client`](super::Client) presents itself and behaves, set with consuming setters:
/// `ClientOptions::new("fs").era(EraMode::Auto).request_timeout(d)`.
#[derive(Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    pub(crate) name: String,
    pub(crate) client_name: String,
    pub(crate) client_version: String,
    pub(crate) era: EraMode,
    pub(crate) request_timeout: Duration,
    pub(crate) probe_timeout: Duration,
    pub(crate) roots: Option<Vec<Root>>,
    pub(crate) sampling: Option<RequestHandler>,
    pub(crate) sampling_tools: bool,
    pub(crate) elicitation: Option<RequestHandler>,
    pub(crate) elicitation_url: bool,
    pub(crate) cache_ttl: Duration,
    pub(crate) max_input_rounds: u32,
    pub(crate) tasks: bool,
    pub(crate) on_log: Option<LogFn>,
    pub(crate) on_list_changed: Option<ListChangedFn>,
    pub(crate) on_elicitation_complete: Option<ElicitationCompleteFn>,
    pub(crate) on_message: Option<MessageFn>,
    /// What sees every request before it is sent ([`intercept`](Self::intercept)).
    pub(crate) interceptors: Interceptors,
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("name", &self.name)
            .field("era", &self.era)
            .field("request_timeout", &self.request_timeout)
            .field("roots", &self.roots)
            .field("sampling", &self.sampling.is_some())
            .field("sampling_tools", &self.sampling_tools)
            .field("elicitation", &self.elicitation.is_some())
            .field("elicitation_url", &self.elicitation_url)
            .field("cache_ttl", &self.cache_ttl)
            .field("tasks", &self.tasks)
            .field("max_input_rounds", &self.max_input_rounds)
            .field("on_log", &self.on_log.is_some())
            .field("on_list_changed", &self.on_list_changed.is_some())
            .field("on_message", &self.on_message.is_some())
            .field("interceptors", &self.interceptors.len())
            .finish_non_exhaustive()
    }
}

impl ClientOptions {
    /// Options for the server you call `name`: legacy era, 30 s request timeout, 5 s `auto`
    /// probe, 30 s cache TTL where the server gives no hint, no roots and no handlers, `clientInfo` `toolwire` and its
    /// version.
    ///
    /// `name` is used in every message, in the untrusted-data envelope and as the default
    /// adoption prefix. The server's self-reported name is never used for these.
    pub fn new(name: impl Into<String>) -> Self {
        ClientOptions {
            name: name.into(),
            client_name: "toolwire".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            era: EraMode::default(),
            request_timeout: Duration::from_secs(30),
            probe_timeout: Duration::from_secs(5),
            roots: None,
            sampling: None,
            sampling_tools: false,
            elicitation: None,
            elicitation_url: false,
            cache_ttl: Duration::from_secs(30),
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            tasks: false,
            on_log: None,
            on_list_changed: None,
            on_elicitation_complete: None,
            on_message: None,
            interceptors: Interceptors::default(),
        }
    }

    /// The server's name as you configured it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Send `name` and `version` as `clientInfo`.
    pub fn client_info_as(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_name = name.into();
        self.client_version = version.into();
        self
    }

    /// How long the `auto` probe waits for an answer to `server/discover` before falling
    /// back (5 s).
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// How long a list stays cached when the server gives no caching hint and speaks a
    /// legacy version, whose servers never do (30 s). A server's `ttlMs` hint always wins;
    /// on a modern connection a list without one is not cached (the spec's default of 0).
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Set the era.
    pub fn era(mut self, era: EraMode) -> Self {
        self.era = era;
        self
    }

    /// Set the roots answered to `roots/list` (and to a 2026-07-28 `roots/list` input
    /// request); the `roots` capability is declared, with `listChanged`, only when set.
    /// [`Client::set_roots`](super::Client::set_roots) changes them later.
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// How long any request may take when nothing more specific is set (30 s): the
    /// handshake, the list calls, and every tool call whose own timeout is unset, adopted
    /// tools included, so a hung server never holds a caller forever. The precedence is in
    /// the [`client`](super) module docs.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Declare sampling with tools (`sampling.tools`): the sampling handler may be sent
    /// [`CreateMessageRequest::tools`](super::CreateMessageRequest::tools) and `toolChoice`, read
    /// earlier calls with [`SamplingMessage::tool_uses`](super::SamplingMessage::tool_uses) and
    /// [`tool_results`](super::SamplingMessage::tool_results), and answer a call with
    /// [`CreateMessageResult::tool_use`](super::CreateMessageResult::tool_use). Without it a
    /// server must not send tools. Has no effect without a sampling handler.
    pub fn sampling_with_tools(mut self) -> Self {
        self.sampling_tools = true;
        self
    }

    /// Answer `sampling/createMessage` with `handler`, raw JSON in and out; the capability
    /// is declared only when set. [`on_sample`](Self::on_sample) is the typed form.
    pub fn sampling(mut self, handler: RequestHandler) -> Self {
        self.sampling = Some(handler);
        self
    }

    /// Answer `elicitation/create` with `handler`, raw JSON in and out; the capability is
    /// declared only when set. [`on_elicit`](Self::on_elicit) is the typed form.
    pub fn elicitation(mut self, handler: RequestHandler) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Answer the server's questions to the user (`elicitation/create`, or a 2026-07-28
    /// elicitation input request) with `handler`: it sees the message and the form's schema
    /// (or the URL) and answers [`Elicited::accept`], [`decline`](Elicited::decline) or
    /// [`cancel`](Elicited::cancel). Declares `elicitation` (form mode; add
    /// [`elicitation_url`](Self::elicitation_url) for URL mode). Params that are not an
    /// elicitation are refused with -32602 before `handler` runs; an `Err` is sent back
    /// as a JSON-RPC error (legacy) or fails the call (2026-07-28).
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Elicited, HandlerError>> + Send + 'static,
    {
        self.elicitation =
            Some(handlers::typed(methods::ELICITATION_CREATE, ElicitationRequest::from_params, handler));
        self
    }

    /// Also declare URL-mode elicitation (`elicitation: {"form": {}, "url": {}}`,
    /// 2025-11-25): the elicitation handler is then also given
    /// [`ElicitationMode::Url`](super::ElicitationMode::Url) requests. Without it a URL
    /// request is refused with -32602 and the handler never sees one. With it, a request
    /// refused with -32042 (`URLElicitationRequiredError`) has its URL elicitations given to
    /// the handler, and is sent again, once, when the user accepted them all. Needs an
    /// elicitation handler to take effect.
    pub fn elicitation_url(mut self, yes: bool) -> Self {
        self.elicitation_url = yes;
        self
    }

    /// Answer the server's requests for the client's model (`sampling/createMessage`, or a
    /// 2026-07-28 sampling input request) with `handler`: it gets the conversation and
    /// answers a [`CreateMessageResult`]. Declares `sampling`. Params that are not a
    /// sampling request are refused with -32602 before `handler` runs.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CreateMessageRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, HandlerError>> + Send + 'static,
    {
        self.sampling = Some(handlers::typed(
            methods::SAMPLING_CREATE_MESSAGE,
            CreateMessageRequest::from_params,
            handler,
        ));
        self
    }

    /// How many `input_required` rounds (2026-07-28) one `tools/call`, `prompts/get` or
    /// `resources/read` may take before the client gives up ([`DEFAULT_MAX_INPUT_ROUNDS`],
    /// 8): each round answers every input request through the handlers, concurrently, and
    /// retries with the answers and the server's `requestState`. Past the limit the call
    /// fails naming the server, the tool and the limit.
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// Take tasks (the tasks extension, `io.modelcontextprotocol/tasks`): declare it on
    /// every 2026-07-28 request, so that a server may answer a long call with a task instead
    /// of holding the request open. Off by default.
    ///
    /// A call answered with a task is driven to its end before it returns, whatever made it
    /// ([`Client::call_tool`](super::Client::call_tool), an adopted tool, a typed handle):
    /// `tasks/get` every `pollIntervalMs` the server suggests (at least 10 ms, at most 5 s);
    /// its input requests answered through the handlers, each key once, with `tasks/update`;
    /// its status message, each time it changes, reported as progress (to
    /// [`CallOptions::progress`](super::CallOptions::progress)); the call's cancellation and
    /// its timeout (which bounds the whole task) sent as `tasks/cancel`. A task that fails is
    /// the JSON-RPC error it carries; one cancelled is the call cancelled. To hold a task
    /// yourself instead, see [`Client::get_task`](super::Client::get_task) and
    /// [`Client::cancel_task`](super::Client::cancel_task).
    ///
    /// Off, a call of a tool the server runs only as a task is declined (JSON-RPC -32021), and
    /// reads as [`RemoteError::TasksRequired`](crate::tool::RemoteError::TasksRequired)
    /// (`ClientError::TasksRequired` for `get_task` and other requests), whose message says
    /// to set this.
    pub fn tasks(mut self, on: bool) -> Self {
        self.tasks = on;
        self
    }

    /// See every message the client sends and receives, whatever the transport, as JSON
    /// text, before it leaves or before it is read: for logging and recording (a message
    /// cannot be changed here; a transport of your own can, see
    /// [`Transport`](super::Transport)). What a transport sends on its own is not seen (HTTP's
    /// `initialize` replayed for a lost session, its `GET` and `DELETE`).
    pub fn on_message(mut self, observer: impl Fn(Direction, &str) + Send + Sync + 'static) -> Self {
        self.on_message = Some(Arc::new(observer));
        self
    }

    /// See every request the client sends just before it is written, with `interceptor`: it
    /// may add to its `_meta` and its headers, answer it, refuse it, or pass it on and watch
    /// how it ends (module [`intercept`](super::SendInterceptor)). Called again, the interceptors
    /// run in the order they were installed. A client with none pays one branch a request.
    pub fn intercept(mut self, interceptor: impl super::SendInterceptor) -> Self {
        self.interceptors.push(Arc::new(interceptor));
        self
    }

    /// Receive every `notifications/message` the server sends, with its level, logger and
    /// data. Set the least severe level wanted with
    /// [`Client::set_level`](super::Client::set_level) (a legacy server's default is its
    /// own; a 2026-07-28 server logs nothing for a request without a level).
    pub fn on_log(mut self, handler: impl Fn(LogMessage) + Send + Sync + 'static) -> Self {
        self.on_log = Some(Arc::new(handler));
        self
    }

    /// Be told when the server's tools, resources or prompts change
    /// (`notifications/*/list_changed`); the client's cache of that list is dropped first.
    pub fn on_list_changed(mut self, handler: impl Fn(ListChanged) + Send + Sync + 'static) -> Self {
        self.on_list_changed = Some(Arc::new(handler));
        self
    }

    /// Be told when a URL elicitation this client accepted is finished
    /// (`notifications/elicitation/complete`), with its `elicitationId`. A notification
    /// for an id this client never accepted, or one already completed, is ignored.
    pub fn on_elicitation_complete(mut self, handler: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_elicitation_complete = Some(Arc::new(handler));
        self
    }

    /// The `capabilities` object this client declares.
    pub(crate) fn capabilities(&self) -> Value {
        let mut caps = serde_json::Map::new();
        if self.roots.is_some() {
            caps.insert("roots".into(), serde_json::json!({"listChanged": true}));
        }
        if self.sampling.is_some() {
            let sampling =
                if self.sampling_tools { serde_json::json!({"tools": {}}) } else { serde_json::json!({}) };
            caps.insert("sampling".into(), sampling);
        }
        if self.elicitation.is_some() {
            let modes = if self.elicitation_url {
                serde_json::json!({"form": {}, "url": {}})
            } else {
                serde_json::json!({})
            };
            caps.insert("elicitation".into(), modes);
        }
        if self.tasks {
            let mut extensions = serde_json::Map::new();
            extensions.insert(crate::protocol::wire::TASKS_EXTENSION.into(), serde_json::json!({}));
            caps.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(caps)
    }

    /// `clientInfo`.
    pub(crate) fn client_info(&self) -> Value {
        serde_json::json!({"name": self.client_name, "version": self.client_version})
    }
}

/// What may happen to a call if the worker running it dies mid-call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryGuarantee {
    /// The tool is read-only or idempotent: a call may be re-run.
    AtLeastOnce,
    /// The tool may have effects that must not happen twice: a call is never re-run, and an
    /// interrupted one is an unknown outcome.
    AtMostOnce,
}

impl DeliveryGuarantee {
    /// `"at_least_once"` or `"at_most_once"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryGuarantee::AtLeastOnce => "at_least_once",
            DeliveryGuarantee::AtMostOnce => "at_most_once",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_append_as_command_args_does() {
        let s = StdioServer::new("x").arg("a").args(["b", "c"]).arg("d").args(Vec::<String>::new());
        assert_eq!(s.args, ["a", "b", "c", "d"]);
    }

    #[test]
    fn a_bearer_token_replaces_any_authorization_header() {
        let s =
            HttpServer::new("http://h/mcp").header("authorization", "Basic x").header("X-A", "1").bearer("T");
        let headers = s.resolved_headers().unwrap();
        assert_eq!(headers.get("Authorization").map(String::as_str), Some("Bearer T"));
        assert_eq!(headers.len(), 2);
        // Debug never shows a token.
        assert!(format!("{s:?}").contains("bearer: \"a token\""), "{s:?}");
        assert!(!format!("{s:?}").contains("Bearer"), "{s:?}");
        let unset = "TOOLWIRE_SURELY_UNSET_TOKEN_VARIABLE";
        assert_eq!(
            HttpServer::new("http://h/mcp").bearer_env(unset).resolved_headers().unwrap_err(),
            format!("the bearer token's environment variable {unset} is not set")
        );
        assert!(format!("{:?}", HttpServer::new("u").bearer_env(unset)).contains(&format!("from ${unset}")));
    }
}
