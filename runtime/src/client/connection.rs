//! [`Client`]: one live connection to one MCP server, with the era negotiated, the tool list
//! cached, and tool calls bounded by a timeout and the caller's cancellation.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::conn::{Conn, Failure, ProgressFn, RequestOpts};
use super::error::ClientError;
use super::listen::{Listener, Lists};
use super::normalise::{DEFAULT_ADOPTED_RESULT_BYTES, call_result, seal, truncate};
use super::options::DeliveryGuarantee;
use super::options::{ClientOptions, EraMode};
use super::rounds::{self, RoundFailure};
use super::transport::{Incoming, Link, Outgoing, Transport};
use super::wire::{Cached, CallResult, ListedResource, ListedResourceTemplate, ListedTool, ServerInfo};
use crate::protocol::methods;
use crate::protocol::param_headers::{self, HeaderParam, mirror};
use crate::protocol::{Era, ProtocolVersion, wire};
use crate::sync::lock;
use crate::tool::{RemoteError, ToolError};

/// The modern (stateless) version this client speaks.
const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

/// The reason a connection closed by [`Client::close`] gives.
const CLOSED_BY_CLIENT: &str = "was closed by the client";

/// Whether `name` is a handshake version this client speaks.
fn is_legacy(name: &str) -> bool {
    ProtocolVersion::parse(name).is_some_and(|v| v.era() == Era::Legacy)
}

/// Per-call knobs for [`Client::call_tool`], set with consuming setters:
/// `CallOptions::new().timeout(d).cancel(token)`.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    timeout: Option<Duration>,
    cancel: Option<CancellationToken>,
    progress: Option<ProgressFn>,
    meta: Option<serde_json::Map<String, Value>>,
    delivery: Option<DeliveryGuarantee>,
    /// Headers for the call's HTTP request, decided by the caller (an adopted tool's
    /// `Mcp-Param-*`, none included); unset, [`Client::call_tool`] mirrors them itself.
    headers: Option<Vec<(String, String)>>,
}

impl CallOptions {
    /// The client's timeout ([`ClientOptions::request_timeout`](super::ClientOptions::request_timeout)),
    /// no cancellation, no progress, no extra `_meta`, at-most-once delivery.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// Give up after this long, send `notifications/cancelled`, and ignore a late answer. It
    /// wins over every other knob (the precedence is in the [`client`](super) module docs);
    /// unset, the client's [`request_timeout`](super::ClientOptions::request_timeout) bounds
    /// the call.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Like [`timeout`](Self::timeout); `None` leaves the client's.
    pub fn timeout_opt(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// The caller's cancellation: checked before dispatch, and watched while waiting.
    pub fn cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Receive `notifications/progress` for this call (a `progressToken` is sent).
    pub fn progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Extra `_meta` members for the server, e.g. a run id or an idempotency key for a
    /// server that deduplicates. The reserved members this client sets win over these.
    pub fn meta(mut self, meta: serde_json::Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// What may happen if the call is cut off after it was sent: with
    /// [`DeliveryGuarantee::AtMostOnce`] (the default, as MCP treats a tool it knows nothing about)
    /// it fails as [`RemoteError::OutcomeUnknown`], not retryable; with
    /// [`DeliveryGuarantee::AtLeastOnce`] (a read-only or idempotent tool) as
    /// [`RemoteError::Unavailable`], retryable.
    pub fn delivery(mut self, delivery: DeliveryGuarantee) -> Self {
        self.delivery = Some(delivery);
        self
    }

    /// Headers the call's request carries, ready to send (an adopted tool's `Mcp-Param-*`,
    /// from `protocol::param_headers::mirror`).
    pub(crate) fn headers(mut self, headers: Vec<(String, String)>) -> Self {
        self.headers = Some(headers);
        self
    }

    /// The delivery an interrupted call is judged by.
    fn delivery_or_default(&self) -> DeliveryGuarantee {
        self.delivery.unwrap_or(DeliveryGuarantee::AtMostOnce)
    }
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("cancel", &self.cancel.is_some())
            .field("progress", &self.progress.is_some())
            .field("meta", &self.meta)
            .field("delivery", &self.delivery_or_default())
            .finish()
    }
}

pub(crate) struct Inner {
    pub(crate) conn: Arc<Conn>,
    pub(crate) options: ClientOptions,
    info: ServerInfo,
    link: tokio::sync::Mutex<Option<Box<dyn Link>>>,
    pid: Option<u32>,
    tools: Mutex<Option<Cached<Arc<[ListedTool]>>>>,
    /// The tools of the list last read that declare `x-mcp-header` parameters (SEP-2243),
    /// valid declarations only, by name; and the `tools_generation` it was read at.
    param_headers: Mutex<(u64, Declared)>,
    pub(crate) resources: Mutex<Option<Cached<Arc<[ListedResource]>>>>,
    pub(crate) templates: Mutex<Option<Cached<Arc<[ListedResourceTemplate]>>>>,
    /// The `subscriptions/listen` kept open on a modern connection.
    pub(crate) listener: Option<Listener>,
}

/// The tools that declare `x-mcp-header` parameters, with those parameters, by tool name.
type Declared = Arc<[(String, Vec<HeaderParam>)]>;

/// A live connection to one MCP server.
///
/// Cheap to clone; clones share the connection. The child process (stdio) is killed when
/// the last clone is dropped; [`close`](Client::close) shuts it down gracefully instead.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.inner.options.name)
            .field("protocol_version", &self.inner.info.protocol_version)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connect: start the transport (spawn the child, reach the endpoint, or anything a
    /// [`Transport`] does), then negotiate the era and version.
    ///
    /// A failure half-way through tears down what was started: no child outlives an
    /// `initialize` that failed.
    pub async fn connect(transport: impl Transport, options: ClientOptions) -> Result<Client, ClientError> {
        Client::connect_boxed(Box::new(transport), options).await
    }

    /// [`connect`](Self::connect) with a transport chosen at run time.
    pub async fn connect_boxed(
        transport: Box<dyn Transport>,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let (conn, outbox) = Conn::new(options.clone());
        let incoming = Incoming(Arc::downgrade(&conn));
        let mut link = transport.start(Outgoing(outbox), incoming).await?;
        let info = match negotiate(&conn, &options).await {
            Ok(info) => info,
            Err(e) => {
                conn.shut("was closed after a failed handshake");
                link.close().await;
                return Err(e);
            }
        };
        conn.set_version(&info.protocol_version);
        link.set_protocol_version(&info.protocol_version);
        let pid = link.pid();
        let listener =
            conn.is_modern().then(|| Listener::start(&conn, Lists::from_capabilities(&info.capabilities)));
        Ok(Client {
            inner: Arc::new(Inner {
                conn,
                options,
                info,
                link: tokio::sync::Mutex::new(Some(link)),
                pid,
                tools: Mutex::default(),
                param_headers: Mutex::new((0, Arc::new([]))),
                resources: Mutex::default(),
                templates: Mutex::default(),
                listener,
            }),
        })
    }

    /// Close the connection: caches are dropped, a stdio child is shut down gracefully (close
    /// stdin, SIGTERM, SIGKILL), an HTTP session is ended with `DELETE`. Idempotent; every
    /// later request fails with [`ClientError::Closed`].
    pub async fn close(&self) {
        self.inner.conn.shut(CLOSED_BY_CLIENT);
        *lock(&self.inner.tools) = None;
        *lock(&self.inner.resources) = None;
        *lock(&self.inner.templates) = None;
        let link = self.inner.link.lock().await.take();
        if let Some(mut link) = link {
            link.close().await;
        }
    }

    /// The server's name as you configured it.
    pub fn name(&self) -> &str {
        &self.inner.options.name
    }

    /// What the server said about itself.
    pub fn server_info(&self) -> &ServerInfo {
        &self.inner.info
    }

    /// How many `notifications/tools/list_changed` the server has sent; each one drops the
    /// tool cache.
    pub fn tools_list_changed(&self) -> u64 {
        self.inner.conn.tools_generation.load(Ordering::SeqCst)
    }

    /// The child's process id (stdio only).
    pub fn pid(&self) -> Option<u32> {
        self.inner.pid
    }

    /// Why the connection is closed (the child exited, the transport or the client closed
    /// it), or `None` while it is open. Reads a flag: no message is sent, so a supervisor
    /// may poll it. An HTTP server that went away is noticed only by the next request.
    pub fn closed_reason(&self) -> Option<String> {
        self.inner.conn.closed_reason()
    }

    /// Send any request and return its raw `result`, with the client's
    /// [`request_timeout`](ClientOptions::request_timeout): the way to reach what the typed
    /// methods do not keep (a member of a listed tool [`ListedTool`] has no field for, a
    /// method this crate has no helper for).
    ///
    /// `params` is the request's `params` object; `None` (or `Some(Value::Null)`) sends none.
    /// On a 2026-07-28 connection the per-request `_meta` members (protocol version, client
    /// capabilities and info, log level) are added as for every other request, over any
    /// `_meta` of yours of the same names. Nothing else is done for you: the result is the
    /// server's, unvalidated and untrusted; a list is one page (follow `nextCursor`
    /// yourself); a 2026-07-28 `input_required` result is returned as it came, not answered.
    ///
    /// Fails as the typed requests do: a JSON-RPC error answer is [`ClientError::Rpc`],
    /// whose display names the method and code and whose `server_message` keeps the
    /// server's own text (never displayed: it is untrusted); a timeout
    /// [`ClientError::Timeout`], a closed client [`ClientError::Closed`]. `params` that are
    /// not an object (JSON-RPC allows an array, MCP never uses one) are refused before
    /// anything is sent, as [`ClientError::Config`].
    ///
    /// ```no_run
    /// # async fn f(client: toolwire::client::Client) -> Result<(), toolwire::client::ClientError> {
    /// let page = client.request("tools/list", None).await?;
    /// let execution = &page["tools"][0]["execution"];
    /// # Ok(()) }
    /// ```
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, ClientError> {
        self.request_with(method, params, CallOptions::new()).await
    }

    /// [`request`](Self::request) with per-request knobs: [`CallOptions::timeout`] and
    /// [`cancel`](CallOptions::cancel) as for a tool call (a timed-out or cancelled request
    /// is followed by `notifications/cancelled`), [`progress`](CallOptions::progress) (a
    /// `progressToken` is sent), and [`meta`](CallOptions::meta), merged into `params`'
    /// `_meta` (the options' members win over those in `params`, the client's reserved ones
    /// over both). [`delivery`](CallOptions::delivery) does not apply: a raw request's
    /// interruption is [`ClientError::Unavailable`] whatever it says.
    pub async fn request_with(
        &self,
        method: &str,
        params: Option<Value>,
        options: CallOptions,
    ) -> Result<Value, ClientError> {
        let mut params = self.params_object(method, params)?;
        if let Some(extra) = options.meta {
            let meta = params.entry("_meta").or_insert_with(|| Value::Object(serde_json::Map::new()));
            match meta {
                Value::Object(meta) => meta.extend(extra),
                other => *other = Value::Object(extra),
            }
        }
        let timeout = options.timeout.unwrap_or(self.inner.options.request_timeout);
        let opts = RequestOpts {
            timeout: Some(timeout),
            cancel: options.cancel,
            progress: options.progress,
            ..RequestOpts::default()
        };
        let result = self.inner.conn.request_with(method, std::borrow::Cow::Owned(params), opts).await;
        match result {
            Ok(raw) => Ok(serde_json::from_str(raw.get()).unwrap_or(Value::Null)),
            Err(f) => Err(self.client_error(method, timeout, f)),
        }
    }

    /// Send any notification (no answer is awaited), e.g. one this crate has no helper for.
    /// `params` as for [`request`](Self::request); sent as given, with no `_meta` added.
    /// Fails only when the connection is already closed ([`ClientError::Closed`] after
    /// [`close`](Self::close), else [`ClientError::Unavailable`]) or `params` is not an
    /// object; a notification the transport then fails to deliver is lost silently, as
    /// JSON-RPC notifications are.
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let params = self.params_object(method, params)?;
        if let Some(reason) = self.inner.conn.closed_reason() {
            return Err(self.client_error(method, Duration::ZERO, Failure::Gone(reason)));
        }
        let params = (!params.is_empty()).then_some(Value::Object(params));
        self.inner.conn.notify(method, params);
        Ok(())
    }

    /// A raw request's or notification's `params` as an object (`None` and `null` are
    /// empty), or the error saying why they cannot be sent.
    fn params_object(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<serde_json::Map<String, Value>, ClientError> {
        match params {
            None | Some(Value::Null) => Ok(serde_json::Map::new()),
            Some(Value::Object(map)) => Ok(map),
            Some(other) => {
                let kind = match other {
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::String(_) => "a string",
                    _ => "an array",
                };
                Err(ClientError::Config {
                    server: self.name().to_owned(),
                    problem: format!(
                        "the params of '{method}' must be a JSON object (or None for no params), not {kind}; nothing was sent"
                    ),
                    source: None,
                })
            }
        }
    }

    /// A `prompts/get` or `resources/read` (`name` is the prompt's name or the URI), with
    /// the client's request timeout and its `input_required` rounds answered.
    pub(crate) async fn request_rounds(
        &self,
        method: &str,
        name: &str,
        params: serde_json::Map<String, Value>,
    ) -> Result<Value, ClientError> {
        let timeout = self.inner.options.request_timeout;
        let opts = RequestOpts { timeout: Some(timeout), ..RequestOpts::default() };
        let max_rounds = self.inner.options.max_input_rounds;
        match rounds::request(&self.inner.conn, method, params, opts, max_rounds).await {
            Ok(result) => Ok(serde_json::from_str(result.get()).unwrap_or(Value::Null)),
            Err(RoundFailure::Request(f)) => Err(self.client_error(method, timeout, f)),
            Err(RoundFailure::Input(problem)) => Err(ClientError::Input {
                server: self.name().to_owned(),
                method: method.to_owned(),
                name: name.to_owned(),
                problem,
            }),
        }
    }

    pub(crate) fn client_error(&self, method: &str, timeout: Duration, f: Failure) -> ClientError {
        failure_to_client_error(&self.inner.conn, method, timeout, f)
    }

    /// `ping` (legacy era). The modern era has no `ping`; `server/discover` stands in.
    pub async fn ping(&self) -> Result<(), ClientError> {
        if self.inner.conn.is_modern() {
            return self.request(methods::SERVER_DISCOVER, None).await.map(drop);
        }
        self.request(methods::PING, None).await.map(drop)
    }

    /// Every page of a list method, concatenated (`key` is the array member: `tools`, ...).
    pub(crate) async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, ClientError> {
        self.list_all_hinted(method, key).await.map(|(items, _)| items)
    }

    /// Every page of a list method, and how long the whole list may be cached: the
    /// shortest `ttlMs` of its pages (the 2026-07-28 caching hints). A page without one is
    /// stale at once on a modern connection (the spec's default of 0), and good for
    /// [`ClientOptions::cache_ttl`] on a legacy one, whose servers send no hints.
    ///
    /// A cursor the server refuses with -32602 after the first page means the list changed
    /// while it was paged: the listing restarts from the first page, once (a second refusal
    /// is the error).
    pub(crate) async fn list_all_hinted(
        &self,
        method: &str,
        key: &str,
    ) -> Result<(Vec<Value>, Duration), ClientError> {
        let unhinted =
            if self.inner.conn.is_modern() { Duration::ZERO } else { self.inner.options.cache_ttl };
        let mut ttl: Option<Duration> = None;
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::BTreeSet::new();
        let mut restarted = false;
        loop {
            let params = cursor.as_ref().map(|c| json!({ "cursor": c }));
            let page = match self.request(method, params).await {
                Ok(page) => page,
                // A cursor refused mid-way (-32602) is one from a list that changed while we
                // paged (toolwire says `cursor is from a tools list that has since changed`):
                // what was read is stale, so start again from the first page, once.
                Err(ClientError::Rpc { code: -32602, .. }) if cursor.is_some() && !restarted => {
                    tracing::debug!(
                        server = self.name(),
                        method,
                        "cursor refused mid-list; listing again from the start"
                    );
                    restarted = true;
                    (ttl, cursor) = (None, None);
                    items.clear();
                    seen.clear();
                    continue;
                }
                Err(e) => return Err(e),
            };
            let malformed = |detail: &str| ClientError::Protocol {
                server: self.name().to_owned(),
                method: method.to_owned(),
                detail: detail.to_owned(),
            };
            match page.get(key) {
                Some(Value::Array(list)) => items.extend(list.iter().cloned()),
                _ => return Err(malformed(&format!("`{key}` is not an array"))),
            }
            let hint = page.get("ttlMs").and_then(Value::as_u64).map_or(unhinted, Duration::from_millis);
            ttl = Some(ttl.map_or(hint, |t| t.min(hint)));
            match page.get("nextCursor") {
                Some(Value::String(next)) if !next.is_empty() => {
                    // A server that hands back a cursor it already gave would loop forever.
                    if !seen.insert(next.clone()) {
                        return Err(malformed("`nextCursor` repeats an earlier cursor"));
                    }
                    cursor = Some(next.clone());
                }
                _ => return Ok((items, ttl.unwrap_or(unhinted))),
            }
        }
    }

    /// The server's tools, cached as the server's caching hints say: for the `ttlMs` it
    /// sent (the shortest of its pages'; none on a modern connection means not cached), or,
    /// from a legacy server, which sends no hints, for [`ClientOptions::cache_ttl`] (30 s).
    ///
    /// The cache is dropped by `notifications/tools/list_changed`, by `force_refresh`, and
    /// by [`close`](Client::close). Every page is followed.
    pub async fn list_tools(&self, force_refresh: bool) -> Result<Arc<[ListedTool]>, ClientError> {
        let generation = self.inner.conn.tools_generation.load(Ordering::SeqCst);
        if !force_refresh
            && let Some(hit) = lock(&self.inner.tools).as_ref().and_then(|c| c.fresh(generation))
        {
            return Ok(hit);
        }
        let (raw, ttl) = self.list_all_hinted(methods::TOOLS_LIST, "tools").await?;
        // Every entry is kept, the malformed too: adoption refuses those and says why.
        let tools: Vec<ListedTool> = raw.into_iter().map(ListedTool::from_listing).collect();
        let tools: Arc<[ListedTool]> = tools.into();
        let declared: Declared = tools
            .iter()
            .filter_map(|t| match param_headers::validate(&t.input_schema) {
                Ok(params) if !params.is_empty() => Some((t.name.clone(), params)),
                _ => None,
            })
            .collect();
        *lock(&self.inner.param_headers) = (generation, declared);
        *lock(&self.inner.tools) = Some(Cached::new(Arc::clone(&tools), generation, ttl));
        Ok(tools)
    }

    /// The `Mcp-Param-*` headers (SEP-2243) of a call of `name` with `arguments`, from the
    /// tool list last read by [`list_tools`](Self::list_tools), while no list change has been
    /// announced since: none when no list was read, or the tool declares none (or declares
    /// them invalidly, which adoption refuses).
    fn mirrored_headers(&self, name: &str, arguments: &Value) -> Vec<(String, String)> {
        let generation = self.inner.conn.tools_generation.load(Ordering::SeqCst);
        let (read_at, declared) = &*lock(&self.inner.param_headers);
        if *read_at != generation {
            return Vec::new();
        }
        match declared.iter().find(|(tool, _)| tool == name) {
            Some((_, params)) => mirror(params, arguments),
            None => Vec::new(),
        }
    }

    /// Call the server's tool `name` (its name on the server) with `arguments` (a JSON
    /// object), waiting at most [`CallOptions::timeout`], else the client's
    /// [`request_timeout`](ClientOptions::request_timeout).
    ///
    /// The result is the server's, unvalidated and unsealed; `isError` is a result, not an
    /// `Err`. Failures are classified: a timeout is [`RemoteError::TimedOut`]; a server that
    /// could not be reached [`RemoteError::Unavailable`]; one that died or dropped the
    /// connection after the call was sent [`RemoteError::OutcomeUnknown`] under at-most-once
    /// [`delivery`](CallOptions::delivery) (the default) and `Unavailable` under
    /// at-least-once; refused credentials (HTTP 401, 403) [`RemoteError::Unauthorized`];
    /// another HTTP status trying again will not change [`RemoteError::HttpStatus`]; a
    /// JSON-RPC error answer [`RemoteError::Refused`] (or, from a server that runs the tool
    /// only as a task to a call that did not declare the tasks extension,
    /// [`RemoteError::TasksRequired`], saying what to set); input a 2026-07-28 server asked for
    /// and the client could not give [`RemoteError::Input`] (each in [`ToolError::Remote`]);
    /// and the caller's cancellation [`ToolError::CancelledBeforeDispatch`] or
    /// [`ToolError::CancelledWhileRunning`].
    ///
    /// A tool whose `inputSchema` marks parameters with `x-mcp-header` (SEP-2243) has them
    /// mirrored as `Mcp-Param-*` headers, as an adopted tool's calls do, once its schema is
    /// known: from the tool list last read by [`list_tools`](Self::list_tools) (adoption reads
    /// it), while no `list_changed` has been announced since. A call made before any list was
    /// read carries none (and a server that checks them may refuse it: list first).
    ///
    /// A 2026-07-28 `input_required` result is answered through the client's handlers and
    /// the call retried, round after round, up to
    /// [`ClientOptions::max_input_rounds`]; the result returned is the final one.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallResult, ToolError> {
        let server = self.name().to_owned();
        let delivery = options.delivery_or_default();
        // The precedence in the module docs of `client`: this call's own, else the client's.
        let timeout = Some(options.timeout.unwrap_or(self.inner.options.request_timeout));
        let opts = RequestOpts {
            timeout,
            cancel: options.cancel,
            progress: options.progress,
            headers: match options.headers {
                Some(decided) => decided,
                None => self.mirrored_headers(name, &arguments),
            },
            id_out: None,
        };
        let mut params = serde_json::Map::new();
        params.insert("name".into(), name.into());
        params.insert("arguments".into(), arguments);
        if let Some(meta) = options.meta {
            params.insert("_meta".into(), Value::Object(meta));
        }
        let max_rounds = self.inner.options.max_input_rounds;
        // A task's answer (the tasks extension) is driven to its end: module `tasks`.
        let result =
            super::tasks::request(&self.inner.conn, methods::TOOLS_CALL, params, opts, max_rounds).await;
        let result = result.map_err(|f| match f {
            RoundFailure::Input(problem) => {
                RemoteError::Input { tool: name.to_owned(), server: server.clone(), problem }.into()
            }
            RoundFailure::Request(f) => match f {
                Failure::Timeout(timeout) => {
                    RemoteError::TimedOut { tool: name.to_owned(), server: server.clone(), timeout }.into()
                }
                Failure::CancelledBeforeSend => ToolError::CancelledBeforeDispatch { tool: name.to_owned() },
                Failure::Cancelled => ToolError::CancelledWhileRunning { tool: name.to_owned() },
                Failure::Gone(reason) => {
                    RemoteError::Unavailable { tool: name.to_owned(), server: server.clone(), reason }.into()
                }
                Failure::Lost(reason) => match delivery {
                    DeliveryGuarantee::AtLeastOnce => {
                        RemoteError::Unavailable { tool: name.to_owned(), server: server.clone(), reason }
                            .into()
                    }
                    DeliveryGuarantee::AtMostOnce => {
                        RemoteError::OutcomeUnknown { tool: name.to_owned(), server: server.clone(), reason }
                            .into()
                    }
                },
                Failure::Http(status @ (401 | 403)) => {
                    RemoteError::Unauthorized { tool: name.to_owned(), server: server.clone(), status }.into()
                }
                Failure::Http(status) => {
                    RemoteError::HttpStatus { tool: name.to_owned(), server: server.clone(), status }.into()
                }
                Failure::Rpc { code, data, .. } if super::tasks::requires_tasks(code, data.as_ref()) => {
                    let fix = super::tasks::tasks_fix(&self.inner.conn).to_owned();
                    RemoteError::TasksRequired { tool: name.to_owned(), server: server.clone(), fix }.into()
                }
                Failure::Rpc { code, .. } => {
                    RemoteError::Refused { tool: name.to_owned(), server: server.clone(), code }.into()
                }
                // It ran, as a task, and failed: the server's words are its report.
                Failure::TaskFailed { message, .. } => {
                    let report = truncate(&message, DEFAULT_ADOPTED_RESULT_BYTES);
                    RemoteError::Failed {
                        tool: name.to_owned(),
                        server: server.clone(),
                        envelope: seal(&server, name, &report),
                        report,
                    }
                    .into()
                }
                Failure::Auth(f) if f.needs_person => RemoteError::AuthorizationRequired {
                    tool: name.to_owned(),
                    server: server.clone(),
                    reason: f.reason,
                }
                .into(),
                Failure::Auth(f) => RemoteError::AuthorizationFailed {
                    tool: name.to_owned(),
                    server: server.clone(),
                    reason: f.reason,
                }
                .into(),
                // The program's own interceptor said why: its words are trusted.
                Failure::Refused(reason) => ToolError::failed(
                    name,
                    format_args!("refused before it was sent to server '{server}': {reason}"),
                ),
            },
        })?;
        parse_call_result(&result).ok_or_else(|| {
            ToolError::failed(name, format_args!("server '{server}' sent a result that is not a tool result"))
        })
    }
}

/// Map a request failure to a [`ClientError`].
pub(crate) fn failure_to_client_error(
    conn: &Conn,
    method: &str,
    timeout: Duration,
    f: Failure,
) -> ClientError {
    let server = conn.server.clone();
    match f {
        Failure::Timeout(_) => ClientError::Timeout { server, method: method.to_owned(), timeout },
        Failure::CancelledBeforeSend | Failure::Cancelled => {
            ClientError::Cancelled { server, method: method.to_owned() }
        }
        Failure::Gone(reason) | Failure::Lost(reason) if reason == CLOSED_BY_CLIENT => {
            ClientError::Closed { server }
        }
        Failure::Gone(reason) | Failure::Lost(reason) => ClientError::Unavailable { server, reason },
        Failure::Http(status @ (401 | 403)) => ClientError::Unauthorized { server, status },
        Failure::Http(status) => ClientError::HttpStatus { server, status },
        Failure::Rpc { code, data, .. } if super::tasks::requires_tasks(code, data.as_ref()) => {
            ClientError::TasksRequired {
                server,
                method: method.to_owned(),
                fix: super::tasks::tasks_fix(conn).to_owned(),
            }
        }
        Failure::Rpc { code, message, .. } | Failure::TaskFailed { code, message } => {
            ClientError::Rpc { server, method: method.to_owned(), code, server_message: message }
        }
        Failure::Auth(f) if f.needs_person => ClientError::AuthorizationRequired { server, reason: f.reason },
        Failure::Auth(f) => ClientError::AuthorizationFailed { server, reason: f.reason },
        Failure::Refused(reason) => ClientError::Refused { server, method: method.to_owned(), reason },
    }
}

/// Negotiate the era and version.
async fn negotiate(conn: &Arc<Conn>, options: &ClientOptions) -> Result<ServerInfo, ClientError> {
    match options.era {
        EraMode::Legacy => initialize(conn, options).await,
        EraMode::Modern => discover(conn, options, options.request_timeout)
            .await?
            .map_err(|f| failure_to_client_error(conn, methods::SERVER_DISCOVER, options.request_timeout, f)),
        EraMode::Auto => match discover(conn, options, options.probe_timeout).await? {
            Ok(info) => Ok(info),
            Err(Failure::Rpc { code: crate::protocol::code::UNSUPPORTED_PROTOCOL_VERSION, data, .. }) => {
                // A modern server that does not speak our modern version: use a handshake
                // version it lists, or give up (the spec forbids falling back otherwise).
                let supported =
                    data.as_ref().and_then(|d| d.get("supported")).cloned().unwrap_or(Value::Null);
                let legacy =
                    supported.as_array().is_some_and(|l| l.iter().any(|v| v.as_str().is_some_and(is_legacy)));
                if legacy {
                    initialize(conn, options).await
                } else {
                    Err(ClientError::UnsupportedVersion {
                        server: conn.server.clone(),
                        offered: supported.to_string(),
                    })
                }
            }
            // Any other error, or silence: a legacy server. (A dead one fails `initialize` too.)
            Err(_) => initialize(conn, options).await,
        },
    }
}

/// `server/discover`. `Ok(Err(_))` is the server's failure, for `auto` to judge.
async fn discover(
    conn: &Arc<Conn>,
    options: &ClientOptions,
    timeout: Duration,
) -> Result<Result<ServerInfo, Failure>, ClientError> {
    conn.set_modern(MODERN.as_str());
    let opts = RequestOpts { timeout: Some(timeout), ..RequestOpts::default() };
    let mut reply = conn.request(methods::SERVER_DISCOVER, None, opts.clone()).await;
    // A server that refuses the version yet lists it among those it supports: ask once more
    // (the 2026-07-28 rule for a rejected first choice).
    if let Err(Failure::Rpc { code: crate::protocol::code::UNSUPPORTED_PROTOCOL_VERSION, data, .. }) = &reply
        && data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|l| l.iter().any(|v| v == MODERN.as_str()))
    {
        reply = conn.request(methods::SERVER_DISCOVER, None, opts).await;
    }
    let result = match reply {
        Ok(r) => r,
        Err(f) => {
            conn.clear_modern();
            return Ok(Err(f));
        }
    };
    let supported = result.get("supportedVersions").cloned().unwrap_or(Value::Null);
    let speaks = supported.as_array().is_some_and(|l| l.iter().any(|v| v == MODERN.as_str()));
    if !speaks {
        conn.clear_modern();
        if options.era == EraMode::Auto && supported.is_array() {
            // Judged like an UnsupportedProtocolVersionError listing the same versions.
            let data = Some(json!({ "supported": supported }));
            return Ok(Err(Failure::Rpc {
                code: crate::protocol::code::UNSUPPORTED_PROTOCOL_VERSION,
                message: String::new(),
                data,
            }));
        }
        return Err(ClientError::UnsupportedVersion {
            server: conn.server.clone(),
            offered: supported.to_string(),
        });
    }
    let server_info = result.get("_meta").and_then(|m| m.get(crate::protocol::SERVER_INFO_KEY));
    Ok(Ok(server_info_of(MODERN.as_str(), server_info, &result)))
}

/// The legacy handshake: `initialize`, then `notifications/initialized`.
async fn initialize(conn: &Arc<Conn>, options: &ClientOptions) -> Result<ServerInfo, ClientError> {
    let params = json!({
        "protocolVersion": ProtocolVersion::LATEST_LEGACY.as_str(),
        "capabilities": options.capabilities(),
        "clientInfo": options.client_info(),
    });
    let opts = RequestOpts { timeout: Some(options.request_timeout), ..RequestOpts::default() };
    let result = conn
        .request(methods::INITIALIZE, Some(params), opts)
        .await
        .map_err(|f| failure_to_client_error(conn, methods::INITIALIZE, options.request_timeout, f))?;
    let version = result.get("protocolVersion").cloned().unwrap_or(Value::Null);
    let Some(version) = version.as_str().filter(|v| is_legacy(v)) else {
        return Err(ClientError::UnsupportedVersion {
            server: conn.server.clone(),
            offered: version.to_string(),
        });
    };
    conn.set_version(version);
    conn.notify(methods::NOTIFICATIONS_INITIALIZED, None);
    Ok(server_info_of(version, result.get("serverInfo"), &result))
}

/// What the handshake's `result` says about the server, whose `Implementation` is at
/// `implementation` (`serverInfo`, or the modern `_meta` member).
fn server_info_of(version: &str, implementation: Option<&Value>, result: &Value) -> ServerInfo {
    let implementation =
        implementation.and_then(|i| wire::ImplementationInfo::deserialize(i).ok()).unwrap_or_default();
    ServerInfo {
        protocol_version: version.to_owned(),
        name: implementation.name,
        version: implementation.version,
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
        capabilities: result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
    }
}

/// Read a `CallToolResult`; `None` when it is not one (or is a modern interim result).
pub(crate) fn parse_call_result(raw: &RawValue) -> Option<CallResult> {
    // A result that is not an object has no members: an empty result, as before.
    let result = match raw.get().trim_start().starts_with('{') {
        true => serde_json::from_str::<wire::CallToolResult>(raw.get()).ok()?,
        false => wire::CallToolResult::default(),
    };
    if result.result_type.as_deref().is_some_and(|t| t != "complete") {
        return None;
    }
    Some(call_result(result))
}
