//! The JSON-RPC peer both transports share: request ids, pending requests, timeouts and
//! cancellation, progress routing, notifications, and answers to server-initiated requests.
//!
//! A transport owns the bytes. It takes [`Out`] messages from the channel [`Conn::new`]
//! returns, and hands every inbound message to [`Conn::on_text`]. When it dies it calls
//! [`Conn::shut`], which fails every pending request with the reason.
//!
//! - A request that times out or is cancelled is removed from the pending table and a
//!   `notifications/cancelled` goes to the server; a late answer then finds no one waiting
//!   and is dropped.
//! - Ids are integers from 1, never reused within a connection.
//! - A response is read in one pass, its `result` kept as text for the caller to parse
//!   into its own type. A `null` `error` beside a `result` is no error (some servers write
//!   both); a response with neither is a `null` result. A line the one-pass read refuses
//!   (a request, a notification, a batch, members of the wrong type) is read as a `Value`
//!   and routed the same way.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::answer::Answerer;
use super::handlers::{Direction, HandlerError, ListChanged, LogMessage};
use super::intercept::{Decision, SendOutcome, SendWatch, Sending, tell};
use super::options::ClientOptions;
use crate::context::Progress;
use crate::json::push_json_string;
use crate::protocol::LoggingLevel;
use crate::protocol::methods;
use crate::race::{Either, first};
use crate::sync::lock;

/// The 2026-07-28 `_meta` member asking for log messages at or above a level.
pub(crate) const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

pub(crate) use crate::protocol::{
    CLIENT_CAPABILITIES_KEY as META_CLIENT_CAPABILITIES, CLIENT_INFO_KEY as META_CLIENT_INFO,
    PROTOCOL_VERSION_KEY as META_PROTOCOL_VERSION,
};

/// The `_meta` member naming the `subscriptions/listen` a message belongs to.
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A progress callback for one request.
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// A [`Client::subscribe`](super::Client::subscribe) callback, given the URI of each
/// `notifications/resources/updated`. It runs on the connection's reader: keep it short
/// (send to a channel, say) and never block in it.
pub type UpdateFn = Arc<dyn Fn(&str) + Send + Sync>;

/// One outbound message for the transport.
#[derive(Debug)]
pub(crate) struct Out {
    /// The whole message, one line of JSON.
    pub(crate) json: String,
    /// The request id, when the message is a request (so HTTP can fail it on its own).
    pub(crate) id: Option<i64>,
    /// The method, when the message is a request or a notification (HTTP's `Mcp-Method`).
    pub(crate) method: Option<String>,
    /// `params.name`, `params.uri` or `params.taskId` (HTTP's `Mcp-Name`).
    pub(crate) name: Option<String>,
    /// Headers this request asks to carry, name and value ready to send: a tool call's
    /// `Mcp-Param-*` (its `x-mcp-header` parameters). A transport without headers ignores them.
    pub(crate) headers: Vec<(String, String)>,
}

/// A message read as a response: `result` kept as text. `method` only tells a request or
/// a notification apart; those are read as a `Value`.
#[derive(Deserialize)]
struct ResponseIn<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<Value>,
}

/// How a request ended, short of a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The timeout fired; a cancellation was sent.
    Timeout(Duration),
    /// The caller cancelled before dispatch; nothing was sent.
    CancelledBeforeSend,
    /// The caller cancelled while waiting; a cancellation was sent.
    Cancelled,
    /// The connection was gone before the request left: the server never saw it.
    Gone(String),
    /// The connection went away after the request was handed to it (the server died, the
    /// connection dropped): the server may have acted on it.
    Lost(String),
    /// The endpoint answered with an HTTP status that trying again will not change (401,
    /// 403, another 4xx).
    Http(u16),
    /// The server answered with a JSON-RPC error.
    Rpc { code: i64, message: String, data: Option<Value> },
    /// The request ran as a task (the tasks extension) and the task ended `failed` with this
    /// JSON-RPC error: unlike [`Failure::Rpc`], the server accepted the request and ran it.
    TaskFailed { code: i64, message: String },
    /// The HTTP link's [`Authorizer`](super::Authorizer) could not authorize the request; it
    /// was not run.
    Auth(super::authorizer::AuthFailure),
    /// One of the client's interceptors refused the request, with this reason; it was not
    /// sent.
    Refused(String),
}

impl Failure {
    /// What happened, in our words, for a [`SendWatch`](super::SendWatch).
    fn describe(&self) -> String {
        match self {
            Failure::Timeout(t) => format!("timed out after {t:?}"),
            Failure::CancelledBeforeSend => "cancelled before it was sent".to_owned(),
            Failure::Cancelled => "cancelled".to_owned(),
            Failure::Gone(reason) | Failure::Lost(reason) => format!("the connection failed: {reason}"),
            Failure::Http(status) => format!("HTTP {status}"),
            Failure::Rpc { code, message, .. } => format!("JSON-RPC error {code}: {message}"),
            Failure::TaskFailed { code, message } => {
                format!("its task failed: JSON-RPC error {code}: {message}")
            }
            Failure::Auth(f) => format!("not authorized: {}", f.reason),
            Failure::Refused(reason) => format!("refused by an interceptor: {reason}"),
        }
    }
}

/// A request an interceptor answered or refused before it was sent.
struct Early {
    answer: Result<Value, String>,
    watches: Vec<Box<dyn SendWatch>>,
}

/// A request's answer: its `result`, still as text (each caller reads it as its own type).
type Reply = Result<Box<RawValue>, Failure>;

/// Tell `watches` how a request ended, and hand the outcome on.
#[cold]
fn watched(watches: Vec<Box<dyn SendWatch>>, outcome: Reply) -> Reply {
    match &outcome {
        Ok(body) => tell(watches, SendOutcome::Completed(body.get())),
        Err(Failure::Rpc { code, message, .. }) => tell(watches, SendOutcome::Error { code: *code, message }),
        Err(failure @ (Failure::Cancelled | Failure::CancelledBeforeSend)) => {
            tell(watches, SendOutcome::Cancelled { reason: &failure.describe() })
        }
        Err(failure) => tell(watches, SendOutcome::Failed { reason: &failure.describe() }),
    }
    outcome
}

/// Per-request knobs.
#[derive(Default, Clone)]
pub(crate) struct RequestOpts {
    pub(crate) timeout: Option<Duration>,
    pub(crate) cancel: Option<CancellationToken>,
    pub(crate) progress: Option<ProgressFn>,
    /// Told the request's id once it is chosen (a `subscriptions/listen` matches its
    /// acknowledgment by it).
    pub(crate) id_out: Option<Arc<AtomicI64>>,
    /// The request's own headers ([`Out::headers`]).
    pub(crate) headers: Vec<(String, String)>,
}

/// The modern era's per-request `_meta` members, once a modern version was chosen.
#[derive(Debug, Clone)]
pub(crate) struct ModernMeta {
    pub(crate) version: String,
}

/// The shared JSON-RPC peer.
pub(crate) struct Conn {
    pub(crate) server: String,
    next_id: AtomicI64,
    pending: Mutex<HashMap<i64, oneshot::Sender<Reply>>>,
    progress: Mutex<HashMap<i64, ProgressFn>>,
    out: mpsc::UnboundedSender<Out>,
    closed: Mutex<Option<String>>,
    /// Bumped by `notifications/tools/list_changed`.
    pub(crate) tools_generation: AtomicU64,
    /// Bumped by `notifications/resources/list_changed`.
    pub(crate) resources_generation: AtomicU64,
    /// The callbacks of [`Client::subscribe`](super::Client::subscribe), by URI.
    pub(crate) subscriptions: Mutex<HashMap<String, UpdateFn>>,
    options: ClientOptions,
    modern: Mutex<Option<ModernMeta>>,
    version: Mutex<Option<String>>,
    /// Who answers the server's questions (both eras).
    pub(crate) answerer: Answerer,
    /// The level [`Client::set_level`](super::Client::set_level) asked for, sent in every
    /// modern request's `_meta`.
    pub(crate) log_level: Mutex<Option<LoggingLevel>>,
    /// The latest `notifications/subscriptions/acknowledged`: the listen's id and the
    /// filter the server agreed to (see [`listen`](super::listen)).
    pub(crate) acks: tokio::sync::watch::Sender<Option<(i64, Value)>>,
}

impl Conn {
    /// A peer for the server named in `options`, and the channel its transport reads.
    pub(crate) fn new(options: ClientOptions) -> (Arc<Conn>, mpsc::UnboundedReceiver<Out>) {
        let (out, rx) = mpsc::unbounded_channel();
        let conn = Conn {
            server: options.name.clone(),
            next_id: AtomicI64::new(1),
            pending: Mutex::default(),
            progress: Mutex::default(),
            out,
            closed: Mutex::default(),
            tools_generation: AtomicU64::new(0),
            resources_generation: AtomicU64::new(0),
            subscriptions: Mutex::default(),
            answerer: Answerer::new(&options),
            options,
            modern: Mutex::default(),
            version: Mutex::default(),
            log_level: Mutex::default(),
            acks: tokio::sync::watch::Sender::new(None),
        };
        (Arc::new(conn), rx)
    }

    /// The options the client was made with.
    pub(crate) fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// Speak the modern era from now on: every request carries `version` and our
    /// capabilities in `_meta`.
    pub(crate) fn set_modern(&self, version: &str) {
        *lock(&self.modern) = Some(ModernMeta { version: version.to_owned() });
    }

    /// Record the negotiated protocol version (HTTP sends it as `MCP-Protocol-Version`).
    pub(crate) fn set_version(&self, version: &str) {
        *lock(&self.version) = Some(version.to_owned());
    }

    /// The negotiated protocol version, once there is one.
    pub(crate) fn version(&self) -> Option<String> {
        lock(&self.version).clone()
    }

    /// Go back to the legacy era (the `auto` probe failed).
    pub(crate) fn clear_modern(&self) {
        *lock(&self.modern) = None;
    }

    /// Whether the modern era is in use.
    pub(crate) fn is_modern(&self) -> bool {
        lock(&self.modern).is_some()
    }

    /// Why the connection is gone, if it is.
    pub(crate) fn closed_reason(&self) -> Option<String> {
        lock(&self.closed).clone()
    }

    /// Mark the connection gone and fail every pending request with `reason`. The first
    /// reason wins.
    pub(crate) fn shut(&self, reason: impl Into<String>) {
        let reason = {
            let mut closed = lock(&self.closed);
            if closed.is_none() {
                *closed = Some(reason.into());
            }
            closed.clone().unwrap_or_default()
        };
        let drained: Vec<_> = lock(&self.pending).drain().collect();
        for (_, tx) in drained {
            let _ = tx.send(Err(Failure::Lost(reason.clone())));
        }
        lock(&self.progress).clear();
    }

    /// Fail one pending request (HTTP: the exchange carrying it broke).
    pub(crate) fn fail(&self, id: i64, failure: Failure) {
        if let Some(tx) = lock(&self.pending).remove(&id) {
            let _ = tx.send(Err(failure));
        }
    }

    /// Whether request `id` is still waiting for its answer.
    pub(crate) fn is_pending(&self, id: i64) -> bool {
        lock(&self.pending).contains_key(&id)
    }

    /// Build a request message and register it as pending.
    #[allow(clippy::type_complexity)] // Read once, by `request_with`.
    fn prepare(
        &self,
        method: &str,
        params: Cow<'_, Map<String, Value>>,
        progress: Option<ProgressFn>,
        mut headers: Vec<(String, String)>,
    ) -> Result<(i64, Out, oneshot::Receiver<Reply>, Vec<Box<dyn SendWatch>>), Early> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let modern = lock(&self.modern).clone();
        let mut params = params;
        if progress.is_some() || modern.is_some() {
            let meta = params.to_mut().entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                if progress.is_some() {
                    meta.insert("progressToken".into(), id.into());
                }
                if let Some(m) = &modern {
                    meta.insert(META_PROTOCOL_VERSION.into(), m.version.clone().into());
                    meta.insert(META_CLIENT_CAPABILITIES.into(), self.options.capabilities());
                    meta.insert(META_CLIENT_INFO.into(), self.options.client_info());
                    if let Some(level) = *lock(&self.log_level) {
                        meta.insert(META_LOG_LEVEL.into(), level.as_str().into());
                    }
                }
            }
        }
        // The interceptors see the request as it will be sent, toolwire's `_meta` in it.
        let mut watches = Vec::new();
        let interceptors = &self.options.interceptors;
        if !interceptors.is_empty() {
            let mut sending = Sending {
                server: &self.server,
                method,
                id,
                params: params.to_mut(),
                headers: &mut headers,
                modern: modern.is_some(),
            };
            match interceptors.decide(&mut sending) {
                Decision::Send(seen) => watches = seen,
                Decision::Answered(answer, watches) => return Err(Early { answer, watches }),
            }
        }
        // A task's methods route by its id (SEP-2663).
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .or_else(|| params.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        // The envelope by hand, the params by serde straight into it (`Value`'s `Display`
        // goes through `fmt` a token at a time).
        let mut json = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"#);
        push_json_string(&mut json, method);
        if !params.is_empty() {
            json.push_str(r#","params":"#);
            json.push_str(&serde_json::to_string(&*params).unwrap_or_else(|_| "{}".to_owned()));
        }
        json.push('}');
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        if let Some(p) = progress {
            lock(&self.progress).insert(id, p);
        }
        let out = Out { json, id: Some(id), method: Some(method.to_owned()), name, headers };
        Ok((id, out, rx, watches))
    }

    /// Send a request and wait for its result.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOpts,
    ) -> Result<Value, Failure> {
        let params = match params {
            Some(Value::Object(map)) => Cow::Owned(map),
            _ => Cow::Owned(Map::new()),
        };
        let result = self.request_with(method, params, opts).await?;
        Ok(serde_json::from_str(result.get()).unwrap_or(Value::Null))
    }

    /// [`request`](Self::request) with params an object that may be borrowed (a call that
    /// may be sent again, round after round, keeps its own).
    pub(crate) async fn request_with(
        &self,
        method: &str,
        params: Cow<'_, Map<String, Value>>,
        opts: RequestOpts,
    ) -> Result<Box<RawValue>, Failure> {
        // Cancellation is checked before dispatch: a run cancelled while queued never reaches
        // the server.
        if opts.cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
            return Err(Failure::CancelledBeforeSend);
        }
        if let Some(reason) = self.closed_reason() {
            return Err(Failure::Gone(reason));
        }
        let (id, out, rx, watches) =
            match self.prepare(method, params, opts.progress.clone(), opts.headers.clone()) {
                Ok(prepared) => prepared,
                Err(Early { answer, watches }) => {
                    let outcome = match answer {
                        Ok(body) => Ok(serde_json::value::to_raw_value(&body)
                            .unwrap_or_else(|_| RawValue::NULL.to_owned())),
                        Err(reason) => Err(Failure::Refused(reason)),
                    };
                    return watched(watches, outcome);
                }
            };
        if let Some(id_out) = &opts.id_out {
            id_out.store(id, Ordering::SeqCst);
        }
        if self.send(out).is_err() {
            self.forget(id);
            return Err(Failure::Gone(
                self.closed_reason().unwrap_or_else(|| "closed the connection".into()),
            ));
        }
        let cancel = opts.cancel.clone().unwrap_or_default();
        let sleep = async {
            match opts.timeout {
                Some(t) => tokio::time::sleep(t).await,
                None => std::future::pending().await,
            }
        };
        let outcome = match first(rx, first(sleep, cancel.cancelled())).await {
            Either::Left(reply) => {
                reply.unwrap_or_else(|_| Err(Failure::Lost("closed the connection".into())))
            }
            Either::Right(Either::Left(())) => {
                self.abandon(id, "timeout");
                Err(Failure::Timeout(opts.timeout.unwrap_or_default()))
            }
            Either::Right(Either::Right(())) => {
                self.abandon(id, "cancelled by the client");
                Err(Failure::Cancelled)
            }
        };
        self.forget(id);
        if watches.is_empty() { outcome } else { watched(watches, outcome) }
    }

    /// The id the next request will get (every later request's is at least this).
    pub(crate) fn next_request_id(&self) -> i64 {
        self.next_id.load(Ordering::SeqCst)
    }

    /// Send a request without registering for its answer (a probe we may give up on).
    fn forget(&self, id: i64) {
        lock(&self.pending).remove(&id);
        lock(&self.progress).remove(&id);
    }

    /// Give up on request `id` and tell the server, so it can stop the work.
    fn abandon(&self, id: i64, reason: &str) {
        self.forget(id);
        if self.closed_reason().is_none() {
            self.notify(methods::NOTIFICATIONS_CANCELLED, Some(json!({"requestId": id, "reason": reason})));
        }
    }

    /// Send a notification; a closed connection drops it.
    pub(crate) fn notify(&self, method: &str, params: Option<Value>) {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        let _ = self.send(Out {
            json: msg.to_string(),
            id: None,
            method: Some(method.to_owned()),
            name: None,
            headers: Vec::new(),
        });
    }

    /// Hand `out` to the transport, shown first to the `on_message` observer, if any.
    fn send(&self, out: Out) -> Result<(), mpsc::error::SendError<Out>> {
        if let Some(observe) = &self.options.on_message {
            observe(Direction::Sent, &out.json);
        }
        self.out.send(out)
    }

    /// Handle one inbound message (a line on stdio, a body or an SSE event on HTTP).
    pub(crate) fn on_text(self: &Arc<Self>, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if let Some(observe) = &self.options.on_message {
            observe(Direction::Received, text);
        }
        // A response, read in one pass with its result kept as text; anything else (a
        // request, a notification, a batch, a line a typed read refuses) as a `Value`.
        if let Ok(response) = serde_json::from_str::<ResponseIn<'_>>(text)
            && response.method.is_none()
        {
            return self.on_response(response.id.as_ref(), response.error.as_ref(), response.result);
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(_) => {
                tracing::warn!(server = %self.server, bytes = text.len(), "ignoring a line that is not JSON");
                return;
            }
        };
        match value {
            Value::Array(items) => {
                for item in items {
                    self.on_message(item);
                }
            }
            other => self.on_message(other),
        }
    }

    fn on_message(self: &Arc<Self>, msg: Value) {
        let Value::Object(mut msg) = msg else {
            tracing::warn!(server = %self.server, "ignoring a message that is not an object");
            return;
        };
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.remove("id");
        let params = msg.remove("params");
        match (method, id) {
            (Some(method), Some(id)) if !id.is_null() => self.on_server_request(id, method, params),
            (Some(method), _) => self.on_notification(&method, params),
            (None, id) => {
                let result = msg.remove("result").and_then(|r| serde_json::value::to_raw_value(&r).ok());
                self.on_response(id.as_ref(), msg.get("error"), result);
            }
        }
    }

    /// A response: the error when it has one (a `null` one is none), else its result (`null`
    /// when absent).
    fn on_response(&self, id: Option<&Value>, error: Option<&Value>, result: Option<Box<RawValue>>) {
        let error = error.filter(|e| !e.is_null());
        let Some(id) = id.and_then(Value::as_i64) else {
            tracing::warn!(server = %self.server, "ignoring a response with an id we never sent");
            return;
        };
        let reply = match error {
            Some(error) => Err(rpc_failure(error)),
            None => Ok(result.unwrap_or_default()),
        };
        self.resolve(id, reply);
    }

    /// Deliver an answer to request `id`; an answer no one waits for any more is dropped.
    pub(crate) fn resolve(&self, id: i64, reply: Reply) {
        match lock(&self.pending).remove(&id) {
            Some(tx) => {
                let _ = tx.send(reply);
            }
            None => tracing::debug!(server = %self.server, id, "dropping a late or unknown response"),
        }
    }

    fn on_notification(&self, method: &str, params: Option<Value>) {
        match method {
            methods::NOTIFICATIONS_TOOLS_LIST_CHANGED => {
                self.tools_generation.fetch_add(1, Ordering::SeqCst);
                self.list_changed(ListChanged::Tools);
            }
            methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED => {
                self.resources_generation.fetch_add(1, Ordering::SeqCst);
                self.list_changed(ListChanged::Resources);
            }
            methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED => self.list_changed(ListChanged::Prompts),
            methods::NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED => {
                let Some(p) = params else { return };
                let id = p.pointer(&format!("/_meta/{}", SUBSCRIPTION_ID.replace('/', "~1")));
                let Some(id) = id.and_then(Value::as_i64) else {
                    return tracing::debug!(server = %self.server, "ignoring an acknowledgment without a subscription id");
                };
                let filter = p.get("notifications").cloned().unwrap_or_else(|| json!({}));
                self.acks.send_replace(Some((id, filter)));
            }
            methods::NOTIFICATIONS_ELICITATION_COMPLETE => {
                let Some(id) = params.as_ref().and_then(|p| p.get("elicitationId")).and_then(Value::as_str)
                else {
                    return;
                };
                // Only an id this client accepted, once (the spec: ignore unknown or done ids).
                if !self.answerer.complete(id) {
                    tracing::debug!(server = %self.server, id, "ignoring a completion for an unknown elicitation");
                } else if let Some(cb) = &self.options.on_elicitation_complete {
                    cb(id);
                }
            }
            methods::NOTIFICATIONS_RESOURCES_UPDATED => {
                let Some(uri) = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str) else {
                    return;
                };
                let callback = lock(&self.subscriptions).get(uri).cloned();
                match callback {
                    Some(cb) => cb(uri),
                    None => {
                        tracing::debug!(server = %self.server, uri, "an update for a URI not subscribed to")
                    }
                }
            }
            methods::NOTIFICATIONS_PROGRESS => {
                let Some(p) = params else { return };
                let Some(token) = p.get("progressToken").and_then(Value::as_i64) else { return };
                let Some(progress) = p.get("progress").and_then(Value::as_f64) else { return };
                let callback = lock(&self.progress).get(&token).cloned();
                if let Some(cb) = callback {
                    cb(Progress {
                        progress,
                        total: p.get("total").and_then(Value::as_f64),
                        message: p.get("message").and_then(Value::as_str).map(str::to_owned),
                    });
                }
            }
            methods::NOTIFICATIONS_MESSAGE => {
                let Some(mut p) = params else { return };
                let level =
                    p.get("level").cloned().and_then(|l| serde_json::from_value::<LoggingLevel>(l).ok());
                let Some(level) = level else {
                    return tracing::debug!(server = %self.server, "ignoring a log message without a known level");
                };
                match &self.options.on_log {
                    Some(cb) => cb(LogMessage {
                        level,
                        logger: p.get("logger").and_then(Value::as_str).map(str::to_owned),
                        data: p.get_mut("data").map(Value::take).unwrap_or(Value::Null),
                    }),
                    None => {
                        tracing::debug!(server = %self.server, level = level.as_str(), "server log message")
                    }
                }
            }
            other => tracing::debug!(server = %self.server, method = other, "ignoring a notification"),
        }
    }

    fn on_server_request(self: &Arc<Self>, id: Value, method: String, params: Option<Value>) {
        let this = Arc::clone(self);
        let answer = move |result: Result<Value, HandlerError>| {
            let msg = match result {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(e) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
                }
            };
            let _ = this.send(Out {
                json: msg.to_string(),
                id: None,
                method: None,
                name: None,
                headers: Vec::new(),
            });
        };
        if method == methods::PING {
            return answer(Ok(json!({})));
        }
        match self.answerer.answer(&method, params.unwrap_or(Value::Null)) {
            Ok(fut) => {
                tokio::spawn(async move { answer(fut.await) });
            }
            Err(refusal) => answer(Err(refusal.to_rpc(&method))),
        }
    }

    /// Tell the `on_list_changed` callback, if there is one.
    fn list_changed(&self, which: ListChanged) {
        if let Some(cb) = &self.options.on_list_changed {
            cb(which);
        }
    }
}

/// A JSON-RPC error object as a [`Failure`]; read leniently.
pub(crate) fn rpc_failure(error: &Value) -> Failure {
    Failure::Rpc {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: error.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
        data: error.get("data").cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_timed_out_request_sends_a_cancellation_and_ignores_the_late_answer() {
        let (conn, mut rx) = Conn::new(ClientOptions::new("t"));
        let c = Arc::clone(&conn);
        let call = tokio::spawn(async move {
            c.request(
                "tools/call",
                Some(json!({"name": "slow"})),
                RequestOpts { timeout: Some(Duration::from_millis(20)), ..Default::default() },
            )
            .await
        });
        let sent = rx.recv().await.unwrap();
        let v: Value = serde_json::from_str(&sent.json).unwrap();
        assert_eq!(v, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}}));
        assert_eq!(sent.id, Some(1));
        assert_eq!(call.await.unwrap(), Err(Failure::Timeout(Duration::from_millis(20))));
        let cancel = rx.recv().await.unwrap();
        let v: Value = serde_json::from_str(&cancel.json).unwrap();
        assert_eq!(v["method"], "notifications/cancelled");
        assert_eq!(v["params"]["requestId"], 1);
        // The late answer finds no one waiting.
        conn.on_text(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert!(!conn.is_pending(1));
    }

    #[tokio::test]
    async fn a_legacy_request_for_an_undeclared_capability_is_refused_without_a_handler() {
        let (conn, mut rx) = Conn::new(ClientOptions::new("t"));
        conn.on_text(r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}"#);
        let sent: Value = serde_json::from_str(&rx.recv().await.unwrap().json).unwrap();
        assert_eq!(
            sent,
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601,
                "message": "method 'sampling/createMessage' not found: this client did not declare the 'sampling' capability"}})
        );
        // A handler's failure is its own code and words; bad params never reach it.
        let options = ClientOptions::new("t").on_elicit(|_| async {
            Err::<crate::client::Elicited, _>(HandlerError::new(-1, "the user is away"))
        });
        let (conn, mut rx) = Conn::new(options);
        conn.on_text(r#"{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"message":"m"}}"#);
        let sent: Value = serde_json::from_str(&rx.recv().await.unwrap().json).unwrap();
        assert_eq!(sent["error"], json!({"code": -1, "message": "the user is away"}));
        conn.on_text(r#"{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{}}"#);
        let sent: Value = serde_json::from_str(&rx.recv().await.unwrap().json).unwrap();
        assert_eq!(
            sent["error"],
            json!({"code": -32602, "message": "invalid elicitation/create params: `message` is not a string"})
        );
    }

    /// Send `ping` as request 1 and answer it with `line`; what the caller got.
    async fn answered_with(line: &str) -> Result<Value, Failure> {
        let (conn, _rx) = Conn::new(ClientOptions::new("t"));
        let c = Arc::clone(&conn);
        let call = tokio::spawn(async move { c.request("ping", None, RequestOpts::default()).await });
        while !conn.is_pending(1) {
            tokio::task::yield_now().await;
        }
        conn.on_text(line);
        call.await.unwrap()
    }

    #[tokio::test]
    async fn responses_read_in_one_pass_or_as_values_answer_alike() {
        // The one-pass read: the result as sent, members in any order.
        assert_eq!(
            answered_with(r#"{"result":{"a":[1]},"id":1,"jsonrpc":"2.0"}"#).await,
            Ok(json!({"a": [1]}))
        );
        // No result is `null`; a `null` error is no error.
        assert_eq!(answered_with(r#"{"jsonrpc":"2.0","id":1}"#).await, Ok(Value::Null));
        assert_eq!(answered_with(r#"{"jsonrpc":"2.0","id":1,"error":null,"result":3}"#).await, Ok(json!(3)));
        // A member twice is refused by the one-pass read; the `Value` read keeps the last.
        assert_eq!(answered_with(r#"{"jsonrpc":"2.0","id":1,"result":1,"result":2}"#).await, Ok(json!(2)));
        assert_eq!(
            answered_with(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no"},"error":null}"#)
                .await,
            Ok(Value::Null)
        );
        // An error wins over a result, on either path.
        let error = r#"{"code":-32001,"message":"busy"}"#;
        for line in [
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{}},"error":{error}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"id":1,"result":{{}},"error":{error}}}"#),
        ] {
            assert!(matches!(answered_with(&line).await, Err(Failure::Rpc { code: -32001, .. })), "{line}");
        }
    }

    #[tokio::test]
    async fn shutting_fails_pending_requests_with_the_reason() {
        let (conn, _rx) = Conn::new(ClientOptions::new("t"));
        let c = Arc::clone(&conn);
        let call = tokio::spawn(async move { c.request("ping", None, RequestOpts::default()).await });
        tokio::task::yield_now().await;
        while !conn.is_pending(1) {
            tokio::task::yield_now().await;
        }
        conn.shut("exited with status 9");
        assert_eq!(call.await.unwrap(), Err(Failure::Lost("exited with status 9".into())));
    }
}
