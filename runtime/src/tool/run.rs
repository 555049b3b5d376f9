//! Running a tool body: a sync body in place on a reader that can be relieved (`relief`), else
//! on a sync worker or the blocking pool (`workers`); an async one awaited in place, or, when
//! its future is not `Send` (`#[tool(local)]`), on a local thread (`local`); either
//! way a panic turned into [`ToolError::Panicked`] rather than a dead task, and a body run on
//! another thread run under its request's interceptor watch there (`carry`).

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use super::ToolError;

pub(crate) mod carry;
mod local;
pub(crate) mod relief;

pub(crate) use local::poll_judging_waits;
mod workers;

/// Run a sync body so that it never blocks the reactor or the transport for long (and never
/// in a poll that holds bodies back: it then yields once first, see `relief::hold_back`): in
/// place when the call is polled by the stdin reader, which another thread relieves if the body
/// runs long (past 1 to 9 ms), or by a worker of a multi-threaded runtime while fewer than
/// workers − 1 bodies run in place there (see `relief`); else on one of toolwire's sync
/// workers when one is idle (see `workers`), else on tokio's blocking pool, with the
/// request's interceptor watch, if one watches, entered there around it (see `carry`). A
/// panic becomes [`ToolError::Panicked`].
pub async fn run_blocking<R, F>(tool: &str, body: F) -> Result<R, ToolError>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if relief::held_back() {
        tokio::task::yield_now().await;
    }
    let body = match relief::run_here(body) {
        Ok(done) => return done.map_err(|payload| panicked(tool, payload)),
        Err(body) => body,
    };
    // Off this thread: the request's watch, if one watches, goes along and is entered there
    // around the body (module `carry`).
    let watch = carry::take();
    let body = move || {
        let _entered = carry::enter(&watch);
        body()
    };
    let body = match workers::spawn(body) {
        Ok(wait) => return wait.await.map_err(|payload| panicked(tool, payload)),
        Err(body) => body,
    };
    match tokio::task::spawn_blocking(body).await {
        Ok(r) => Ok(r),
        Err(e) if e.is_panic() => Err(panicked(tool, e.into_panic())),
        Err(_) => Err(ToolError::CancelledWhileRunning { tool: tool.to_owned() }),
    }
}

/// Run a sync body right here, on the thread that polls the call (`#[tool(inline)]`); a
/// panic becomes [`ToolError::Panicked`].
pub fn run_inline<R>(tool: &str, body: impl FnOnce() -> R) -> Result<R, ToolError> {
    std::panic::catch_unwind(AssertUnwindSafe(body)).map_err(|payload| panicked(tool, payload))
}

/// Run a body whose future is not `Send` (`#[tool(local)]`) on one of toolwire's local
/// threads (see `local`): `make` is called there and the future it makes polled there to the
/// end, with the request's interceptor watch, if one watches, entered there around the call
/// and each poll (see `carry`); dropping the returned future (cancellation, the deadline)
/// drops the body there. A panic in either becomes [`ToolError::Panicked`].
///
/// ```
/// # async fn demo() -> Result<(), toolwire::tool::ToolError> {
/// use std::rc::Rc;
/// let n = toolwire::tool::run_local("count", || async {
///     let shared = Rc::new(41); // not `Send`, and held across the `.await`
///     tokio::task::yield_now().await;
///     Ok(*shared + 1)
/// })
/// .await?;
/// assert_eq!(n, 42);
/// # Ok(())
/// # }
/// ```
pub async fn run_local<R, M, F>(tool: &str, make: M) -> Result<R, ToolError>
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = Result<R, ToolError>> + 'static,
    R: Send + 'static,
{
    match local::run(make).await {
        Ok(done) => done,
        Err(local::Lost::Panicked(payload)) => Err(panicked(tool, payload)),
        Err(local::Lost::NoThread(i)) => Err(ToolError::Panicked {
            tool: tool.to_owned(),
            message: format!("toolwire's local thread {i} is not running, so the body could not run"),
        }),
    }
}

/// Await an async body; a panic becomes [`ToolError::Panicked`].
pub async fn run_async<R, F>(tool: &str, body: F) -> Result<R, ToolError>
where
    F: Future<Output = R>,
{
    CatchUnwind { inner: body }.await.map_err(|payload| panicked(tool, payload))
}

/// The text of a panic payload, when it has one.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string payload".to_owned()
    }
}

fn panicked(tool: &str, payload: Box<dyn Any + Send>) -> ToolError {
    ToolError::Panicked { tool: tool.to_owned(), message: panic_message(&*payload) }
}

pin_project_lite::pin_project! {
    /// A future that turns a panic while polling into an `Err` with the payload.
    pub struct CatchUnwind<F> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let inner = self.project().inner;
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}
