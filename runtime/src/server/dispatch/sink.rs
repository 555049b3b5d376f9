//! Where outbound messages go ([`Sink`]), and [`Reply`], the one-shot handle through which a
//! request gets exactly one response (or, when cancelled, none).
//!
//! A batch's replies are collected by a [`BatchCollector`] and sent as one array once every
//! element has answered; notifications (progress) bypass it and go out at once.

use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex};

use crate::protocol::{Outbound, RequestId, RpcError, code};
use crate::sync::lock;

use crate::server::intercept::{Entered, Outcome, SharedWatch, Watch};
use crate::server::run::running::Running;
use crate::tool::carry;

/// Where a session's outbound messages go: the transport's writer.
///
/// `send` must not block: a transport queues the message and writes it on its own time.
/// Messages sent through one sink must be written in the order they were sent, since a
/// request's progress notifications must reach the client before its response.
///
/// Any `Fn(Outbound) + Send + Sync` closure is a sink.
pub trait Sink: Send + Sync + 'static {
    /// Queue one message.
    fn send(&self, message: Outbound);
}

impl<F: Fn(Outbound) + Send + Sync + 'static> Sink for F {
    fn send(&self, message: Outbound) {
        self(message)
    }
}

/// Send what a call's user code sends before its answer (progress, a log message, a request
/// of the client) through `sink`: from the relief watcher when the code is a sync body run
/// in place on a runtime worker (a task woken on that worker would wait for the body: see
/// [`relief`](crate::tool::relief)), else right here.
pub(crate) fn send_from_call(sink: &Arc<dyn Sink>, message: Outbound) {
    if crate::tool::relief::defers() {
        let sink = sink.clone();
        crate::tool::relief::defer(Box::new(move || sink.send(message)));
    } else {
        sink.send(message);
    }
}

/// Where a reply goes.
#[derive(Clone)]
pub(crate) enum Route {
    /// Straight to the sink.
    Direct(Arc<dyn Sink>),
    /// Into a batch's collector.
    Batch(Arc<BatchCollector>),
    /// Held for the tower layers around the engine (module `layered`): the answer goes to
    /// them, the notifications before it to the sink.
    #[cfg(feature = "tower")]
    Held(Arc<Held>),
}

/// Where a request served through tower layers is answered (module `layered`): its answer
/// resolves a oneshot the innermost layer awaits, and the notifications before it go to the
/// request's own sink.
#[cfg(feature = "tower")]
pub(crate) struct Held {
    sink: Arc<dyn Sink>,
    /// Taken by the first answer sent; dropped unsent (every reply gone), the request ended
    /// unanswered.
    answer: Mutex<Option<tokio::sync::oneshot::Sender<Outbound>>>,
}

#[cfg(feature = "tower")]
impl Held {
    /// Notifications to `sink`, the answer to `answer`.
    pub(crate) fn new(sink: Arc<dyn Sink>, answer: tokio::sync::oneshot::Sender<Outbound>) -> Held {
        Held { sink, answer: Mutex::new(Some(answer)) }
    }

    /// A reply's message: the answer, when it is one. A reply that sends nothing (it lost
    /// its call to a cancellation, or to its twin) leaves the oneshot to the others: it
    /// resolves unanswered only once every reply is gone.
    fn deliver(&self, message: Option<Outbound>) {
        if let Some(message) = message
            && let Some(answer) = lock(&self.answer).take()
        {
            let _ = answer.send(message);
        }
    }
}

impl Route {
    /// The sink notifications for this request go to.
    pub(crate) fn sink(&self) -> &Arc<dyn Sink> {
        match self {
            Route::Direct(sink) => sink,
            Route::Batch(batch) => &batch.sink,
            #[cfg(feature = "tower")]
            Route::Held(held) => &held.sink,
        }
    }

    fn deliver(&self, message: Option<Outbound>) {
        match self {
            Route::Direct(sink) => {
                if let Some(m) = message {
                    sink.send(m);
                }
            }
            Route::Batch(batch) => batch.done(message),
            #[cfg(feature = "tower")]
            Route::Held(held) => held.deliver(message),
        }
    }
}

/// The one response a request gets.
///
/// Dropping a `Reply` without answering (a task that panicked outside the tool's own guard)
/// answers `-32603`, so a client is never left waiting; unless the request was cancelled,
/// in which case nothing is sent, as the spec requires.
pub(crate) struct Reply {
    id: Option<RequestId>,
    route: Route,
    /// For a tracked call: the session's table of running calls. The reply may only be sent
    /// by whoever removes the call's entry, so a cancellation and a completion never both
    /// win.
    running: Option<Arc<Running>>,
    answered: bool,
    /// A [`twin`](Self::twin): dropped unanswered, it sends nothing.
    quiet: bool,
    /// What an interceptor watches this request with (module `intercept`): one pointer, so a
    /// reply nobody watches (every reply of a server with no interceptor) is no larger; and
    /// dropped by hand ([`Drop`] below), so such a reply's drop is one test, not a call.
    watch: ManuallyDrop<Option<Box<Watching>>>,
}

/// A watched reply's watch, and whether the reply claimed its call when it told the watch.
struct Watching {
    /// Told the outcome when the reply is sent, or dropped unsent; taken when told. Shared
    /// with the threads that run the request's body, which enter it until then.
    watch: Arc<SharedWatch>,
    /// Whether this reply claimed its call already ([`Reply::claim`] may only be asked
    /// once): set when the watch was told, before the message was made.
    claimed: Option<bool>,
}

impl Reply {
    /// A reply to `id` (`None` when the id could not be read).
    pub(crate) fn new(id: Option<RequestId>, route: Route) -> Reply {
        if let Route::Batch(batch) = &route {
            batch.expect_one();
        }
        Reply { id, route, running: None, answered: false, quiet: false, watch: ManuallyDrop::new(None) }
    }

    /// A second reply to the same request, for whoever may answer it while this one's
    /// owner cannot (a relieved sync body's deadline, see `request`): of the two, the one
    /// that claims the call's entry first answers. Dropped unanswered, the twin sends
    /// nothing (it neither claims the call nor reports a failure).
    pub(crate) fn twin(&self) -> Reply {
        let mut twin = Reply::new(self.id.clone(), self.route.clone());
        twin.running = self.running.clone();
        twin.quiet = true;
        twin
    }

    /// Make this the reply of a tracked call: it is sent only if the call is still in the
    /// running table when it completes.
    pub(crate) fn tracked(mut self, running: Arc<Running>) -> Reply {
        self.running = Some(running);
        self
    }

    /// Tell `watch` how this request ends (module `intercept`).
    pub(crate) fn watched(mut self, watch: Option<Box<dyn Watch>>) -> Reply {
        if let Some(watch) = watch {
            let watching = Box::new(Watching { watch: SharedWatch::new(watch), claimed: None });
            drop(self.watch.replace(watching));
        }
        self
    }

    /// Enter this request's watch, if one watches, for one poll of its user code on this
    /// thread, and lend it to the threads a body is handed to in that poll (module
    /// `tool::run::carry`); drop the guard before the poll returns.
    pub(crate) fn enter_watch(&self) -> Option<Entering> {
        let watch = &self.watch.as_ref()?.watch;
        let entered = carry::Enter::enter(&**watch);
        let lent: Arc<dyn carry::Enter> = watch.clone();
        Some(Entering { _entered: entered, _lent: carry::lend(lent) })
    }

    /// Tell the watch, if any, how the request ends: `outcome` when this reply is the one
    /// sent (it claims its call now), else that it went unanswered.
    #[cold]
    fn tell(&mut self, outcome: Outcome<'_>) {
        let Some(watch) = self.watch.as_ref().and_then(|w| w.watch.take()) else { return };
        let claimed = self.claim();
        if let Some(w) = &mut *self.watch {
            w.claimed = Some(claimed);
        }
        watch.finished(if claimed { outcome } else { Outcome::Unanswered });
    }

    /// The id this reply answers.
    pub(crate) fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The route (for the notifications that precede the reply).
    pub(crate) fn route(&self) -> &Route {
        &self.route
    }

    /// Answer with a result body (a JSON object).
    pub(crate) fn result(mut self, body: &str) {
        if self.watch.is_some() {
            self.tell(Outcome::Completed(body));
        }
        self.result_with(|id| Outbound::result(id, body));
    }

    /// Answer with a result body made for it (module `tools`: with
    /// [`RESULT_ROOM`](crate::protocol::outbound::RESULT_ROOM) to spare), wrapped in place.
    pub(crate) fn result_in(mut self, body: String) {
        if self.watch.is_some() {
            self.tell(Outcome::Completed(&body));
        }
        self.result_with(|id| Outbound::result_around(id, body));
    }

    /// Send the result `message` writes under the request's id.
    fn result_with(self, message: impl FnOnce(&RequestId) -> Outbound) {
        match &self.id {
            Some(id) => {
                let message = message(id);
                self.send(message);
            }
            // A request always has an id; a result without one cannot be addressed.
            None => self.error(RpcError::new(code::INTERNAL_ERROR, "internal error: a result without an id")),
        }
    }

    /// Answer with an error.
    pub(crate) fn error(mut self, error: RpcError) {
        if self.watch.is_some() {
            self.tell(Outcome::Error(&error));
        }
        let message = Outbound::error(self.id.as_ref(), &error);
        self.send(message);
    }

    fn send(mut self, message: Outbound) {
        self.answered = true;
        if self.claim() {
            self.route.deliver(Some(message));
        } else {
            self.route.deliver(None);
        }
    }

    /// End the request with no answer (the layers around the engine say the client
    /// cancelled it): nothing is sent, as for a cancelled call.
    #[cfg(feature = "tower")]
    pub(crate) fn unanswered(mut self) {
        self.quiet = true;
    }

    /// Whether this reply may be sent: untracked replies always may; a tracked one only if
    /// it removes its call from the running table (a cancellation removed it otherwise).
    fn claim(&self) -> bool {
        if let Some(claimed) = self.watch.as_ref().and_then(|w| w.claimed) {
            return claimed;
        }
        match (&self.running, &self.id) {
            (Some(running), Some(id)) => running.finish(id),
            _ => true,
        }
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        if !self.answered {
            self.dropped_unanswered();
        }
        if self.watch.is_some() {
            drop(std::mem::take(&mut *self.watch));
        }
    }
}

impl Reply {
    /// Dropped unanswered: a twin sends nothing; any other reply answers -32603, unless its
    /// call was cancelled.
    fn dropped_unanswered(&mut self) {
        if self.quiet {
            if let Some(watch) = self.watch.as_ref().and_then(|w| w.watch.take()) {
                watch.finished(Outcome::Unanswered);
            }
            return self.route.deliver(None);
        }
        let error = || {
            RpcError::new(
                code::INTERNAL_ERROR,
                "internal error: the server failed while handling this request",
            )
        };
        if self.watch.is_some() {
            self.tell(Outcome::Error(&error()));
        }
        if self.claim() {
            self.route.deliver(Some(Outbound::error(self.id.as_ref(), &error())));
        } else {
            self.route.deliver(None);
        }
    }
}

/// A request's watch entered for one poll of its user code, and lent for it (see
/// [`Reply::enter_watch`]): both undone when dropped.
pub(crate) struct Entering {
    _entered: Option<Entered>,
    _lent: carry::Lent,
}

/// Collects a batch's responses and sends them as one array when the last one is in.
pub(crate) struct BatchCollector {
    sink: Arc<dyn Sink>,
    state: Mutex<BatchState>,
}

struct BatchState {
    /// Replies still owed, plus one until the batch is sealed.
    outstanding: usize,
    responses: Vec<Outbound>,
}

impl BatchCollector {
    /// A collector that sends to `sink`; call [`seal`](Self::seal) once every element has
    /// been dispatched.
    pub(crate) fn new(sink: Arc<dyn Sink>) -> Arc<BatchCollector> {
        Arc::new(BatchCollector {
            sink,
            state: Mutex::new(BatchState { outstanding: 1, responses: Vec::new() }),
        })
    }

    fn expect_one(&self) {
        self.lock().outstanding += 1;
    }

    /// No more replies will be created.
    pub(crate) fn seal(&self) {
        self.done(None);
    }

    fn done(&self, message: Option<Outbound>) {
        let finished = {
            let mut state = self.lock();
            if let Some(m) = message {
                state.responses.push(m);
            }
            state.outstanding -= 1;
            if state.outstanding == 0 { Some(std::mem::take(&mut state.responses)) } else { None }
        };
        // A batch of notifications only (or of cancelled calls) is answered with nothing.
        if let Some(responses) = finished.filter(|r| !r.is_empty()) {
            self.sink.send(Outbound::batch(&responses));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BatchState> {
        lock(&self.state)
    }
}
