//! [`SessionInner`]: one session's state, which every method and the request path read: its
//! legacy handshake ([`LegacyState`]), the table of its calls in flight, what it asked the
//! client and awaits, and its legacy subscriber. The [`Session`](crate::server::Session) a transport
//! holds owns it and dispatches into the methods above it; nothing here dispatches.

use std::sync::{Arc, Mutex, OnceLock};

use crate::context::PeerInfo;
use serde_json::value::RawValue;

use crate::protocol::{ClientCapabilities, ProtocolVersion, RequestId};
use crate::sync::lock;

use super::sink::Sink;
use super::talk::{Asking, CallTalk};
use crate::server::access::caller::Caller;
use crate::server::intercept::Intercepted;
use crate::server::notify::subscriptions::Subscriber;
use crate::server::run::running::Running;
use crate::server::shared::Shared;

/// One session's state, shared by its clones and by its calls in flight.
pub(crate) struct SessionInner {
    pub(crate) shared: Arc<Shared>,
    pub(crate) legacy: Mutex<Option<LegacyState>>,
    pub(crate) running: Arc<Running>,
    /// The requests sent to the client and awaited (pings, elicitation, sampling, roots),
    /// the log level and the roots cache.
    pub(crate) asking: Arc<Asking>,
    /// This session's legacy subscriber (its `resources/subscribe`s, and the list changes
    /// it takes), made when the transport gives it a notifier.
    pub(crate) subscriber: OnceLock<Arc<Subscriber>>,
    /// The talk-back handle of the legacy calls whose sink is the session's notifier itself
    /// (stdio's one output, which lives as long as the session): made once, not per call.
    /// Each call of an HTTP POST gets its own: a kept one would hold the POST's answer open.
    call_talk: OnceLock<Arc<CallTalk>>,
    /// The session's id on its transport (HTTP's `Mcp-Session-Id`), once it has one: what an
    /// interceptor and a call's context read.
    pub(crate) id: OnceLock<Arc<str>>,
}

/// What the `initialize` handshake settled.
#[derive(Debug, Clone)]
pub(crate) struct LegacyState {
    pub(crate) version: ProtocolVersion,
    /// Shared with every call's [`Context`](crate::Context): a call clones the `Arc`, not
    /// the client's name and version.
    pub(crate) client: Arc<PeerInfo>,
    /// What the client said it can be asked for.
    pub(crate) capabilities: ClientCapabilities,
    /// `notifications/initialized` arrived.
    pub(crate) initialized: bool,
}

/// A legacy session's handshake, log level and subscriptions, as a shared session store
/// keeps them.
#[cfg(feature = "http")]
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settled {
    pub(crate) version: ProtocolVersion,
    pub(crate) client: PeerInfo,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) level: crate::protocol::LoggingLevel,
    pub(crate) initialized: bool,
    /// The URIs it sent `resources/subscribe` for (and did not unsubscribe).
    pub(crate) subscriptions: std::collections::BTreeSet<String>,
}

impl SessionInner {
    /// A session's state before any message: no handshake, nothing in flight.
    pub(crate) fn new(shared: Arc<Shared>) -> SessionInner {
        SessionInner {
            shared,
            legacy: Mutex::new(None),
            running: Arc::new(Running::default()),
            asking: Arc::new(Asking::default()),
            subscriber: OnceLock::new(),
            call_talk: OnceLock::new(),
            id: OnceLock::new(),
        }
    }

    pub(crate) fn legacy_state(&self) -> Option<LegacyState> {
        lock(&self.legacy).clone()
    }

    /// What the client of a settled legacy handshake declared it can be asked for: the one
    /// part of [`LegacyState`] a call's talk-back needs, read without cloning the rest (the
    /// client's name and version are three allocations a `tools/call` would pay each time).
    pub(crate) fn legacy_capabilities(&self) -> Option<ClientCapabilities> {
        lock(&self.legacy).as_ref().map(|s| s.capabilities)
    }

    /// What a legacy call answered on `sink` talks back through, for a client that said it
    /// can be asked for `capabilities`: the session's one handle when `sink` is the
    /// session's notifier (see `call_talk`), else a new one.
    pub(crate) fn call_talk(&self, sink: &Arc<dyn Sink>, capabilities: ClientCapabilities) -> Arc<CallTalk> {
        let make = || {
            Arc::new(CallTalk {
                asking: self.asking.clone(),
                sink: sink.clone(),
                capabilities,
                timeout: self.shared.options.client_request_timeout,
            })
        };
        match self.call_talk.get() {
            // The handshake is over before any call: the capabilities it kept are these.
            Some(talk) if Arc::ptr_eq(&talk.sink, sink) => talk.clone(),
            Some(_) => make(),
            None if self.subscriber.get().is_some_and(|s| s.sends_to(sink)) => {
                self.call_talk.get_or_init(make).clone()
            }
            None => make(),
        }
    }

    /// The request `id` as an interceptor (or a tower layer) sees it: its method, params and
    /// caller, with this session's id and client, and the HTTP headers when there are any.
    pub(crate) fn intercepted<'a>(
        &'a self,
        method: &'a str,
        id: &'a RequestId,
        params: Option<&'a RawValue>,
        caller: &Caller<'a>,
    ) -> Intercepted<'a> {
        let mut request = Intercepted::new(method, id, params, caller.principal);
        request.session_id = self.id.get().map(|id| &**id);
        request.client = lock(&self.legacy).as_ref().map(|s| Arc::clone(&s.client));
        #[cfg(feature = "http")]
        {
            request.headers = caller.headers;
        }
        request
    }

    /// This session's legacy subscriber: `None` while the transport has given no channel for
    /// notifications outside a call.
    pub(crate) fn legacy_subscriber(&self) -> Option<Arc<Subscriber>> {
        self.subscriber.get().cloned()
    }
}
