//! A request served through the tower layers a server was built with (feature `tower`,
//! [`ServerBuilder::layer`](crate::server::ServerBuilder::layer)).
//!
//! The method table hands it here after the rate limit, before the interceptors: it becomes
//! an [`McpRequest`] and goes through the layers, polled once in place and, if it waits,
//! on a task of its own. The innermost
//! [`Next`](crate::server::Next) serves it with a [`Reply`] of its own whose route is
//! [`Held`]: the engine answers it exactly as it answers any request (the interceptors, the
//! method table, the one request path), its notifications go to the request's sink, and its
//! answer resolves a oneshot instead of being written. What the layers make of that answer
//! is then written through the request's real reply. Dropping `Next`'s future before the
//! answer (a timeout) cancels the request as `notifications/cancelled` does.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::value::RawValue;

use crate::principal::Principal;
use crate::protocol::{Era, RequestId, RpcError, code};

use super::sink::{Held, Reply, Route, Sink};
use super::state::SessionInner;
use crate::server::access::caller::{Caller, Inline};
use crate::server::access::exposure::Exposure;
use crate::server::intercept::completed;
use crate::server::layer::{Inward, McpRequest, McpResponse, Stack};
use crate::server::run::running::Running;
use crate::server::serving::Serving;

/// How the engine serves a request once the layers let it through: the interceptors, then
/// the method table (module `table` passes its own, so this module need not import it).
pub(crate) type Serve = fn(&Arc<SessionInner>, &Arc<Serving>, Reply, &str, Option<&RawValue>, Caller<'_>);

/// Serve the request `reply` answers through `stack`, then `serve`.
#[cold]
#[inline(never)]
pub(crate) fn layered(
    session: &Arc<SessionInner>,
    serving: &Arc<Serving>,
    stack: &Stack,
    reply: Reply,
    request: (&str, Option<&RawValue>),
    caller: Caller<'_>,
    serve: Serve,
) {
    let (method, params) = request;
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return reply.error(RpcError::new(
            code::INTERNAL_ERROR,
            "internal error: the server is not running on a tokio runtime",
        ));
    };
    let Some(id) = reply.id().cloned() else { return serve(session, serving, reply, method, params, caller) };
    let seen = session.intercepted(method, &id, params, &caller);
    // Owned, as the request is: one copy of the headers, shared by the layers and the calls.
    #[cfg(feature = "http")]
    let headers = caller.headers.map(|h| Arc::new(h.clone()));
    let passage = Passage {
        session: Arc::clone(session),
        serving: Arc::clone(serving),
        sink: reply.route().sink().clone(),
        principal: Arc::clone(caller.principal),
        exposure: Arc::clone(caller.exposure),
        #[cfg(feature = "http")]
        headers: headers.clone(),
        serve,
    };
    let request = McpRequest::new(
        &seen,
        #[cfg(feature = "http")]
        headers,
        caller.untrusted(),
        Box::new(passage),
    );
    let modern = request.era() == Era::Modern;
    let shared = Arc::clone(&session.shared);
    let answering = stack.serve(request);
    let counted = Counted::new(stack.in_flight(), &session.running);
    let mut task = Box::pin(async move {
        // Counted until it is answered, so a session draining (stdin closed) waits for it.
        let _counted = counted;
        match answering.await.into_answer() {
            // A layer's own answer to a modern request is completed as an interceptor's is
            // (the engine's carry their `resultType` already, and are sent as they are).
            Some(Ok(body)) if modern => reply.result(&completed(&shared.modern_meta, &body)),
            Some(Ok(body)) => reply.result(body.get()),
            Some(Err(error)) => reply.error(error),
            None => reply.unanswered(),
        }
    });
    // Polled once here first: a request no layer holds up and the engine answers at once
    // (`initialize`, a list, `ping`) is answered before the next message is read, as without
    // layers, so a `notifications/initialized` right behind its `initialize` finds the
    // handshake done. Only what waits is spawned; a panic drops the reply, which answers
    // -32603 (as a panicking task's does).
    let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        task.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    }));
    if matches!(polled, Ok(std::task::Poll::Pending)) {
        // Spawning polls it again at once, with the task's waker.
        runtime.spawn(task);
    }
}

/// The way into the engine a layered request carries, for the innermost `Next`: what the
/// method table needs to serve it, owned.
struct Passage {
    session: Arc<SessionInner>,
    serving: Arc<Serving>,
    /// Where the request's notifications go (its progress, what its tool asks the client).
    sink: Arc<dyn Sink>,
    principal: Arc<Principal>,
    exposure: Arc<Exposure>,
    #[cfg(feature = "http")]
    headers: Option<Arc<axum::http::HeaderMap>>,
    serve: Serve,
}

impl Inward for Passage {
    fn serve(self: Box<Self>, request: McpRequest) -> Pin<Box<dyn Future<Output = McpResponse> + Send>> {
        Box::pin(async move {
            let (answer, answered) = tokio::sync::oneshot::channel();
            let id = request.id().clone();
            let reply =
                Reply::new(Some(id.clone()), Route::Held(Arc::new(Held::new(self.sink.clone(), answer))));
            // From here until it is answered, dropping this future cancels the request.
            let mut cancel = CancelOnDrop { running: Arc::clone(&self.session.running), id, armed: true };
            {
                // The transport's rate-limit cell was taken before the layers; what the
                // request starts is spawned (this is a task already).
                let caller = Caller {
                    principal: &self.principal,
                    exposure: &self.exposure,
                    admitted: true,
                    inline: Inline::No,
                    #[cfg(feature = "http")]
                    headers: self.headers.as_deref(),
                };
                (self.serve)(&self.session, &self.serving, reply, request.method(), request.params(), caller);
            }
            drop(request);
            let answered = answered.await;
            cancel.armed = false;
            match answered {
                Ok(message) => McpResponse::from_message(message.as_str()).unwrap_or_else(|| {
                    McpResponse::error(RpcError::new(
                        code::INTERNAL_ERROR,
                        "internal error: the engine's answer to a layered request is not a response",
                    ))
                }),
                // Every reply gone unsent: the client cancelled it.
                Err(_) => McpResponse::unanswered(),
            }
        })
    }
}

/// A request in the layers, counted in the stack's `in_flight` while it lives; when it
/// ends, its session's drain is woken to look again.
struct Counted {
    count: Arc<AtomicUsize>,
    running: Arc<Running>,
}

impl Counted {
    fn new(count: &Arc<AtomicUsize>, running: &Arc<Running>) -> Counted {
        count.fetch_add(1, Ordering::AcqRel);
        Counted { count: Arc::clone(count), running: Arc::clone(running) }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::AcqRel);
        self.running.idle.notify_waiters();
    }
}

/// Cancels a request in the engine when the future waiting for its answer is dropped.
struct CancelOnDrop {
    running: Arc<Running>,
    id: RequestId,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed && self.running.cancel(&self.id) {
            tracing::debug!(id = %self.id, "a layer dropped the request before its answer; it was cancelled");
        }
    }
}
