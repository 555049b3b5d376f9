//! [`Session`]: one connection's worth of state, and the entry point a transport feeds
//! messages into.
//!
//! A stdio process is one session; an HTTP server holds one per `Mcp-Session-Id` (legacy)
//! and may use one for all its stateless (modern) traffic. The session owns the legacy
//! handshake state, the table of calls in flight (so `notifications/cancelled` can find
//! them) and the pings it sent. Everything else is the [`Server`](crate::server::Server)'s.

use std::sync::Arc;
#[cfg(feature = "http")]
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;

#[cfg(feature = "http")]
use crate::context::PeerInfo;
use crate::principal::Principal;
#[cfg(feature = "http")]
use crate::protocol::ClientCapabilities;
use crate::protocol::envelope::{Frame, Incoming, RejectedMessage, decode, decode_call, kind, parse_frame};
use crate::protocol::notifications::CancelledParams;
use crate::protocol::{Outbound, ProtocolVersion, RequestId, RpcError};
use crate::sync::lock;

use super::sink::{BatchCollector, Reply, Route, Sink};
use super::state::SessionInner;
#[cfg(feature = "http")]
use super::state::{LegacyState, Settled};
use super::table;
use super::talk::Answer;
use crate::protocol::methods;
use crate::server::access::caller::{Caller, Inline};
use crate::server::notify::subscriptions::{ListFlags, Subscriber};
use crate::server::serving::Serving;

/// One connection's state. Cheap to clone: clones share it.
#[derive(Clone)]
pub struct Session {
    pub(crate) inner: Arc<SessionInner>,
    /// What the server serves: the method table dispatches into it.
    serving: Arc<Serving>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("protocol_version", &self.protocol_version())
            .field("in_flight", &self.in_flight())
            .finish_non_exhaustive()
    }
}

/// The client of a session made for one request (stateless HTTP): nobody known, speaking
/// `version`. One `Arc` per version for the whole process, so such a request copies no
/// version string into a client of its own.
#[cfg(feature = "http")]
fn unknown_client(version: ProtocolVersion) -> Arc<PeerInfo> {
    static CLIENTS: [OnceLock<Arc<PeerInfo>>; ProtocolVersion::ALL.len()] =
        [const { OnceLock::new() }; ProtocolVersion::ALL.len()];
    // A fieldless enum's discriminants are its positions in `ALL` (a test holds them to it).
    let client = &CLIENTS[version as usize];
    Arc::clone(client.get_or_init(|| {
        Arc::new(PeerInfo { protocol_version: Some(version.as_str().to_owned()), ..PeerInfo::default() })
    }))
}

impl Session {
    pub(crate) fn new(serving: Arc<Serving>) -> Session {
        let inner = Arc::new(SessionInner::new(Arc::clone(&serving.shared)));
        Session { inner, serving }
    }

    /// A session whose legacy handshake is settled at `version`, with an unknown client.
    #[cfg(feature = "http")]
    pub(crate) fn already_initialized(serving: Arc<Serving>, version: ProtocolVersion) -> Session {
        let session = Session::new(serving);
        let client = unknown_client(version);
        let capabilities = ClientCapabilities::default();
        *lock(&session.inner.legacy) = Some(LegacyState { version, client, capabilities, initialized: true });
        session.inner.asking.set_one_shot();
        session
    }

    /// A legacy session re-made from what its handshake settled on another replica (a
    /// shared session store's state): not one-shot, it talks back as the original did.
    #[cfg(feature = "http")]
    pub(crate) fn restored(serving: Arc<Serving>, settled: Settled) -> Session {
        let session = Session::new(serving);
        session.apply_settled(&settled);
        session
    }

    /// Take `settled` as this session's handshake, log level and subscriptions (another
    /// replica changed them); a session now initialized starts taking list changes. The
    /// subscriptions are taken only once the session has its notifier (call it again then).
    #[cfg(feature = "http")]
    pub(crate) fn apply_settled(&self, settled: &Settled) {
        let Settled { version, client, capabilities, level, initialized, subscriptions } = settled;
        let state = LegacyState {
            version: *version,
            client: Arc::new(client.clone()),
            capabilities: *capabilities,
            initialized: *initialized,
        };
        *lock(&self.inner.legacy) = Some(state);
        self.inner.asking.set_level(*level);
        if let Some(s) = self.inner.subscriber.get() {
            s.set_uris(subscriptions);
            if *initialized {
                s.ready();
            }
        }
    }

    /// What this session's legacy handshake settled, its log level and its subscriptions:
    /// what a shared session store keeps. `None` before `initialize`.
    #[cfg(feature = "http")]
    pub(crate) fn settled(&self) -> Option<Settled> {
        let state = self.inner.legacy_state()?;
        let level = self.inner.asking.level().unwrap_or(super::talk::DEFAULT_LOG_LEVEL);
        Some(Settled {
            version: state.version,
            client: PeerInfo::clone(&state.client),
            capabilities: state.capabilities,
            level,
            initialized: state.initialized,
            subscriptions: self.inner.subscriber.get().map(|s| s.uris()).unwrap_or_default(),
        })
    }

    /// Read this session's subscriptions again through `recheck` before each resource
    /// update (its state is in a shared session store, where another replica may change
    /// them). Call after [`set_notifier`](Self::set_notifier).
    #[cfg(feature = "http")]
    pub(crate) fn recheck_subscriptions(
        &self,
        recheck: Arc<dyn crate::server::notify::subscriptions::Recheck>,
    ) {
        if let Some(s) = self.inner.subscriber.get() {
            s.recheck_with(recheck);
        }
    }

    /// Handle one inbound message (a line on stdio, a body on HTTP). Answers go to `sink`,
    /// now or, for a tool call, later from the call's own task.
    ///
    /// Never panics and never fails: whatever arrives gets the answer the protocol gives
    /// it, or none for a notification. Must be called within a tokio runtime (tool calls
    /// are spawned onto it). Every request in it is served for the server's host principal.
    pub fn handle(&self, message: &str, sink: &Arc<dyn Sink>) {
        self.serve(message, sink, self.inner.shared.host_caller());
    }

    /// [`handle`](Self::handle) on behalf of `principal`: every request in `message` is
    /// served for it (each tool reads it from [`Context::principal`](crate::Context::principal),
    /// and authorization rules judge it). A transport that authenticates its callers (HTTP)
    /// calls this; [`handle`](Self::handle) serves the server's host principal.
    pub fn handle_as(&self, principal: Arc<Principal>, message: &str, sink: &Arc<dyn Sink>) {
        self.serve(message, sink, Caller::new(&principal, &self.inner.shared.exposure));
    }

    /// [`handle_as`](Self::handle_as) for a message whose rate-limit cell the transport has
    /// taken already ([`Server::admit`](crate::server::Server::admit)), from callers `exposure` says,
    /// with its requests polled as `inline` says, and `headers` the HTTP request's. `decoded` is the message as a `tools/call`
    /// when the transport has decoded it in one pass already (`envelope::decode_call`, to
    /// route it): it is served as `handle` would serve it, without decoding the message again.
    #[cfg(feature = "http")]
    // Each part is the transport's to say, and each is a borrow it holds for the message.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn handle_admitted(
        &self,
        principal: &Arc<Principal>,
        exposure: &Arc<crate::server::access::exposure::Exposure>,
        headers: &axum::http::HeaderMap,
        message: &str,
        decoded: Option<crate::protocol::envelope::DecodedCall<'_>>,
        sink: &Arc<dyn Sink>,
        inline: Inline,
    ) {
        let caller = Caller { principal, exposure, admitted: true, inline, headers: Some(headers) };
        match decoded {
            // An oversized message goes to `handle`, which refuses it; an intercepted or
            // layered one is read the general way (modules `intercept`, `layered`).
            Some(call)
                if message.len() <= self.inner.shared.options.max_message_size && !self.inner.shared.seam =>
            {
                let reply = Reply::new(Some(call.id), Route::Direct(sink.clone()));
                table::call(&self.inner, &self.serving, reply, call.params, caller)
            }
            _ => self.serve(message, sink, caller),
        }
    }

    /// [`handle`](Self::handle) for bytes: text that is not UTF-8 is a parse error.
    pub fn handle_bytes(&self, message: &[u8], sink: &Arc<dyn Sink>) {
        self.handle_bytes_polled(message, sink, Inline::No);
    }

    /// [`handle_bytes`](Self::handle_bytes) with each request polled first as `inline` says
    /// (stdio's reader thread polls them in place).
    pub(crate) fn handle_bytes_polled(&self, message: &[u8], sink: &Arc<dyn Sink>, inline: Inline) {
        if message.len() > self.inner.shared.options.max_message_size {
            return self.reject_oversized(sink);
        }
        match std::str::from_utf8(message) {
            Ok(text) => self.serve(text, sink, self.inner.shared.host_caller().polled(inline)),
            Err(e) => sink.send(Outbound::error(
                None,
                &RpcError::parse_error(format!("the message is not UTF-8 ({e})")),
            )),
        }
    }

    /// [`handle`](Self::handle) with each request polled first as `inline` says.
    #[cfg(test)]
    pub(crate) fn handle_polled(&self, message: &str, sink: &Arc<dyn Sink>, inline: Inline) {
        self.serve(message, sink, self.inner.shared.host_caller().polled(inline));
    }

    /// Answer a message that was over the size limit and was discarded unread (a transport
    /// that streams input calls this instead of buffering the whole message).
    pub fn reject_oversized(&self, sink: &Arc<dyn Sink>) {
        Session::reject(self.inner.shared.options.max_message_size, sink);
    }

    /// Refuse a message over `limit` bytes.
    fn reject(limit: usize, sink: &Arc<dyn Sink>) {
        tracing::warn!(limit, "discarded an inbound message over the size limit");
        sink.send(Outbound::error(
            None,
            &RpcError::invalid_request(format!(
                "invalid request: the message is over the {limit}-byte limit and was discarded"
            )),
        ));
    }

    /// Say where notifications sent outside any call go (`notifications/resources/updated`
    /// for a legacy subscription): stdout for stdio, the GET stream for an HTTP session.
    ///
    /// The session then takes every `notifications/*/list_changed` a live server sends,
    /// from `notifications/initialized` on. Called once, before the first message.
    pub(crate) fn set_notifier(&self, sink: Arc<dyn Sink>) {
        let initialized = self.is_initialized();
        let s =
            self.inner.subscriber.get_or_init(|| Subscriber::new(sink, None, ListFlags::ALL, initialized));
        self.inner.shared.subscriptions.add(s);
    }

    /// Cancel the call in flight under `id` as a client's `notifications/cancelled` does:
    /// its future is dropped and no response is sent. Returns whether there was one.
    pub fn cancel(&self, id: &RequestId) -> bool {
        self.inner.running.cancel(id)
    }

    /// How many tool calls are in flight (running or waiting for a slot).
    pub fn in_flight(&self) -> usize {
        self.inner.running.len()
    }

    /// Name this session by its transport's id for it (HTTP's `Mcp-Session-Id`), which
    /// interceptors and each call's context read. Set once; later calls are ignored.
    #[cfg(feature = "http")]
    pub(crate) fn set_id(&self, id: &str) {
        let _ = self.inner.id.set(Arc::from(id));
    }

    /// The protocol version the `initialize` handshake settled, if there was one.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.inner.legacy_state().map(|s| s.version)
    }

    /// Whether the legacy handshake completed (`notifications/initialized` arrived).
    pub fn is_initialized(&self) -> bool {
        self.inner.legacy_state().is_some_and(|s| s.initialized)
    }

    /// Wait up to `grace` for the calls in flight (and the requests in the server's tower
    /// layers) to finish and answer, then drop the rest unanswered. A transport calls this
    /// when its input closes.
    pub async fn drain(&self, grace: Duration) {
        let running = &self.inner.running;
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let idle = running.idle.notified();
            if running.len() == 0 && self.layers_idle() {
                return;
            }
            if tokio::time::timeout_at(deadline, idle).await.is_err() {
                break;
            }
        }
        let dropped = running.abort_all();
        if dropped > 0 {
            tracing::warn!(dropped, "input closed; calls still running after the grace period were dropped");
        }
    }

    /// Whether no request is in the server's tower layers (feature `tower`): one still there
    /// is in no table of calls yet, and a drain waits for it as for a call in flight.
    fn layers_idle(&self) -> bool {
        #[cfg(feature = "tower")]
        if let Some(stack) = &self.inner.shared.layers {
            return stack.is_idle();
        }
        true
    }

    /// Send the client a `ping` (legacy sessions only: modern servers send no requests) and
    /// wait up to `timeout` for its answer; returns the round trip.
    pub async fn ping(&self, sink: &Arc<dyn Sink>, timeout: Duration) -> Result<Duration, PingError> {
        if !self.is_initialized() {
            return Err(PingError::NotInitialized);
        }
        let asking = &self.inner.asking;
        let (id, rx) = asking.expect("toolwire-ping-");
        let start = Instant::now();
        sink.send(Outbound::request(&id, methods::PING));
        let outcome = tokio::time::timeout(timeout, rx).await;
        asking.forget(&id);
        match outcome {
            Ok(Ok(Ok(_))) => Ok(start.elapsed()),
            Ok(Ok(Err((code, message)))) => Err(PingError::Refused {
                code,
                message: message.unwrap_or_else(|| "(no message)".to_owned()),
            }),
            Ok(Err(_)) | Err(_) => Err(PingError::TimedOut(timeout)),
        }
    }
}

impl Session {
    /// [`Session::handle`], for `caller`.
    fn serve(&self, message: &str, sink: &Arc<dyn Sink>, caller: Caller<'_>) {
        let limit = self.inner.shared.options.max_message_size;
        if message.len() > limit {
            return Session::reject(limit, sink);
        }
        // A blank line is not a message: nothing to answer. (A message that starts with
        // `{`, every one in practice, is not blank: no trim.)
        if message.as_bytes().first() != Some(&b'{') && message.trim().is_empty() {
            return;
        }
        match parse_frame(message) {
            Err(error) => sink.send(Outbound::error(None, &error)),
            Ok(Frame::Single(raw)) => self.dispatch(raw, Route::Direct(sink.clone()), false, caller),
            Ok(Frame::Batch(items)) => self.batch(items, sink, caller),
        }
    }

    fn batch(&self, items: Vec<&RawValue>, sink: &Arc<dyn Sink>, caller: Caller<'_>) {
        let refuse = |message: String| sink.send(Outbound::error(None, &RpcError::invalid_request(message)));
        match self.inner.legacy_state().map(|s| s.version) {
            Some(v) if v.allows_batches() => {}
            Some(v) => {
                return refuse(format!(
                    "invalid request: JSON-RPC batches are not part of MCP {v}; send each message on its own"
                ));
            }
            None => {
                return refuse(
                    "invalid request: JSON-RPC batches are only allowed in a session that negotiated 2025-03-26; send each message on its own"
                        .to_owned(),
                );
            }
        }
        if items.is_empty() {
            return refuse("invalid request: the batch is empty".to_owned());
        }
        let collector = BatchCollector::new(sink.clone());
        for raw in items {
            if raw.get().as_bytes().first() != Some(&b'{') {
                Reply::new(None, Route::Batch(collector.clone())).error(RpcError::invalid_request(format!(
                    "invalid request: a batch element must be a JSON object, got {}",
                    kind(raw.get())
                )));
                continue;
            }
            self.dispatch(raw.get(), Route::Batch(collector.clone()), true, caller);
        }
        collector.seal();
    }

    fn dispatch(&self, text: &str, route: Route, in_batch: bool, caller: Caller<'_>) {
        // The hot message, in one pass; anything unusual takes the general path below, and
        // so does every message an interceptor or a tower layer will see (modules
        // `intercept`, `layered`).
        if !self.inner.shared.seam
            && let Some(call) = decode_call(text)
        {
            return table::call(
                &self.inner,
                &self.serving,
                Reply::new(Some(call.id), route),
                call.params,
                caller,
            );
        }
        match decode(text) {
            Err(RejectedMessage { id, error }) => Reply::new(id, route).error(error),
            Ok(Incoming::Request { id, method, params }) => {
                let reply = Reply::new(Some(id), route);
                if in_batch && method == methods::INITIALIZE {
                    return reply.error(RpcError::invalid_request(
                        "invalid request: `initialize` must not be part of a batch",
                    ));
                }
                table::request(&self.inner, &self.serving, reply, &method, params, caller);
            }
            Ok(Incoming::Notification { method, params }) => self.notification(&method, params),
            Ok(Incoming::Response { id, outcome }) => self.response(id, outcome.map(RawValue::to_owned)),
        }
    }

    /// Notifications are never answered, whatever they say.
    fn notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            methods::NOTIFICATIONS_INITIALIZED => match &mut *lock(&self.inner.legacy) {
                Some(state) => {
                    state.initialized = true;
                    if let Some(s) = self.inner.subscriber.get() {
                        s.ready();
                    }
                }
                None => tracing::debug!("notifications/initialized before initialize; ignored"),
            },
            methods::NOTIFICATIONS_CANCELLED => {
                let Some(p) = params.and_then(|p| serde_json::from_str::<CancelledParams<'_>>(p.get()).ok())
                else {
                    return tracing::debug!("malformed notifications/cancelled; ignored");
                };
                let Ok(id) = RequestId::from_raw(p.request_id) else {
                    return tracing::debug!("notifications/cancelled with an unusable request id; ignored");
                };
                let reason = p.reason.as_deref().unwrap_or("no reason given");
                if self.inner.running.cancel(&id) {
                    tracing::info!(%id, reason, "client cancelled the call; its future was dropped");
                } else {
                    tracing::debug!(%id, reason, "cancellation of a request not in flight; ignored");
                }
            }
            "notifications/roots/list_changed" => self.inner.asking.roots_changed(),
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    fn response(&self, id: Option<RequestId>, outcome: Answer) {
        if !self.inner.asking.answer(id.as_ref(), outcome) {
            tracing::debug!(id = ?id, "response to no request of ours awaited; ignored");
        }
    }
}

/// Why a server-to-client `ping` got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PingError {
    /// The session has not completed the legacy handshake; a modern server sends no requests.
    #[error("the client cannot be pinged: no legacy session is initialized")]
    NotInitialized,
    /// No answer within the timeout.
    #[error("the client did not answer a ping within {0:?}")]
    TimedOut(Duration),
    /// The client answered with an error.
    #[error("the client answered a ping with error {code:?}: {message}")]
    Refused {
        /// The error code, when it sent an integer.
        code: Option<i64>,
        /// The error message.
        message: String,
    },
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[test]
    fn every_version_has_one_unknown_client_of_its_own() {
        for (i, version) in ProtocolVersion::ALL.into_iter().enumerate() {
            assert_eq!(version as usize, i, "ALL is in declaration order");
            let client = unknown_client(version);
            assert_eq!(client.protocol_version.as_deref(), Some(version.as_str()));
            assert_eq!((client.name.as_deref(), client.version.as_deref()), (None, None));
            assert!(Arc::ptr_eq(&client, &unknown_client(version)), "made once");
        }
    }

    /// A call answered on the session's notifier (stdio's output) shares the session's one
    /// talk-back handle; a call answered on another sink (an HTTP POST's) gets its own, and
    /// is never the one kept.
    #[test]
    fn only_the_notifiers_calls_share_a_talk_back_handle() {
        let server = crate::Server::new(crate::ToolRegistry::new(), crate::ServerOptions::new("t", "1"));
        let session = server.session();
        let sink = || -> Arc<dyn Sink> { Arc::new(|_: Outbound| {}) };
        let (output, post) = (sink(), sink());
        let caps = ClientCapabilities::default();
        let inner = &session.inner;
        assert!(
            !Arc::ptr_eq(&inner.call_talk(&output, caps), &inner.call_talk(&output, caps)),
            "no notifier yet"
        );
        session.set_notifier(output.clone());
        let first = inner.call_talk(&post, caps);
        assert!(Arc::ptr_eq(&first.sink, &post));
        assert!(!Arc::ptr_eq(&first, &inner.call_talk(&post, caps)), "a POST's handle is not kept");
        let kept = inner.call_talk(&output, caps);
        assert!(Arc::ptr_eq(&kept.sink, &output));
        assert!(Arc::ptr_eq(&kept, &inner.call_talk(&output, caps)), "the notifier's handle is made once");
        assert!(!Arc::ptr_eq(&kept, &inner.call_talk(&post, caps)));
    }
}
