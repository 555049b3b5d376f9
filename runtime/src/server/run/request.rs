//! The one request path: how a request that runs user code (`tools/call`; later
//! `resources/read`, `prompts/get`) is run, whatever the capability.
//!
//! A capability describes the work as a [`Handler`]: how to start the user code with a
//! [`Context`], and how to turn its outcome into the result body. Everything else is here and
//! shared:
//!
//! - the in-flight table: the request is entered under its id before it can complete, so
//!   `notifications/cancelled` finds it, and a duplicate id is refused;
//! - spawning onto the runtime (or, when the transport's [`Caller`] says so ([`Inline`]), one
//!   poll on the transport's thread first);
//! - the in-flight bound (a slot from the server's semaphore);
//! - the host's cancellation, before dispatch and while running;
//! - the server's deadline, whose clock starts when the request got its slot;
//! - panic catching, so the server serves on;
//! - progress: `notifications/progress` under the request's token, until it completes;
//! - the reply, in the request's era.
//!
//! How the interruptions read to the client is the capability's choice ([`Stop`] is handed
//! to [`Handler::finish`]): for tools, a tool error (see [`tools`](crate::server::capability::tools)).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::context::{CallParts, Context, PeerInfo, Progress, RequestParts, Talkback};
use crate::protocol::meta::RequestMeta;
use crate::protocol::methods;
use crate::protocol::notifications::{is_progress_token, progress_params};
use crate::protocol::{Outbound, RequestId, RpcError, code};
use crate::race::{Either, first};
use crate::sync::lock;
use crate::tool::{ToolError, relief};

use super::rounds::{RoundCall, drive};
use super::running::RunningCall;
use crate::server::access::caller::{Caller, Inline};
use crate::server::dispatch::era::not_initialized;
use crate::server::dispatch::sink::{Reply, Sink};
use crate::server::dispatch::state::SessionInner;
use crate::server::shared::Shared;

/// User code, started: a boxed future borrowing the handler and the [`Context`].
pub(crate) type Started<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The user code one request runs, as its capability describes it.
pub(crate) trait Handler: Send + Sync + 'static {
    /// What the user code returns.
    type Output: Send;

    /// Start the user code.
    fn start<'a>(&'a self, ctx: &'a Context) -> Started<'a, Self::Output>;

    /// The state values the user code may take from its context (a tool registry's); none by
    /// default.
    fn states(&self) -> Option<&Arc<crate::state::StateMap>> {
        None
    }

    /// Whether the user code can read the request it came in (its [`Context::request`]):
    /// when it cannot, the call's context keeps none of it (no id, `_meta` or headers
    /// copied). `true` by default; a tool says what its [`ToolInfo`](crate::ToolInfo) says.
    fn reads_request(&self) -> bool {
        true
    }

    /// Whether the request is a bounded piece of work: it takes one of the server's
    /// `max_in_flight` slots and runs under its deadline. A stream that lives until the
    /// client ends it (`subscriptions/listen`) says `false`: it neither holds a slot, so
    /// listeners cannot starve calls (or each other), nor times out.
    fn bounded(&self) -> bool {
        true
    }

    /// The `input_required` rounds a modern request runs in, when its capability runs it in
    /// them (module `rounds`); `None` by default. The request path does the rest, once for
    /// every capability: the round is the call's way back to its client (a legacy request
    /// always talks back on its session), the body is stopped when it waits for an answer
    /// the round does not hold, and the request is then answered `input_required` (or with
    /// the client's unreadable answer's error, or [`over_rounds`](Self::over_rounds)).
    fn round(&self) -> Option<&RoundCall> {
        None
    }

    /// The answer of a request whose body still asked the client for input past the most
    /// rounds the server allows: `limit` says so, reported as the capability reports a
    /// failure; `modern` is the `_meta` to complete the result with. A JSON-RPC internal
    /// error by default.
    fn over_rounds(&self, limit: String, modern: &RawValue) -> Result<String, RpcError> {
        let _ = modern;
        Err(RpcError::new(code::INTERNAL_ERROR, limit))
    }

    /// The result body for how it went: the user code's output, or why it did not finish
    /// (a body stopped for input never gets here: see [`round`](Self::round)).
    /// `modern` is the `_meta` to complete a modern result with (see
    /// [`ModernResult`](crate::protocol::meta::ModernResult)); `None` for a legacy one.
    fn finish(
        &self,
        outcome: Result<Self::Output, Stop>,
        modern: Option<&RawValue>,
    ) -> Result<String, RpcError>;
}

/// Why user code did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The host cancelled before the request got its slot: the code was not run.
    CancelledBeforeDispatch,
    /// The host cancelled while the code was running.
    CancelledWhileRunning,
    /// The server's deadline fired.
    DeadlineExceeded(Duration),
    /// The code panicked, with this message.
    Panicked(String),
}

impl SessionInner {
    /// Run `handler` for the request `reply` answers, in the era `modern` says, for `peer`
    /// and `caller`, with progress when `meta` asks for it. Answers through `reply`, now (a
    /// refusal) or when the code completes; never, when the client cancels.
    pub(crate) fn run<H: Handler>(
        &self,
        reply: Reply,
        meta: Option<&RequestMeta<'_>>,
        peer: Arc<PeerInfo>,
        modern: bool,
        handler: H,
        caller: Caller<'_>,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return reply.error(RpcError::new(
                code::INTERNAL_ERROR,
                "internal error: the server is not running on a tokio runtime",
            ));
        };
        let Some(id) = reply.id().cloned() else { return reply.error(not_initialized()) };
        let talkback = if modern { handler.round().map(RoundCall::talkback) } else { None };
        let (ctx, progress, forward_to) = self.call_context(
            &reply,
            meta,
            peer,
            modern,
            talkback,
            handler.states(),
            handler.reads_request(),
            caller,
        );

        // Spawn while holding the table's lock, so the request is in the table before it can
        // complete: whoever removes the entry (completion or cancellation) decides whether
        // a response goes out.
        let mut calls = self.running.lock();
        if calls.contains_key(&id) {
            drop(calls);
            return reply.error(RpcError::invalid_request(format!(
                "invalid request: request id {id} is already in use by a call in flight"
            )));
        }
        let bounded = handler.bounded();
        let job = Job {
            shared: self.shared.clone(),
            handler,
            ctx: ctx.clone(),
            progress,
            forward_to,
            modern,
            reply: reply.tracked(self.running.clone()),
        };
        let inline = caller.inline;
        let poll_here = match inline {
            Inline::Reader => runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread,
            Inline::Handler => true,
            Inline::No => false,
        };
        if poll_here {
            calls.insert(id.clone(), RunningCall { abort: None, ctx });
            drop(calls);
            let hold_back = inline == Inline::Handler
                && (self.shared.options.answers_running_calls(bounded) || !self.asking.is_one_shot());
            return self.poll_then_spawn(&runtime, id, job, hold_back);
        }
        let handle = runtime.spawn(job.boxed());
        calls.insert(id, RunningCall { abort: Some(handle.abort_handle()), ctx });
    }

    /// The call's context, its progress channel (when `meta` asks for progress) and where
    /// its `tracing` events are forwarded (when the server forwards them): the part of
    /// [`run`](Self::run) that does not depend on the handler, compiled once for every kind
    /// of request rather than inlined into each.
    ///
    /// The context is made here, not in the task, so the in-flight table can hold it: a
    /// client's cancellation cancels the call's token through it, and a call nobody cancels
    /// never makes one (the host's token is its parent, when there is one).
    // Each part comes from a different place (the reply, the request, its era, its handler,
    // its caller); kept apart so that this fn is not generic over the handler.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn call_context(
        &self,
        reply: &Reply,
        meta: Option<&RequestMeta<'_>>,
        peer: Arc<PeerInfo>,
        modern: bool,
        talkback: Option<Arc<dyn Talkback>>,
        states: Option<&Arc<crate::state::StateMap>>,
        reads_request: bool,
        caller: Caller<'_>,
    ) -> (Context, Option<Arc<ProgressChannel>>, Option<Arc<dyn Talkback>>) {
        let progress = meta
            .and_then(|m| m.progress_token)
            .filter(|t| is_progress_token(t))
            .map(|t| ProgressChannel::new(reply.route().sink().clone(), t.to_owned()));
        // A legacy call can talk back to its client on the call's own stream; a modern one
        // through the rounds its capability runs it in, if it does (see `crate::context`).
        let talk = match self.legacy_capabilities() {
            Some(capabilities) if !modern => {
                Some(self.call_talk(reply.route().sink(), capabilities) as Arc<dyn Talkback>)
            }
            _ => talkback,
        };
        let options = &self.shared.options;
        let forward_to = talk.clone().filter(|_| options.forward_tracing);
        let ctx = Context::for_call(CallParts {
            parent: options.cancellation.clone(),
            peer,
            principal: Arc::clone(caller.principal),
            progress: progress.clone().map(|channel| Arc::new(move |p: Progress| channel.emit(&p)) as _),
            talk,
            states: states.cloned(),
            // A legacy session made for this one request (stateless HTTP) can never be
            // answered: the client's answer would arrive on a fresh session.
            cannot_ask: (!modern && self.asking.is_one_shot())
                .then_some(crate::server::dispatch::talk::ONE_SHOT),
            // Kept only for code that can read it: a call's headers are copied here, so a
            // server whose tools never read them pays nothing per POST.
            request: reads_request.then(|| {
                let parts =
                    RequestParts::new(reply.id().cloned(), self.id.get().cloned(), meta.and_then(|m| m.raw));
                #[cfg(feature = "http")]
                let parts = parts.with_headers(caller.headers.map(|h| Arc::new(h.clone())));
                Box::new(parts)
            }),
        });
        (ctx, progress, forward_to)
    }

    /// Poll a request once on this thread; spawn it only if it is not done. The request is
    /// in the running table already, without an abort handle until it is spawned. With
    /// `hold_back`, no sync body starts in that poll (see [`Inline::Handler`]).
    fn poll_then_spawn<H: Handler>(
        &self,
        runtime: &tokio::runtime::Handle,
        id: RequestId,
        job: Job<H>,
        hold_back: bool,
    ) {
        use std::task::{Context, Poll, Waker};
        let mut run = job.boxed();
        // A panic outside the handler's own guard drops the request's `Reply`, which answers
        // -32603 (as a panicking task does); the future is dropped with it.
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _held = hold_back.then(relief::hold_back);
            run.as_mut().poll(&mut Context::from_waker(Waker::noop()))
        }));
        if !matches!(polled, Ok(Poll::Pending)) {
            return;
        }
        // Spawning polls it again at once, with the task's waker: every future registers the
        // waker of its latest poll, so the no-op one above is never the one woken.
        let handle = runtime.spawn(run);
        match self.running.lock().get_mut(&id) {
            Some(call) => call.abort = Some(handle.abort_handle()),
            // Cancelled in between: its future goes, as a cancelled call's does.
            None => handle.abort(),
        }
    }
}

/// Everything a request's task owns.
struct Job<H> {
    shared: Arc<Shared>,
    handler: H,
    /// The call's context, which the in-flight table holds too (to cancel the call).
    ctx: Context,
    progress: Option<Arc<ProgressChannel>>,
    /// Where the body's `tracing` events go besides the server's subscriber, when the
    /// server forwards them to the client.
    forward_to: Option<Arc<dyn Talkback>>,
    modern: bool,
    reply: Reply,
}

/// A request's task, as spawned: one future type for every kind of request, so tokio's task
/// machinery (about 60 functions per spawned type and scheduler) is compiled once, not once
/// per handler and per spawn site. The box costs one allocation per spawned request; a
/// request answered in its first poll in place is boxed too, and never spawned.
type JobFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

impl<H: Handler> Job<H> {
    /// [`Job::run`], boxed as the one type every request's task has.
    fn boxed(self) -> JobFuture {
        Box::pin(self.run())
    }

    /// Run the request and answer it.
    ///
    /// The fields are taken apart here and moved into the future, not moved out of an
    /// `async fn`'s argument inside it (which keeps both copies), and the work is awaited
    /// where it is made, with the rare forwarding case boxed: a tool call's future is 792
    /// bytes in a release build, not 1,120, so its box comes from glibc's per-thread cache
    /// (chunks up to 1,032 bytes; bench/findings.md).
    fn run(self) -> impl Future<Output = ()> + Send {
        let Job { shared, handler, ctx, progress, forward_to, modern, reply } = self;
        async move {
            let options = &shared.options;
            let (deadline, permits) =
                if handler.bounded() { (options.deadline, Some(&shared.permits)) } else { (None, None) };
            // A sync body run in place (on the stdin reader, or a runtime worker) that runs
            // long has its deadline answered from here (module `relief`).
            let rescue = Rescuer {
                handler: &handler,
                shared: &shared,
                reply: &reply,
                progress: progress.as_ref(),
                modern,
            };
            let host = options.cancellation.as_ref();
            let outcome = match forward_to {
                Some(talk) => {
                    use tracing::instrument::WithSubscriber;
                    let dispatch = shared.forward.get_or_init(|| {
                        super::forward::Forward::dispatch(tracing::dispatcher::get_default(
                            tracing::Dispatch::clone,
                        ))
                    });
                    let run = Offering {
                        rescue: &rescue,
                        reply: &reply,
                        inner: execute(&handler, ctx, host, deadline, permits),
                    };
                    Box::pin(super::forward::CALL_CLIENT.scope(talk, run.with_subscriber(dispatch.clone())))
                        .await
                }
                None => {
                    Offering {
                        rescue: &rescue,
                        reply: &reply,
                        inner: execute(&handler, ctx, host, deadline, permits),
                    }
                    .await
                }
            };
            // Progress stops with the request: nothing after the response.
            if let Some(p) = &progress {
                p.close();
            }
            match answer(&handler, outcome, modern.then_some(&*shared.modern_meta)) {
                Ok(body) => reply.result_in(body),
                Err(error) => reply.error(error),
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// A request's work, with its rescue offered to a sync body run in place during each
    /// poll, and withdrawn when the poll returns (see [`relief::offer`]); and with the
    /// interceptor's watch, if one watches, entered for the poll and lent to the threads a
    /// body is handed to in it (modules `intercept`, `tool::run::carry`).
    struct Offering<'r, F> {
        rescue: &'r (dyn relief::Rescue + 'r),
        // The request's reply, for its interceptor's watch, if one watches.
        reply: &'r Reply,
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Offering<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        let this = self.project();
        let _entered = this.reply.enter_watch();
        let _offered = relief::offer(*this.rescue);
        this.inner.poll(cx)
    }
}

/// How a request whose sync body ran long in place is answered on time (see
/// [`relief`]): a task answers it at its deadline, or at the host's cancellation, through a
/// twin of its reply, unless the body returns first. A client's `notifications/cancelled`
/// needs nothing more: it removes the call's entry, so neither reply is sent.
struct Rescuer<'a, H> {
    handler: &'a H,
    shared: &'a Shared,
    reply: &'a Reply,
    progress: Option<&'a Arc<ProgressChannel>>,
    modern: bool,
}

impl<H: Handler> relief::Rescue for Rescuer<'_, H> {
    fn relieved(&self, started: Instant, returned: tokio::sync::oneshot::Receiver<()>) {
        let options = &self.shared.options;
        let bounded = self.handler.bounded();
        if !options.answers_running_calls(bounded) {
            return;
        }
        let deadline = options.deadline.filter(|_| bounded);
        let host = options.cancellation.clone();
        // Both answers are made now, while the handler is alive (the body still runs).
        let modern = self.modern.then_some(&*self.shared.modern_meta);
        let late =
            deadline.map(|d| (started + d, self.handler.finish(Err(Stop::DeadlineExceeded(d)), modern)));
        let cancelled = host.as_ref().map(|_| self.handler.finish(Err(Stop::CancelledWhileRunning), modern));
        tokio::spawn(rescue(returned, late, host, cancelled, self.reply.twin(), self.progress.cloned()));
    }
}

/// The task of a [`Rescuer`]: answer through `twin` at the deadline (`late`) or at the host's
/// cancellation, whichever comes first, unless the body returns first (`returned`). Not
/// generic, so it is compiled once for every kind of request.
async fn rescue(
    returned: tokio::sync::oneshot::Receiver<()>,
    late: Option<(Instant, Result<String, RpcError>)>,
    host: Option<CancellationToken>,
    cancelled: Option<Result<String, RpcError>>,
    twin: Reply,
    progress: Option<Arc<ProgressChannel>>,
) {
    let at_deadline = async {
        match late {
            Some((at, answer)) => {
                tokio::time::sleep_until(at.into()).await;
                answer
            }
            None => std::future::pending().await,
        }
    };
    let on_cancel = async {
        match (&host, cancelled) {
            (Some(h), Some(answer)) => {
                h.cancelled().await;
                answer
            }
            _ => std::future::pending().await,
        }
    };
    let answer = match first(returned, first(on_cancel, at_deadline)).await {
        // The body returned: its own answer goes out; the twin is dropped unsent.
        Either::Left(_) => return,
        Either::Right(Either::Left(answer) | Either::Right(answer)) => answer,
    };
    if let Some(p) = progress {
        p.close();
    }
    match answer {
        Ok(body) => twin.result(&body),
        Err(error) => twin.error(error),
    }
}

/// The result body of a request `handler` ran, for how it went: `input_required` when its
/// body stopped for input or asked for some while it ran (module `rounds`), else the
/// handler's own [`finish`](Handler::finish).
fn answer<H: Handler>(
    handler: &H,
    outcome: Result<Option<H::Output>, Stop>,
    modern: Option<&RawValue>,
) -> Result<String, RpcError> {
    if let (Some(round), Some(meta), Ok(_)) = (handler.round(), modern, &outcome)
        && round.stopped()
    {
        return match round.input_required(meta) {
            Ok(body) => Ok(body),
            Err(Err(error)) => Err(error),
            Err(Ok(limit)) => handler.over_rounds(limit, meta),
        };
    }
    match outcome {
        Ok(Some(output)) => handler.finish(Ok(output), modern),
        Err(stop) => handler.finish(Err(stop), modern),
        // Only a round stops a body, and a stopped round is answered above.
        Ok(None) => Err(RpcError::new(
            code::INTERNAL_ERROR,
            "internal error: the request stopped for input outside a round",
        )),
    }
}

/// Run `handler` under the server's rules: wait for a slot, honour the host's cancellation
/// before and during the run, enforce the deadline, and catch a panic. `Ok(None)`: the body
/// stopped for input (module `rounds`).
async fn execute<H: Handler>(
    handler: &H,
    ctx: Context,
    host: Option<&CancellationToken>,
    deadline: Option<Duration>,
    permits: Option<&Semaphore>,
) -> Result<Option<H::Output>, Stop> {
    let _permit = match permits {
        // A free slot is taken at once, without the acquire future (the common case).
        Some(permits) if let Ok(permit) = permits.try_acquire() => Some(permit),
        Some(permits) => {
            let permit = match host {
                Some(h) => match first(h.cancelled(), permits.acquire()).await {
                    Either::Left(()) => return Err(Stop::CancelledBeforeDispatch),
                    Either::Right(p) => p,
                },
                None => permits.acquire().await,
            };
            // The semaphore is never closed; if it were, nothing could run.
            Some(permit.map_err(|_| Stop::CancelledBeforeDispatch)?)
        }
        None => None,
    };
    if host.is_some_and(CancellationToken::is_cancelled) {
        return Err(Stop::CancelledBeforeDispatch);
    }

    if let Some(d) = deadline {
        ctx.start_deadline(Instant::now().checked_add(d));
    }

    let body = async {
        let run = async {
            let started = handler.start(&ctx);
            let ran = match handler.round() {
                None => crate::tool::run_async("", started).await.map(Some),
                // `None` when the body stopped for input (see `answer`); boxed, as the rarer
                // case, so a request run in no round does not carry its state.
                Some(round) => crate::tool::run_async("", Box::pin(drive(&round.round, started))).await,
            };
            ran.map_err(|e| match e {
                ToolError::Panicked { message, .. } => Stop::Panicked(message),
                other => Stop::Panicked(other.to_string()),
            })
        };
        match deadline {
            Some(d) => tokio::time::timeout(d, run).await.unwrap_or(Err(Stop::DeadlineExceeded(d))),
            None => run.await,
        }
    };
    match host {
        Some(h) => match first(h.cancelled(), body).await {
            Either::Left(()) => Err(Stop::CancelledWhileRunning),
            Either::Right(r) => r,
        },
        None => body.await,
    }
}

/// Where one request's progress goes: `notifications/progress` under its token, until the
/// request completes.
struct ProgressChannel {
    sink: Arc<dyn Sink>,
    token: Box<RawValue>,
    open: Mutex<bool>,
}

impl ProgressChannel {
    /// A channel for `token` on `sink`.
    fn new(sink: Arc<dyn Sink>, token: Box<RawValue>) -> Arc<ProgressChannel> {
        Arc::new(ProgressChannel { sink, token, open: Mutex::new(true) })
    }

    /// Send one report, unless the request has completed. [`Context`] has already dropped
    /// reports that do not increase.
    fn emit(&self, p: &Progress) {
        let open = lock(&self.open);
        if *open {
            let params = progress_params(&self.token, p.progress, p.total, p.message.as_deref());
            crate::server::dispatch::sink::send_from_call(
                &self.sink,
                Outbound::notification(methods::NOTIFICATIONS_PROGRESS, &params),
            );
        }
    }

    /// The request completed: later reports (from a task the code left behind) are dropped.
    fn close(&self) {
        *lock(&self.open) = false;
    }
}
