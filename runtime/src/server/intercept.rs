//! The interceptor seam: [`Interceptor`] (its docs say what one sees, what it may say, where
//! it runs and what it costs), [`Intercepted`], [`Ruling`], [`Watch`] and [`Outcome`], and the
//! chain a server runs over each request (`Interceptors`, run by the method table).

use std::any::Any;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock, RwLock};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::context::PeerInfo;
use crate::principal::Principal;
use crate::protocol::meta::{ImplementationIn, ModernResult};
use crate::protocol::{Era, PROTOCOL_VERSION_KEY, RequestId, RpcError};
use crate::sync::{read_lock, write_lock};
use crate::tool::carry;

/// The JSON-RPC code of a request an [`Interceptor`] refused with [`Ruling::refuse`] (in the
/// implementation-defined server range, beside [`RATE_LIMITED`](crate::server::RATE_LIMITED)).
pub const REFUSED: i64 = -32030;

/// The interceptor seam: [`Interceptor`]s a [`ServerBuilder`](crate::server::ServerBuilder)
/// installs ([`ServerBuilder::intercept`](crate::server::ServerBuilder::intercept)) see every
/// request the engine serves, whatever its method (`initialize`, `tools/call`,
/// `resources/read`, `prompts/get`, `completion/complete`, the lists, `ping`, …), before it
/// is served, and may answer it, refuse it, or pass it on and watch how it ends.
///
/// What one sees is an [`Intercepted`]: the method, the request id, the params (and from them
/// the name, the arguments and `_meta`, read only when asked), the era, the caller's
/// [`Principal`], the session's id, the client's name, and the HTTP request's headers when
/// the request came over HTTP. What it says is a [`Ruling`]:
///
/// | verdict | what happens |
/// | --- | --- |
/// | [`Ruling::Pass`] | the request is served as if nobody looked |
/// | [`Ruling::Watch`] | served, and the [`Watch`] is told its [`Outcome`] when it is answered (and, for a request that runs user code, entered around every poll of that code) |
/// | [`Ruling::Answer`] | answered with that result; nothing is served |
/// | [`Ruling::Refuse`] | answered with that JSON-RPC error; nothing is served |
///
/// Interceptors run in the order they were installed; the first that answers or refuses
/// ends the chain, and the watches of those before it see that answer.
///
/// # Where it sits, and what it costs
///
/// The chain runs after the rate limit took the request's cell and before the method table
/// routes it (module `table`), on the thread that handed the message to the session: keep it
/// short, and never block in it (a decision that must wait for I/O belongs in the tool, or
/// in a [`Watch`] that records and lets something else decide). A server with no
/// interceptor pays one branch per request: the `tools/call` read in one pass
/// (`envelope::decode_call`) keeps its fast path, and is read the general way only when an
/// interceptor will look at it.
///
/// # Not on this seam
///
/// toolwire's own rules stay where they are, each for a reason the seam cannot give:
/// the rate limit is taken by the HTTP transport before the body is read (a 429 with
/// `Retry-After` costs the server nothing), access rules ([`Access`](crate::server::Access))
/// shape what `tools/list` shows as much as what a call may do, and exposure
/// ([`Exposure`](crate::server::Exposure)) decides how results and errors read. An
/// interceptor adds rules of the program's own on top of them; it sees only requests those
/// rules let through.
///
/// Any `Fn(&Intercepted<'_>) -> Ruling + Send + Sync + 'static` closure is one.
///
/// ```
/// use toolwire::server::{Intercepted, Server, Ruling};
/// use toolwire::{ServerOptions, ToolRegistry};
///
/// // No `deploy` on a Friday... or from a client that names itself "ci".
/// let server = Server::builder(ServerOptions::new("demo", "1.0.0"))
///     .tools(ToolRegistry::new())
///     .intercept(|request: &Intercepted<'_>| {
///         if request.method() == "tools/call"
///             && request.name() == Some("deploy")
///             && request.client_name() == Some("ci")
///         {
///             return Ruling::refuse("ci may not deploy");
///         }
///         Ruling::Pass
///     })
///     .build();
/// # let _ = server;
/// ```
pub trait Interceptor: Send + Sync + 'static {
    /// Decide what becomes of `request`: pass it on, watch it, answer it or refuse it.
    fn intercept(&self, request: &Intercepted<'_>) -> Ruling;
}

impl<F: Fn(&Intercepted<'_>) -> Ruling + Send + Sync + 'static> Interceptor for F {
    fn intercept(&self, request: &Intercepted<'_>) -> Ruling {
        self(request)
    }
}

/// What an [`Interceptor`] decided for one request.
#[non_exhaustive]
pub enum Ruling {
    /// Serve the request as usual.
    Pass,
    /// Serve it, and tell this watch how it ended.
    Watch(Box<dyn Watch>),
    /// Answer with this result (a JSON object) instead of serving the request. To a legacy
    /// request it is sent as it is; to a modern (2026-07-28) one it is completed as the
    /// engine completes every result (`_meta` with the server's identity and
    /// `resultType: "complete"` first), unless it names a `resultType` of its own.
    Answer(Box<RawValue>),
    /// Answer with this JSON-RPC error instead of serving the request.
    Refuse(RpcError),
}

impl Ruling {
    /// Refuse the request with `reason`: the JSON-RPC error [`REFUSED`], whose message names
    /// the method (and the tool, prompt or resource) and then the reason, e.g.
    /// `tools/call of 'deploy' refused: ci may not deploy`. The message is set when the
    /// request is answered ([`Intercepted::refusal`] writes it now, for a request at hand).
    pub fn refuse(reason: impl Into<String>) -> Ruling {
        Ruling::Refuse(RpcError::new(REFUSED, reason))
    }

    /// Watch the request with `watch`.
    pub fn watch(watch: impl Watch) -> Ruling {
        Ruling::Watch(Box::new(watch))
    }

    /// Answer with `body` (see [`Ruling::Answer`]). A body that does not serialise is
    /// answered as the JSON-RPC internal error saying so.
    pub fn answer(body: &impl serde::Serialize) -> Ruling {
        match serde_json::value::to_raw_value(body) {
            Ok(body) => Ruling::Answer(body),
            Err(e) => Ruling::Refuse(RpcError::new(
                crate::protocol::code::INTERNAL_ERROR,
                format!("internal error: an interceptor's answer does not serialise: {e}"),
            )),
        }
    }
}

impl std::fmt::Debug for Ruling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ruling::Pass => f.write_str("Pass"),
            Ruling::Watch(_) => f.write_str("Watch(..)"),
            Ruling::Answer(body) => f.debug_tuple("Answer").field(&body.get()).finish(),
            Ruling::Refuse(error) => f.debug_tuple("Refuse").field(error).finish(),
        }
    }
}

/// What a [`Watch`] is handed around each poll of its request's user code, and drops when
/// the poll returns (on the thread that polled it): a tracing span entered, a telemetry
/// context attached.
pub type Entered = Box<dyn Any>;

/// Follows one request an [`Interceptor`] let through ([`Ruling::Watch`]).
pub trait Watch: Send + Sync + 'static {
    /// Called around every poll of the request's user code (a tool's body, a resource's
    /// read, a prompt's get), on the thread that runs it: what it returns is held while the
    /// code runs, and dropped after, on the same thread. A span or a context made current
    /// here is current in the code, and in what the code does on its own thread (a client
    /// request it sends). `None` by default; never called for a request that runs no user
    /// code.
    ///
    /// Wherever the body runs: an async body, and a sync body run in place (on the stdio
    /// reader, or a runtime worker), are polled inside the call's own poll, and it is
    /// entered there; a sync body handed to another thread (a sync worker, or tokio's
    /// blocking pool, when no place is free where the call is polled) has it entered there,
    /// around the whole body; a `#[tool(local)]` body, on its local thread, around each of
    /// its polls. So it may be called on several threads at once for one request. Once the
    /// request is answered and [`finished`](Self::finished) called, it is not called again
    /// (a sync body the deadline abandoned keeps what it entered until it returns).
    ///
    /// Not for a call that became a task (the tasks extension): its body runs on after the
    /// request was answered with the task, outside the request's watch.
    fn enter(&self) -> Option<Entered> {
        None
    }

    /// The request was answered (or ended without an answer): called once.
    fn finished(self: Box<Self>, outcome: Outcome<'_>);
}

/// A request's watch, shared between its reply (which tells it the outcome, once) and the
/// threads that run its body (which enter it until then: module `tool::run::carry`).
pub(crate) struct SharedWatch(RwLock<Option<Box<dyn Watch>>>);

impl SharedWatch {
    pub(crate) fn new(watch: Box<dyn Watch>) -> Arc<SharedWatch> {
        Arc::new(SharedWatch(RwLock::new(Some(watch))))
    }

    /// The watch, to tell; `None` once taken. It is entered no more.
    pub(crate) fn take(&self) -> Option<Box<dyn Watch>> {
        write_lock(&self.0).take()
    }
}

impl carry::Enter for SharedWatch {
    fn enter(&self) -> Option<Entered> {
        read_lock(&self.0).as_ref()?.enter()
    }
}

/// How a request ended, as its [`Watch`] is told.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Outcome<'a> {
    /// Answered with this result (a JSON object). A `tools/call` whose tool failed is a
    /// result too: see [`Outcome::is_tool_error`].
    Completed(&'a str),
    /// Answered with this JSON-RPC error.
    Error(&'a RpcError),
    /// Not answered: the client cancelled it (`notifications/cancelled`, or a modern HTTP
    /// client that went away), or the server answered it from elsewhere (its deadline, for a
    /// sync body still running).
    Unanswered,
}

impl Outcome<'_> {
    /// Whether this is a result with `"isError": true` (a tool error the model reads).
    pub fn is_tool_error(&self) -> bool {
        #[derive(Deserialize)]
        struct Flag {
            #[serde(rename = "isError", default)]
            is_error: bool,
        }
        match self {
            Outcome::Completed(body) => serde_json::from_str::<Flag>(body).is_ok_and(|f| f.is_error),
            _ => false,
        }
    }
}

/// One request, as an [`Interceptor`] sees it. Borrowed from the message being served: copy
/// out what a [`Watch`] keeps.
pub struct Intercepted<'a> {
    pub(crate) method: &'a str,
    pub(crate) id: &'a RequestId,
    pub(crate) params: Option<&'a RawValue>,
    pub(crate) principal: &'a Arc<Principal>,
    pub(crate) session_id: Option<&'a str>,
    /// The legacy session's client, when its handshake is settled.
    pub(crate) client: Option<Arc<PeerInfo>>,
    #[cfg(feature = "http")]
    pub(crate) headers: Option<&'a axum::http::HeaderMap>,
    /// The params' members an interceptor may ask for, read on the first ask.
    head: OnceLock<Head<'a>>,
    /// Who a modern request's `_meta` says the client is, read on the first ask.
    modern_client: OnceLock<PeerInfo>,
}

/// The members of a request's params that name what it is about.
#[derive(Default, Deserialize)]
struct Head<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    uri: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<&'a RawValue>,
    /// `completion/complete`'s reference (`{"type":"ref/prompt","name":…}`).
    #[serde(rename = "ref", default, borrow)]
    reference: Option<Reference<'a>>,
}

#[derive(Deserialize)]
struct Reference<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    uri: Option<Cow<'a, str>>,
}

/// The client members a modern request's `_meta` carries.
#[derive(Default, Deserialize)]
struct ModernHead<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, borrow)]
    client: Option<&'a RawValue>,
}

impl<'a> Intercepted<'a> {
    /// A request of `method` under `id`, with `params`, for `principal`.
    pub(crate) fn new(
        method: &'a str,
        id: &'a RequestId,
        params: Option<&'a RawValue>,
        principal: &'a Arc<Principal>,
    ) -> Intercepted<'a> {
        Intercepted {
            method,
            id,
            params,
            principal,
            session_id: None,
            client: None,
            #[cfg(feature = "http")]
            headers: None,
            head: OnceLock::new(),
            modern_client: OnceLock::new(),
        }
    }

    fn head(&self) -> &Head<'a> {
        self.head.get_or_init(|| {
            self.params.and_then(|p| serde_json::from_str::<Head<'a>>(p.get()).ok()).unwrap_or_default()
        })
    }

    fn modern_head(&self) -> ModernHead<'a> {
        self.meta().and_then(|m| serde_json::from_str::<ModernHead<'a>>(m.get()).ok()).unwrap_or_default()
    }

    /// The method, e.g. `tools/call`.
    pub fn method(&self) -> &'a str {
        self.method
    }

    /// The request's JSON-RPC id.
    pub fn id(&self) -> &'a RequestId {
        self.id
    }

    /// The params, raw, as the client sent them (`None` when it sent none).
    pub fn params(&self) -> Option<&'a RawValue> {
        self.params
    }

    /// What the request is about: `params.name` (a tool, a prompt), else `params.uri` (a
    /// resource), else the name or URI of `completion/complete`'s `ref`. `None` for a
    /// request about nothing in particular (`tools/list`, `ping`).
    pub fn name(&self) -> Option<&str> {
        let head = self.head();
        let reference = head.reference.as_ref();
        head.name
            .as_deref()
            .or(head.uri.as_deref())
            .or_else(|| reference.and_then(|r| r.name.as_deref().or(r.uri.as_deref())))
    }

    /// `params.arguments`, raw (a tool's or a prompt's), when there are any.
    pub fn arguments(&self) -> Option<&'a RawValue> {
        self.head().arguments.filter(|a| a.get() != "null")
    }

    /// `params._meta`, raw, when there is one: `progressToken`, a modern request's
    /// protocol version and client, `traceparent`, and whatever else the client put there.
    pub fn meta(&self) -> Option<&'a RawValue> {
        self.head().meta.filter(|m| m.get() != "null")
    }

    /// The era the request is served in: modern when its `_meta` names a protocol version
    /// (`io.modelcontextprotocol/protocolVersion`), else legacy. (Whether that version is
    /// one this server serves is checked after the interceptors, as the method's own
    /// checks are.)
    pub fn era(&self) -> Era {
        let modern = self.meta().is_some_and(|m| m.get().contains(PROTOCOL_VERSION_KEY))
            && self.modern_head().version.is_some();
        if modern { Era::Modern } else { Era::Legacy }
    }

    /// Who is calling: the principal the transport authenticated, or the server's host
    /// principal.
    pub fn principal(&self) -> &'a Arc<Principal> {
        self.principal
    }

    /// The id of the HTTP session the request belongs to (`Mcp-Session-Id`, legacy era);
    /// `None` over stdio, in process, and for a modern (sessionless) request.
    pub fn session_id(&self) -> Option<&'a str> {
        self.session_id
    }

    /// The client's name: from a modern request's `_meta` (`io.modelcontextprotocol/clientInfo`),
    /// else from its session's `initialize`. Self-reported: display it, never trust it.
    pub fn client_name(&self) -> Option<&str> {
        self.client_info().name.as_deref()
    }

    /// Who the client says it is (name, version, the protocol version it speaks), as
    /// [`client_name`](Self::client_name) reads it.
    pub fn client_info(&self) -> &PeerInfo {
        static NOBODY: PeerInfo = PeerInfo { name: None, version: None, protocol_version: None };
        if self.era() == Era::Modern {
            return self.modern_client.get_or_init(|| {
                let head = self.modern_head();
                let client = ImplementationIn::read(head.client);
                PeerInfo {
                    name: client.name.map(Cow::into_owned),
                    version: client.version.map(Cow::into_owned),
                    protocol_version: head.version.and_then(|v| serde_json::from_str(v.get()).ok()),
                }
            });
        }
        self.client.as_deref().unwrap_or(&NOBODY)
    }

    /// The HTTP request's headers, when the request came over HTTP.
    #[cfg(feature = "http")]
    pub fn headers(&self) -> Option<&'a axum::http::HeaderMap> {
        self.headers
    }

    /// The error [`Ruling::refuse`] sends for this request with `reason`:
    /// `<method> of '<name>' refused: <reason>` (`<method> refused: <reason>` for a request
    /// about nothing in particular), with the code [`REFUSED`].
    pub fn refusal(&self, reason: &str) -> RpcError {
        RpcError::new(REFUSED, refusal_message(self.method, self.name(), reason))
    }
}

impl std::fmt::Debug for Intercepted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Intercepted")
            .field("method", &self.method)
            .field("id", &self.id)
            .field("name", &self.name())
            .field("principal", &self.principal.subject())
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

/// `<method> of '<name>' refused: <reason>`.
fn refusal_message(method: &str, name: Option<&str>, reason: &str) -> String {
    format!("{} refused: {reason}", about(method, name))
}

/// `<method> of '<name>'`, or `<method>` for a request about nothing in particular: how a
/// refusal, and a tower layer's error, name the request.
pub(crate) fn about(method: &str, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("{method} of '{name}'"),
        None => method.to_owned(),
    }
}

/// An interceptor's (or a tower layer's) answer to a modern request, completed as every
/// modern result is (`_meta` with the server's identity, `resultType: "complete"`), unless
/// it says its own `resultType`. A body that is not an object is sent as it is.
pub(crate) fn completed(meta: &RawValue, body: &RawValue) -> String {
    match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(body.get()) {
        Ok(members) if !members.contains_key("resultType") => {
            serde_json::to_string(&ModernResult::complete(meta, &members))
                .unwrap_or_else(|_| body.get().to_owned())
        }
        _ => body.get().to_owned(),
    }
}

/// A server's interceptors, in the order they were installed.
#[derive(Default, Clone)]
pub(crate) struct Interceptors {
    chain: Vec<Arc<dyn Interceptor>>,
}

impl std::fmt::Debug for Interceptors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Interceptors({})", self.chain.len())
    }
}

/// What the chain decided for a request it let through: the watches to tell.
pub(crate) enum Decision {
    /// Serve it; tell these (if any) how it ended.
    Serve(Option<Box<dyn Watch>>),
    /// Answer it now with this, then tell these.
    Answered(Result<Box<RawValue>, RpcError>, Option<Box<dyn Watch>>),
}

impl Interceptors {
    pub(crate) fn push(&mut self, interceptor: Arc<dyn Interceptor>) {
        self.chain.push(interceptor);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.chain.is_empty()
    }

    /// Run the chain over `request`.
    pub(crate) fn decide(&self, request: &Intercepted<'_>) -> Decision {
        let mut watches: Vec<Box<dyn Watch>> = Vec::new();
        for interceptor in &self.chain {
            match interceptor.intercept(request) {
                Ruling::Pass => {}
                Ruling::Watch(watch) => watches.push(watch),
                Ruling::Answer(body) => return Decision::Answered(Ok(body), Many::of(watches)),
                Ruling::Refuse(mut error) => {
                    if error.code == REFUSED {
                        error.message = refusal_message(request.method, request.name(), &error.message);
                    }
                    return Decision::Answered(Err(error), Many::of(watches));
                }
            }
        }
        Decision::Serve(Many::of(watches))
    }
}

/// Several watches of one request, told in the order their interceptors ran.
struct Many(Vec<Box<dyn Watch>>);

impl Many {
    fn of(mut watches: Vec<Box<dyn Watch>>) -> Option<Box<dyn Watch>> {
        match watches.len() {
            0 => None,
            1 => watches.pop(),
            _ => Some(Box::new(Many(watches))),
        }
    }
}

impl Watch for Many {
    fn enter(&self) -> Option<Entered> {
        let entered: Vec<Entered> = self.0.iter().filter_map(|w| w.enter()).collect();
        (!entered.is_empty()).then(|| Box::new(Reversed(entered)) as Entered)
    }

    fn finished(self: Box<Self>, outcome: Outcome<'_>) {
        for watch in self.0 {
            watch.finished(outcome);
        }
    }
}

/// Guards dropped last-entered first, as nested scopes are left.
struct Reversed(Vec<Entered>);

impl Drop for Reversed {
    fn drop(&mut self) {
        while let Some(guard) = self.0.pop() {
            drop(guard);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(params: &str, f: impl FnOnce(&Intercepted<'_>)) {
        let params = serde_json::from_str::<&RawValue>(params).unwrap();
        let principal = Arc::new(Principal::host());
        let id = RequestId::Number(1);
        f(&Intercepted::new("tools/call", &id, Some(params), &principal));
    }

    #[test]
    fn the_view_reads_name_arguments_meta_and_era_from_the_params() {
        seen(r#"{"name":"echo","arguments":{"text":"hi"},"_meta":{"traceparent":"00-x"}}"#, |r| {
            assert_eq!(r.name(), Some("echo"));
            assert_eq!(r.arguments().map(RawValue::get), Some(r#"{"text":"hi"}"#));
            assert_eq!(r.meta().map(RawValue::get), Some(r#"{"traceparent":"00-x"}"#));
            assert_eq!(r.era(), Era::Legacy);
            assert_eq!(r.client_name(), None);
        });
        seen(
            r#"{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"py","version":"2"}}}"#,
            |r| {
                assert_eq!(r.era(), Era::Modern);
                assert_eq!(r.client_name(), Some("py"));
                assert_eq!(r.client_info().protocol_version.as_deref(), Some("2026-07-28"));
                assert!(r.arguments().is_none());
            },
        );
        seen(r#"{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"a","value":""}}"#, |r| {
            assert_eq!(r.name(), Some("greet"));
        });
    }

    #[test]
    fn a_refusal_names_the_method_and_what_it_was_about() {
        seen(r#"{"name":"deploy"}"#, |r| {
            assert_eq!(r.refusal("not today").message, "tools/call of 'deploy' refused: not today");
        });
        assert_eq!(refusal_message("tools/list", None, "no"), "tools/list refused: no");
    }
}
