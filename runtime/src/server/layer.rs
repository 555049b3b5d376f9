//! Tower layers around every request the engine serves (feature `tower`): [`McpRequest`],
//! [`McpResponse`], [`Next`] (the service a layer wraps), the codes a layer's errors are
//! answered with ([`TIMED_OUT`], [`OVERLOADED`]), and `Stack`, the installed layers behind
//! one type. How a request travels through them is `dispatch/layered`'s; where they sit and
//! what they cost is [`ServerBuilder::layer`](crate::server::ServerBuilder::layer)'s rustdoc.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};

use serde::Deserialize;
use serde_json::value::RawValue;
use tower::{BoxError, Service, ServiceExt};

use crate::context::PeerInfo;
use crate::principal::Principal;
use crate::protocol::{Era, RequestId, RpcError, code};
use crate::sync::lock;

use super::intercept::{Intercepted, about};

/// The JSON-RPC code of a request a layer timed out (tower's `TimeoutLayer`: its
/// [`Elapsed`](tower::timeout::error::Elapsed)), in the implementation-defined server range
/// beside [`REFUSED`](super::REFUSED).
pub const TIMED_OUT: i64 = -32033;

/// The JSON-RPC code of a request a layer shed because the server is at capacity (tower's
/// `LoadShedLayer`: its [`Overloaded`](tower::load_shed::error::Overloaded)).
pub const OVERLOADED: i64 = -32034;

/// One request, as a tower layer around the engine sees it: what an
/// [`Intercepted`] shows (method, id, params, name, arguments, `_meta`, era, principal,
/// session id, client, HTTP headers), owned, and [`Extensions`](http::Extensions) a layer may
/// fill for the layers inside it. Made by the engine; served once, by [`Next`].
#[non_exhaustive]
pub struct McpRequest {
    method: Box<str>,
    id: RequestId,
    params: Option<Box<RawValue>>,
    name: Option<Box<str>>,
    era: Era,
    principal: Arc<Principal>,
    session_id: Option<Arc<str>>,
    client: PeerInfo,
    #[cfg(feature = "http")]
    headers: Option<Arc<axum::http::HeaderMap>>,
    extensions: http::Extensions,
    /// Whether the caller is untrusted ([`Exposure`](crate::server::Exposure)): a layer's
    /// own failure is then answered without its detail ([`layer_error`]).
    sealed: bool,
    /// The way into the engine, taken by the innermost [`Next`].
    inward: Option<Box<dyn Inward>>,
}

/// The way a request goes into the engine from the innermost [`Next`]: served there as it
/// would be without layers (module `dispatch/layered`).
pub(crate) trait Inward: Send + Sync + 'static {
    /// Serve `request` through the engine; its answer, or [`McpResponse::unanswered`] when
    /// it ended without one (the client cancelled it).
    fn serve(self: Box<Self>, request: McpRequest) -> Pin<Box<dyn Future<Output = McpResponse> + Send>>;
}

impl McpRequest {
    /// The layered view of the request `seen` shows (`headers`: its HTTP request's; `sealed`:
    /// whether its caller is untrusted), which `inward` serves.
    pub(crate) fn new(
        seen: &Intercepted<'_>,
        #[cfg(feature = "http")] headers: Option<Arc<axum::http::HeaderMap>>,
        sealed: bool,
        inward: Box<dyn Inward>,
    ) -> McpRequest {
        McpRequest {
            method: seen.method().into(),
            id: seen.id().clone(),
            params: seen.params().map(RawValue::to_owned),
            name: seen.name().map(Into::into),
            era: seen.era(),
            principal: Arc::clone(seen.principal()),
            session_id: seen.session_id().map(Arc::from),
            client: seen.client_info().clone(),
            #[cfg(feature = "http")]
            headers,
            extensions: http::Extensions::new(),
            sealed,
            inward: Some(inward),
        }
    }

    /// The request as an interceptor sees it: what [`arguments`](Self::arguments) and
    /// [`meta`](Self::meta) read.
    fn view(&self) -> Intercepted<'_> {
        Intercepted::new(&self.method, &self.id, self.params.as_deref(), &self.principal)
    }

    /// The method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request's JSON-RPC id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The params, raw, as the client sent them (`None` when it sent none).
    pub fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// What the request is about, as [`Intercepted::name`] says: the tool or prompt's name,
    /// the resource's URI, the reference of `completion/complete`; `None` for `tools/list`,
    /// `ping` and the like.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// `params.arguments`, raw, when there are any.
    pub fn arguments(&self) -> Option<&RawValue> {
        self.view().arguments()
    }

    /// `params._meta`, raw, when there is one.
    pub fn meta(&self) -> Option<&RawValue> {
        self.view().meta()
    }

    /// The era the request is served in, as [`Intercepted::era`] says.
    pub fn era(&self) -> Era {
        self.era
    }

    /// Who is calling: the principal the transport authenticated, or the server's host
    /// principal.
    pub fn principal(&self) -> &Arc<Principal> {
        &self.principal
    }

    /// The id of the HTTP session the request belongs to (legacy era); `None` over stdio, in
    /// process, and for a modern request.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The client's name, as [`Intercepted::client_name`] reads it. Self-reported: display
    /// it, never trust it.
    pub fn client_name(&self) -> Option<&str> {
        self.client.name.as_deref()
    }

    /// Who the client says it is (name, version, protocol version).
    pub fn client_info(&self) -> &PeerInfo {
        &self.client
    }

    /// The HTTP request's headers, when the request came over HTTP.
    #[cfg(feature = "http")]
    pub fn headers(&self) -> Option<&axum::http::HeaderMap> {
        self.headers.as_deref()
    }

    /// Values a layer hands the layers inside it (the engine reads none of them, and a
    /// tool does not see them).
    pub fn extensions(&self) -> &http::Extensions {
        &self.extensions
    }

    /// [`extensions`](Self::extensions), to insert into.
    pub fn extensions_mut(&mut self) -> &mut http::Extensions {
        &mut self.extensions
    }

    /// The error a layer refuses this request with for `reason`, worded and coded as an
    /// interceptor's refusal ([`Intercepted::refusal`]): `tools/call of 'deploy' refused:
    /// <reason>`, code [`REFUSED`](super::REFUSED).
    pub fn refusal(&self, reason: &str) -> RpcError {
        self.view().refusal(reason)
    }

    /// How a layer's error names the request (module `intercept`'s `about`).
    fn about(&self) -> String {
        about(&self.method, self.name())
    }
}

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("method", &self.method)
            .field("id", &self.id)
            .field("name", &self.name)
            .field("era", &self.era)
            .field("principal", &self.principal.subject())
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

/// How a request was answered, as the layers around the engine see it (and may make for
/// themselves): a result, a JSON-RPC error, or, when the client cancelled the request,
/// nothing.
#[derive(Debug)]
#[non_exhaustive]
pub struct McpResponse {
    answer: Answer,
}

#[derive(Debug)]
enum Answer {
    Result(Box<RawValue>),
    Error(RpcError),
    Unanswered,
}

impl McpResponse {
    /// Answer with `body`, a JSON object. To a modern (2026-07-28) request it is completed
    /// as the engine completes every result (`_meta` with the server's identity,
    /// `resultType: "complete"`) unless it names a `resultType` of its own, as an
    /// interceptor's answer is.
    pub fn result(body: Box<RawValue>) -> McpResponse {
        McpResponse { answer: Answer::Result(body) }
    }

    /// Answer with `body` serialised (see [`result`](Self::result)); a body that does not
    /// serialise is answered as the JSON-RPC internal error saying so.
    pub fn json(body: &impl serde::Serialize) -> McpResponse {
        match serde_json::value::to_raw_value(body) {
            Ok(body) => McpResponse::result(body),
            Err(e) => McpResponse::error(RpcError::new(
                code::INTERNAL_ERROR,
                format!("internal error: a layer's answer does not serialise: {e}"),
            )),
        }
    }

    /// Answer with a JSON-RPC error.
    pub fn error(error: RpcError) -> McpResponse {
        McpResponse { answer: Answer::Error(error) }
    }

    /// No answer at all: what the engine gives for a request its client cancelled. The
    /// outermost layer's `unanswered` sends nothing.
    pub(crate) fn unanswered() -> McpResponse {
        McpResponse { answer: Answer::Unanswered }
    }

    /// The result, when this is one (a JSON object; a `tools/call` whose tool failed is a
    /// result with `"isError": true`).
    pub fn as_result(&self) -> Option<&RawValue> {
        match &self.answer {
            Answer::Result(body) => Some(body),
            _ => None,
        }
    }

    /// The JSON-RPC error, when this is one.
    pub fn as_error(&self) -> Option<&RpcError> {
        match &self.answer {
            Answer::Error(error) => Some(error),
            _ => None,
        }
    }

    /// Whether the request ended without an answer (the client cancelled it): nothing is
    /// sent for it.
    pub fn is_unanswered(&self) -> bool {
        matches!(self.answer, Answer::Unanswered)
    }

    /// The response a framed JSON-RPC message (`{"jsonrpc":"2.0","id":…,"result":…}` or
    /// `…"error":…`) carries; `None` for anything else.
    pub(crate) fn from_message(message: &str) -> Option<McpResponse> {
        #[derive(Deserialize)]
        struct Framed<'a> {
            #[serde(borrow, default)]
            result: Option<&'a RawValue>,
            #[serde(default)]
            error: Option<ErrorOut>,
        }
        #[derive(Deserialize)]
        struct ErrorOut {
            code: i64,
            message: String,
            #[serde(default)]
            data: Option<Box<RawValue>>,
        }
        let framed: Framed<'_> = serde_json::from_str(message).ok()?;
        match (framed.result, framed.error) {
            (Some(body), None) => Some(McpResponse::result(body.to_owned())),
            (None, Some(ErrorOut { code, message, data })) => {
                Some(McpResponse::error(RpcError { code, message, data }))
            }
            _ => None,
        }
    }

    /// What is sent: the result or the error; `None` when nothing is.
    pub(crate) fn into_answer(self) -> Option<Result<Box<RawValue>, RpcError>> {
        match self.answer {
            Answer::Result(body) => Some(Ok(body)),
            Answer::Error(error) => Some(Err(error)),
            Answer::Unanswered => None,
        }
    }
}

/// The JSON-RPC error a client reads for a layer's `error`, failing the request `about`
/// names (`tools/call of 'slow'`):
///
/// | the layer's error | code | message |
/// | --- | --- | --- |
/// | tower's [`Elapsed`](tower::timeout::error::Elapsed) (`TimeoutLayer`) | [`TIMED_OUT`] | `tools/call of 'slow' timed out: the server's time limit for a request passed before it was answered` |
/// | tower's [`Overloaded`](tower::load_shed::error::Overloaded) (`LoadShedLayer`) | [`OVERLOADED`] | `tools/call of 'slow' was not served: the server is at capacity; try again later` |
/// | an [`RpcError`] | its own | its own, sent as it is |
/// | anything else | -32603 | `internal error: tools/call of 'slow' failed in a server layer: <the error>` |
///
/// To untrusted callers (`sealed`, [`Exposure::UntrustedCallers`](crate::server::Exposure)),
/// "anything else" is `internal error: tools/call of 'slow' failed in a server layer`: the
/// error is the program's internals, logged and never sent, as a tool's internal failure is.
pub(crate) fn layer_error(error: BoxError, about: &str, sealed: bool) -> RpcError {
    if error.is::<tower::timeout::error::Elapsed>() {
        return RpcError::new(
            TIMED_OUT,
            format!("{about} timed out: the server's time limit for a request passed before it was answered"),
        );
    }
    if error.is::<tower::load_shed::error::Overloaded>() {
        return RpcError::new(
            OVERLOADED,
            format!("{about} was not served: the server is at capacity; try again later"),
        );
    }
    match error.downcast::<RpcError>() {
        Ok(error) => *error,
        Err(other) if sealed => {
            tracing::warn!(request = about, error = %other, "a server layer failed; the caller is told no more");
            RpcError::new(code::INTERNAL_ERROR, format!("internal error: {about} failed in a server layer"))
        }
        Err(other) => RpcError::new(
            code::INTERNAL_ERROR,
            format!("internal error: {about} failed in a server layer: {other}"),
        ),
    }
}

/// A layered service behind one type (tower's `BoxCloneService`): cloned for each request,
/// readied and called once.
type Boxed = tower::util::BoxCloneService<McpRequest, McpResponse, BoxError>;

/// The layers a server was built with, outermost first: one service, cloned for each
/// request (from behind a lock, so the service need not be `Sync`), then served by tower's
/// `oneshot` (`poll_ready`, then `call`).
#[derive(Clone)]
pub(crate) struct Stack {
    service: Arc<Mutex<Boxed>>,
    /// The requests in the layers now, over every session (module `layered`): what a
    /// session's drain waits for besides its calls in flight, since a request still in
    /// the layers is in no session's table yet.
    in_flight: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Stack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stack(..)")
    }
}

impl Stack {
    /// `layer` around what is installed already (`below`; the engine when `None`).
    pub(crate) fn new<L>(layer: L, below: Option<Stack>) -> Stack
    where
        L: tower::Layer<Next>,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        let next = Next { below: below.map(|stack| stack.service()), failed: None };
        let service = Arc::new(Mutex::new(Boxed::new(layer.layer(next).map_err(Into::into))));
        Stack { service, in_flight: Arc::default() }
    }

    /// A clone of the layered service, for one request.
    fn service(&self) -> Boxed {
        lock(&self.service).clone()
    }

    /// How many requests are in the layers now (module `layered` counts them).
    pub(crate) fn in_flight(&self) -> &Arc<AtomicUsize> {
        &self.in_flight
    }

    /// Whether no request is in the layers.
    pub(crate) fn is_idle(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0
    }

    /// Serve `request` through the layers; a layer's error is answered as [`layer_error`]
    /// says.
    pub(crate) fn serve(&self, request: McpRequest) -> impl Future<Output = McpResponse> + Send + 'static {
        let (about, sealed) = (request.about(), request.sealed);
        let answering = self.service().oneshot(request);
        async move {
            match answering.await {
                Ok(response) => response,
                Err(error) => McpResponse::error(layer_error(error, &about, sealed)),
            }
        }
    }
}

/// The service a layer installed with
/// [`ServerBuilder::layer`](crate::server::ServerBuilder::layer) wraps: the rest of the
/// server. For the first layer installed, that is the engine itself (the interceptors, then
/// the method table), serving the request exactly as it would be served without layers; for
/// a later one, the layers installed before it (their readiness is its own, so a
/// `LoadShedLayer` installed after a `ConcurrencyLimitLayer` sheds when the limit is
/// reached), then the engine.
///
/// Never fails: every answer, a JSON-RPC error included, is an [`McpResponse`] (an inner
/// layer's error is turned into one at its own boundary). Dropping its future before it
/// completes cancels the request in the engine as a client's `notifications/cancelled`
/// would: the tool's [`Context`](crate::Context) token is cancelled and its body dropped.
///
/// As tower requires of every service, call `poll_ready` before `call` (or let
/// [`ServiceExt::oneshot`](tower::ServiceExt::oneshot) do both): the layers below may take
/// their permit there.
pub struct Next {
    below: Option<Boxed>,
    /// What the layers below failed to get ready with: the next call's answer.
    failed: Option<BoxError>,
}

impl Clone for Next {
    fn clone(&self) -> Next {
        Next { below: self.below.clone(), failed: None }
    }
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.below.is_some() { "Next(layers, engine)" } else { "Next(engine)" })
    }
}

/// The future of [`Next`]'s `call`.
pub type NextFuture = Pin<Box<dyn Future<Output = Result<McpResponse, Infallible>> + Send>>;

impl Service<McpRequest> for Next {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = NextFuture;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        let Some(below) = &mut self.below else { return Poll::Ready(Ok(())) };
        match below.poll_ready(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(())) => Poll::Ready(Ok(())),
            Poll::Ready(Err(error)) => {
                self.failed = Some(error);
                Poll::Ready(Ok(()))
            }
        }
    }

    fn call(&mut self, mut request: McpRequest) -> NextFuture {
        if let Some(error) = self.failed.take() {
            let error = layer_error(error, &request.about(), request.sealed);
            return Box::pin(std::future::ready(Ok(McpResponse::error(error))));
        }
        if let Some(below) = &mut self.below {
            let (about, sealed) = (request.about(), request.sealed);
            let answering = below.call(request);
            return Box::pin(async move {
                Ok(match answering.await {
                    Ok(response) => response,
                    Err(error) => McpResponse::error(layer_error(error, &about, sealed)),
                })
            });
        }
        match request.inward.take() {
            Some(inward) => {
                let served = inward.serve(request);
                Box::pin(async move { Ok(served.await) })
            }
            None => Box::pin(std::future::ready(Ok(McpResponse::error(RpcError::new(
                code::INTERNAL_ERROR,
                format!("internal error: {} was served already; a request is served once", request.about()),
            ))))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn about() -> &'static str {
        "tools/call of 'slow'"
    }

    #[test]
    fn a_timeout_reads_as_the_request_having_timed_out() {
        let error = layer_error(Box::new(tower::timeout::error::Elapsed::new()), about(), false);
        assert_eq!(error.code, TIMED_OUT);
        assert_eq!(
            error.message,
            "tools/call of 'slow' timed out: the server's time limit for a request passed before it was answered"
        );
    }

    #[test]
    fn a_shed_request_reads_as_the_server_at_capacity() {
        let error = layer_error(Box::new(tower::load_shed::error::Overloaded::new()), about(), false);
        assert_eq!(error.code, OVERLOADED);
        assert_eq!(
            error.message,
            "tools/call of 'slow' was not served: the server is at capacity; try again later"
        );
    }

    #[test]
    fn a_layers_rpc_error_is_sent_as_it_is_and_anything_else_is_internal() {
        let own = RpcError::new(-32099, "quota spent for today");
        assert_eq!(layer_error(Box::new(own.clone()), about(), true), own);
        let other = layer_error("the cache is down".into(), "tools/list", false);
        assert_eq!(other.code, code::INTERNAL_ERROR);
        assert_eq!(other.message, "internal error: tools/list failed in a server layer: the cache is down");
        // To untrusted callers the layer's own words are internals: logged, never sent.
        let sealed = layer_error("the cache at 10.0.0.7 is down".into(), "tools/list", true);
        assert_eq!(sealed.code, code::INTERNAL_ERROR);
        assert_eq!(sealed.message, "internal error: tools/list failed in a server layer");
    }

    #[test]
    fn a_framed_answer_reads_back_as_the_response_it_carries() {
        let ok = McpResponse::from_message(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#).unwrap();
        assert_eq!(ok.as_result().map(RawValue::get), Some(r#"{"content":[]}"#));
        let err = McpResponse::from_message(
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"unknown tool 'x'","data":{"k":1}}}"#,
        )
        .unwrap();
        let error = err.as_error().unwrap();
        assert_eq!((error.code, error.message.as_str()), (-32602, "unknown tool 'x'"));
        assert_eq!(error.data.as_deref().map(RawValue::get), Some(r#"{"k":1}"#));
        assert!(McpResponse::from_message(r#"{"jsonrpc":"2.0","method":"x"}"#).is_none());
        assert!(McpResponse::unanswered().is_unanswered());
        assert!(McpResponse::unanswered().into_answer().is_none());
    }
}
