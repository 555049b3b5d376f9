//! [`Context`], what a call is handed besides its arguments: the host's cancellation, the
//! server's deadline, a progress reporter, who is calling, and the way back to them.
//!
//! A tool asks for it by taking a `ctx: &Context` parameter; `#[tool]` injects it and never
//! advertises it as an argument.
//!
//! - `talk`: [`Talkback`], what a server installs so a call can reach its client;
//!   `error`: [`AskError`], why an ask failed;
//! - `request`: [`CallRequest`], the request the call came in ([`Context::request`]): its id,
//!   session id, `_meta`, the client's name and, over HTTP, its headers;
//! - `log`: [`Context::log`]; `elicit`: [`Context::elicit`], [`Context::elicit_url`];
//!   `sample`: [`Context::sample`]; `roots`: [`Context::roots`] and [`Roots`].
//!
//! # Talking back, in both eras
//!
//! A tool is written once: it awaits `ctx.elicit::<T>(..)`, `ctx.sample(..)` or
//! `ctx.roots()` and gets the answer, or an [`AskError`] that says why not.
//!
//! - **Legacy sessions (2024-11-05 … 2025-11-25)**, on stdio and on HTTP: the call sends a
//!   JSON-RPC request to the client (on HTTP, on the SSE stream of the POST that carried the
//!   call), and the body awaits its answer, correlated by id, under the server's
//!   [`client_request_timeout`](crate::ServerOptions::client_request_timeout). If the call is
//!   cancelled, the request is withdrawn with `notifications/cancelled`. A client that did
//!   not declare the capability is never asked: [`AskError::NotDeclared`]. A server serving
//!   HTTP statelessly (each request on a fresh session) refuses every ask up front with
//!   [`AskError::Unavailable`]: the client's answer would reach another session.
//! - **Modern calls (2026-07-28)** have no server-to-client requests: they run in
//!   *rounds*. An ask the call has no answer for stops the body (its future is dropped at
//!   that `.await`), and the call answers `resultType: "input_required"` with what the body
//!   asked (every ask it was waiting on, so asks made together with `tokio::join!` go in
//!   one round) and a sealed `requestState`. The client gathers the answers and calls
//!   again; the body runs again **from the start**, and this time the ask returns the
//!   answer at once. The answers of earlier rounds travel in the `requestState`, so the
//!   server keeps nothing between rounds, and any replica sharing the
//!   [`request_state_key`](crate::ServerOptions::request_state_key) can take the retry.
//!   Each ask has a key in the result's `inputRequests`: the one the tool gives with the
//!   `_as` asks ([`elicit_as`](Context::elicit_as), [`sample_as`](Context::sample_as),
//!   [`roots_as`](Context::roots_as), …), else `ask-1`, `ask-2`, … in the order the body
//!   asks, which is the same in every run as long as the body asks the same things in the
//!   same order given the same answers. Name the keys when the order may vary.
//! - **A direct call** ([`Context::new`]): every ask is [`AskError::Unavailable`] and
//!   logging goes nowhere.
//!
//! So that one body behaves the same in both eras, **ask before you act**: do everything
//! that changes the world (writes, payments, messages) after the last ask, because in a
//! modern call everything before an unanswered ask runs once per round. Reads before an
//! ask are fine; they are repeated. The answers and errors are the same in both eras: a
//! declined form is [`AskError::Declined`], an answer that does not fit is
//! [`AskError::BadAnswer`], a capability the client did not declare is
//! [`AskError::NotDeclared`] and nothing is asked. In a modern call the ask returns
//! nothing else: timeouts and cancellation are the client's, between rounds, and a body
//! still asking after [`max_input_rounds`](crate::ServerOptions::max_input_rounds) rounds
//! is stopped with an error.
//!
//! Logging ([`Context::log`]) sends `notifications/message` in legacy sessions, filtered by
//! the level the client set with `logging/setLevel` (`info` until it sets one); in a
//! 2026-07-28 call, on the call's own stream, only when the request's `_meta` carries
//! `io.modelcontextprotocol/logLevel`, and at that level.

mod elicit;
mod error;
mod log;
mod request;
mod roots;
mod sample;
mod talk;

pub use error::AskError;
pub use request::CallRequest;
pub(crate) use request::RequestParts;
pub use roots::{Root, Roots};
pub use sample::{
    Sampled, SamplingMessage, SamplingRequest, SamplingTool, SamplingToolResult, SamplingToolUse, ToolChoice,
};
pub use talk::{Asked, Talkback};

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use crate::principal::Principal;
use crate::race::{Either, first};
use crate::state::{State, StateMap};
use crate::sync::lock;

/// Re-exported so tools can name the cancellation token type without a direct dependency.
pub use tokio_util::sync::CancellationToken;

/// One progress report, as a tool makes it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// How far along; each report must exceed the last.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// A human-readable note.
    pub message: Option<String>,
}

/// Where progress reports go. The server installs one when the request carried a
/// `progressToken`; otherwise reports are dropped.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Who is on the other end of the call, as the transport learned it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerInfo {
    /// The client's self-reported name (`clientInfo.name`).
    pub name: Option<String>,
    /// The client's self-reported version.
    pub version: Option<String>,
    /// The negotiated MCP protocol version.
    pub protocol_version: Option<String>,
}

/// What a call is handed besides its arguments.
///
/// Cheap to clone: clones share the same cancellation and progress state.
#[derive(Clone, Default)]
pub struct Context {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    /// The call's own token, made on first use when nobody gave one (a child of `parent`
    /// when there is one): a call that nobody cancels and whose tool never looks at its
    /// cancellation allocates no token.
    cancel: OnceLock<CancellationToken>,
    /// The token the call's own is made a child of: the host's, in a server.
    parent: Option<CancellationToken>,
    /// Set once, by the builder or by a server when the call gets its slot.
    deadline: OnceLock<Instant>,
    progress: Option<ProgressSink>,
    last_progress: Mutex<Option<f64>>,
    /// `None`: nobody is known ([`PeerInfo::default`]).
    peer: Option<Arc<PeerInfo>>,
    principal: Option<Arc<Principal>>,
    states: Option<Arc<StateMap>>,
    talk: Option<Arc<dyn Talkback>>,
    /// Why this call can never ask the client anything, when the server knows it up front.
    cannot_ask: Option<Cow<'static, str>>,
    /// The request the call came in (module `request`), when its code can read it.
    request: Option<Box<RequestParts>>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("cancelled", &self.is_cancelled())
            .field("deadline", &self.deadline())
            .field("reports_progress", &self.inner.progress.is_some())
            .field("peer", self.peer())
            .field("principal", &self.principal().subject())
            .field("talks_back", &self.inner.talk.is_some())
            .finish()
    }
}

impl Context {
    /// A context with no cancellation, no deadline and nowhere to send progress: what a
    /// direct call from your own code or a test wants.
    pub fn new() -> Self {
        Context::default()
    }

    /// Start building a context (servers and hosts use this).
    pub fn builder() -> ContextBuilder {
        ContextBuilder::default()
    }

    /// The host's cancellation for the run this call belongs to.
    pub fn cancellation(&self) -> &CancellationToken {
        self.inner.cancel.get_or_init(|| match &self.inner.parent {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        })
    }

    /// Whether the host has cancelled the run.
    pub fn is_cancelled(&self) -> bool {
        match self.inner.cancel.get() {
            Some(token) => token.is_cancelled(),
            // Not made yet, so nobody cancelled the call itself (that makes it).
            None => self.inner.parent.as_ref().is_some_and(CancellationToken::is_cancelled),
        }
    }

    /// Cancel the call (what a client's `notifications/cancelled` does): its token is made
    /// now if nobody had asked for it yet, so it is cancelled for whoever asks later.
    pub(crate) fn cancel(&self) {
        self.cancellation().cancel();
    }

    /// Start the deadline's clock, unless it has one: a server starts it when the call gets
    /// its slot, after the context is made.
    pub(crate) fn start_deadline(&self, at: Option<Instant>) {
        if let Some(at) = at {
            // Set once: a deadline the builder gave stands.
            let _ = self.inner.deadline.set(at);
        }
    }

    /// Resolves when the host cancels the run; a long tool can `select!` on it to stop early.
    pub async fn cancelled(&self) {
        self.cancellation().cancelled().await
    }

    /// When the server will abandon the call, if it set a deadline.
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.deadline.get().copied()
    }

    /// Who is calling.
    pub fn peer(&self) -> &PeerInfo {
        static NOBODY: PeerInfo = PeerInfo { name: None, version: None, protocol_version: None };
        self.inner.peer.as_deref().unwrap_or(&NOBODY)
    }

    /// Who is calling: the principal the host fixed (stdio) or the authenticator set (HTTP),
    /// read-only. A context made with [`Context::new`] (a direct call from the program) is
    /// the host's, [`Principal::host`].
    pub fn principal(&self) -> &Principal {
        static HOST: std::sync::OnceLock<Principal> = std::sync::OnceLock::new();
        match &self.inner.principal {
            Some(p) => p,
            None => HOST.get_or_init(Principal::host),
        }
    }

    /// The request's parts, kept by a call that outlives it (a task of the tasks extension
    /// reads the request that started it).
    pub(crate) fn request_parts(&self) -> Option<Box<RequestParts>> {
        self.inner.request.clone()
    }

    /// The request this call came in: its id, its session's id, its `_meta`, the client's
    /// name and, over HTTP, its headers (module `request`). A context made with
    /// [`Context::new`] has none of them.
    pub fn request(&self) -> CallRequest<'_> {
        RequestParts::view(self.inner.request.as_deref(), self.peer().name.as_deref())
    }

    /// The HTTP request's headers, when this call came over HTTP
    /// ([`request`](Self::request)`().headers`).
    #[cfg(feature = "http")]
    pub fn headers(&self) -> Option<&axum::http::HeaderMap> {
        self.request().headers
    }

    /// The request's `_meta`, raw, when it had one ([`request`](Self::request)`().meta`).
    pub fn meta(&self) -> Option<&serde_json::value::RawValue> {
        self.request().meta
    }

    /// The registry's state value of type `T`, if it holds one (see [`State`]).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.states.as_ref()?.get::<T>()
    }

    /// Whether progress reports go anywhere (the request carried a `progressToken`).
    pub fn reports_progress(&self) -> bool {
        self.inner.progress.is_some()
    }

    /// Report progress. Values must strictly increase; a report that does not exceed the
    /// last one is dropped, so a client never sees progress go backwards. Without a
    /// `progressToken` on the request this does nothing.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(sink) = &self.inner.progress else { return };
        if !progress.is_finite() {
            return;
        }
        {
            let mut last = lock(&self.inner.last_progress);
            if last.is_some_and(|l| progress <= l) {
                return;
            }
            *last = Some(progress);
        }
        sink(Progress { progress, total, message: message.map(str::to_owned) });
    }

    /// What the client declared it can be asked for; `None` when there is no client to ask
    /// (a direct call). Asking for what it did not declare is [`AskError::NotDeclared`]
    /// and sends nothing, so a tool can check first and do without.
    pub fn client_capabilities(&self) -> Option<crate::protocol::ClientCapabilities> {
        self.inner.talk.as_ref().map(|t| t.capabilities())
    }

    /// The way back to the client, for asking `what`; or why there is none.
    fn talkback(&self, what: &'static str) -> Result<&Arc<dyn Talkback>, AskError> {
        if let Some(why) = &self.inner.cannot_ask {
            return Err(AskError::Unavailable { what, why: why.clone().into_owned() });
        }
        if let Some(talk) = &self.inner.talk {
            return Ok(talk);
        }
        let modern =
            self.peer().protocol_version.as_deref().and_then(crate::protocol::ProtocolVersion::parse);
        let why = match modern {
            Some(v) if v.era() == crate::protocol::Era::Modern => format!(
                "this request is served in MCP {v}, where only tools/call, prompts/get and resources/read can ask the client (in input_required rounds), and this one runs outside them"
            ),
            _ => "this call has no client to ask (it was not made through a server session)".to_owned(),
        };
        Err(AskError::Unavailable { what, why })
    }

    /// Send `what` under `key` and wait for the answer, giving up when the call is
    /// cancelled.
    async fn ask(
        &self,
        talk: &Arc<dyn Talkback>,
        key: Option<&str>,
        what: &'static str,
        params: String,
    ) -> Result<Box<serde_json::value::RawValue>, AskError> {
        let asked = talk.request_as(key, what, params);
        match first(self.cancelled(), asked).await {
            Either::Left(()) => Err(AskError::CallCancelled { what }),
            Either::Right(answer) => answer,
        }
    }
}

/// A serde error's message without its " at line … column …" tail.
fn trim_serde(e: serde_json::Error) -> String {
    let message = e.to_string();
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message,
    }
}

/// Builds a [`Context`].
#[derive(Default)]
pub struct ContextBuilder {
    inner: Inner,
}

/// What a server knows of a call when it makes the call's context
/// ([`Context::for_call`]).
pub(crate) struct CallParts {
    /// The host's token, the parent of the call's own.
    pub(crate) parent: Option<CancellationToken>,
    pub(crate) peer: Arc<PeerInfo>,
    pub(crate) principal: Arc<Principal>,
    pub(crate) progress: Option<ProgressSink>,
    pub(crate) talk: Option<Arc<dyn Talkback>>,
    pub(crate) states: Option<Arc<StateMap>>,
    /// Why the call can never ask the client anything, known up front.
    pub(crate) cannot_ask: Option<&'static str>,
    /// The request the call came in.
    pub(crate) request: Option<Box<RequestParts>>,
}

impl Context {
    /// A server's call context in one step, not moved through a builder method for each
    /// part: the host's token as the parent of the call's own (made when first asked for,
    /// so a call that never looks allocates none), the peer, the principal, progress,
    /// talk-back, the state values, and why the call cannot ask, when the server knows.
    pub(crate) fn for_call(call: CallParts) -> Context {
        let CallParts { parent, peer, principal, progress, talk, states, cannot_ask, request } = call;
        Context {
            inner: Arc::new(Inner {
                parent,
                peer: Some(peer),
                principal: Some(principal),
                progress,
                talk,
                states,
                cannot_ask: cannot_ask.map(Cow::Borrowed),
                request,
                ..Inner::default()
            }),
        }
    }
}

impl fmt::Debug for ContextBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextBuilder").finish_non_exhaustive()
    }
}

impl ContextBuilder {
    /// The host's cancellation token for the run.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.inner.cancel = OnceLock::from(token);
        self
    }

    /// The instant the server abandons the call.
    pub fn deadline(mut self, deadline: Option<Instant>) -> Self {
        self.inner.deadline = deadline.map(OnceLock::from).unwrap_or_default();
        self
    }

    /// Where progress reports go.
    pub fn progress(mut self, sink: ProgressSink) -> Self {
        self.inner.progress = Some(sink);
        self
    }

    /// Who is calling: a [`PeerInfo`], or an `Arc` of one that many calls share (a
    /// server hands each call of a session the session's, without copying it).
    pub fn peer(mut self, peer: impl Into<Arc<PeerInfo>>) -> Self {
        self.inner.peer = Some(peer.into());
        self
    }

    /// Who is calling (a server sets the principal of the request; a tool cannot).
    pub fn principal(mut self, principal: Arc<Principal>) -> Self {
        self.inner.principal = Some(principal);
        self
    }

    /// The state values the call's tools may take (a registry's; see [`State`]).
    pub fn states(mut self, states: Arc<StateMap>) -> Self {
        self.inner.states = Some(states);
        self
    }

    /// The way back to the client (a server installs one per call in a legacy session).
    pub fn talkback(mut self, talk: Arc<dyn Talkback>) -> Self {
        self.inner.talk = Some(talk);
        self
    }

    /// Refuse every ask of the call up front with [`AskError::Unavailable`], saying `why`
    /// (a server that knows no answer could reach the call: stateless HTTP). Logging still
    /// goes through the talkback.
    pub fn cannot_ask(mut self, why: impl Into<String>) -> Self {
        self.inner.cannot_ask = Some(Cow::Owned(why.into()));
        self
    }

    /// Finish.
    pub fn build(self) -> Context {
        Context { inner: Arc::new(self.inner) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server's call context under the host's token `parent`, as `server::run::request` makes it.
    fn under(parent: Option<CancellationToken>) -> Context {
        Context::for_call(CallParts {
            parent,
            peer: Arc::default(),
            principal: Arc::new(Principal::host()),
            progress: None,
            talk: None,
            states: None,
            cannot_ask: None,
            request: None,
        })
    }

    #[test]
    fn progress_is_strictly_increasing_and_dropped_without_a_sink() {
        Context::new().report_progress(1.0, None, None);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = seen.clone();
        let ctx = Context::builder()
            .progress(Arc::new(move |p: Progress| sink_seen.lock().unwrap().push(p.progress)))
            .build();
        for v in [1.0, 1.0, 0.5, 2.0, f64::NAN, 3.0] {
            ctx.report_progress(v, Some(3.0), None);
        }
        assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_token_made_late_is_as_cancelled_as_the_call() {
        // Cancelled before anyone looked: the token made for the cancel is the one seen later.
        let ctx = under(None);
        assert!(ctx.inner.cancel.get().is_none(), "no token until someone needs one");
        let seen = ctx.clone();
        ctx.cancel();
        assert!(seen.is_cancelled());
        assert!(seen.cancellation().is_cancelled());

        // The host cancels before the call's token exists: the call reads cancelled, and the
        // token it makes afterwards is a cancelled child.
        let host = CancellationToken::new();
        let ctx = under(Some(host.clone()));
        assert!(!ctx.is_cancelled());
        host.cancel();
        assert!(ctx.is_cancelled());
        assert!(ctx.inner.cancel.get().is_none());
        assert!(ctx.cancellation().is_cancelled());

        // Made first, cancelled by the host afterwards: the child follows its parent, and
        // cancelling the call does not cancel the host.
        let host = CancellationToken::new();
        let ctx = under(Some(host.clone()));
        let token = ctx.cancellation().clone();
        let other = under(Some(host.clone()));
        other.cancel();
        assert!(!host.is_cancelled() && !token.is_cancelled() && !ctx.is_cancelled());
        host.cancel();
        assert!(token.is_cancelled() && ctx.is_cancelled());
    }

    #[test]
    fn the_deadline_is_set_once() {
        let ctx = Context::new();
        assert_eq!(ctx.deadline(), None);
        let at = Instant::now();
        ctx.start_deadline(Some(at));
        ctx.start_deadline(Some(at + std::time::Duration::from_secs(1)));
        assert_eq!(ctx.deadline(), Some(at), "the first start stands");
        let given = Context::builder().deadline(Some(at)).build();
        given.start_deadline(Some(at + std::time::Duration::from_secs(1)));
        assert_eq!(given.deadline(), Some(at), "a deadline the builder gave stands");
    }
}
