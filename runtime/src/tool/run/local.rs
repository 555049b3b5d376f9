//! Local threads: `#[tool(local)]` bodies, whose futures are not `Send` (an `Rc`, a
//! `RefCell` borrow or a `!Send` guard held across an `.await`), each run to the end on one
//! thread of toolwire's own.
//!
//! A call's future must be `Send` (the engine's tasks move between a runtime's workers), so a
//! `!Send` body cannot be polled by it. Instead the call hands a `Send` closure that *makes*
//! the body's future to a local thread: a thread with a current-thread tokio runtime and a
//! `LocalSet`, where the future is spawned with `spawn_local` and stays until it finishes.
//! The call waits for the result on a oneshot channel.
//!
//! The guarantees are those of any tool, because the waiting side is an ordinary future:
//!
//! - **Cancellation and the deadline.** The engine stops a call by dropping its future
//!   (`notifications/cancelled`, a dropped connection, the server's deadline). Dropping the
//!   waiting side closes the result channel, and the local task, which races the body against
//!   that closing, drops the body at its next wake-up: its `Drop`s run on its own thread.
//!   A body that awaits `Context::cancelled()` sees the cancellation too.
//! - **Panics** while making or polling the body are caught on the local thread and come back
//!   as [`ToolError::Panicked`], as from any other body; the thread lives on.
//! - **`Context`** is a `Send` value cloned into the closure: progress, logging, elicitation
//!   and sampling work from the local thread as from anywhere else.
//! - **A call that may become a task** (`#[tool(local, task = "optional")]`) becomes one when
//!   the body first waits, on its thread: until the body's first poll there is over, the
//!   call's own pending is not a wait of the body ([`poll_judging_waits`]), so a body that never
//!   waits answers its call once, as an async body polled in place does.
//! - **An interceptor's watch** (a tracing span, a telemetry context) is entered on the local
//!   thread around the making of the body and each poll of it (module `carry`), as it is
//!   around each poll of any other body.
//!
//! Threads start lazily, one more each time every running one is busy, up to the number of
//! cores (at most [`MAX_THREADS`]); a call goes to the least busy. Many `local` calls
//! interleave on one thread at their `.await`s, as tasks of a current-thread runtime do; a
//! body that blocks its thread delays the others there (it should not: it is async). The
//! threads live as long as the process.

use std::any::Any;
use std::cell::Cell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;

use tokio::sync::{mpsc, oneshot};

use super::carry;
use crate::race::{Either, first};
use crate::sync::lock;

/// The most local threads a process runs.
const MAX_THREADS: usize = 8;

/// A body's maker, boxed: called on the local thread, and the future it makes spawned there.
type Job = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// One local thread: where its jobs are sent, and how many of its bodies are running.
struct LocalThread {
    jobs: mpsc::UnboundedSender<Job>,
    running: AtomicUsize,
}

/// Why a local body gave no output.
pub(super) enum Lost {
    /// It panicked (while being made, or polled), with this payload.
    Panicked(Box<dyn Any + Send>),
    /// Local thread number `.0` is not running (its runtime failed to start, or the thread
    /// could not be spawned).
    NoThread(usize),
}

/// Run the future `make` makes on one of toolwire's local threads, and wait for its output.
/// `make` is called there (so a sync body run inside it runs there too). Dropping the returned
/// future drops the body on its thread, at its next wake-up.
pub(super) async fn run<T, M, F>(make: M) -> Result<T, Lost>
where
    M: FnOnce() -> F + Send + 'static,
    F: Future<Output = T> + 'static,
    T: Send + 'static,
{
    let (tx, rx) = oneshot::channel::<Result<T, Box<dyn Any + Send>>>();
    // Told (sent, or dropped) once the body's first poll is over, when the poll that starts
    // this asks (see [`poll_judging_waits`]); no channel is made otherwise.
    let (first_poll_tx, first_poll) = match JUDGING.with(Cell::get) {
        true => {
            let (tx, rx) = oneshot::channel::<()>();
            (Some(tx), Some(rx))
        }
        false => (None, None),
    };
    let (thread, index) = pick();
    // The request's watch, if one watches, entered on the local thread around the making and
    // each poll of the body (module `carry`).
    let watch = carry::take();
    let job: Job = Box::new(move || {
        Box::pin(async move {
            let mut tx = tx;
            let mut first_poll_tx = first_poll_tx;
            let made = {
                let _entered = carry::enter(&watch);
                std::panic::catch_unwind(AssertUnwindSafe(make))
            };
            let body = match made {
                Ok(body) => body,
                Err(payload) => {
                    let _ = tx.send(Err(payload));
                    return;
                }
            };
            let mut body = std::pin::pin!(body);
            let caught = std::future::poll_fn(|cx| {
                let _entered = carry::enter(&watch);
                match std::panic::catch_unwind(AssertUnwindSafe(|| body.as_mut().poll(cx))) {
                    Ok(std::task::Poll::Pending) => {
                        // The body waits: its call may treat its waiting as the body's.
                        if let Some(told) = first_poll_tx.take() {
                            let _ = told.send(());
                        }
                        std::task::Poll::Pending
                    }
                    Ok(std::task::Poll::Ready(out)) => std::task::Poll::Ready(Ok(out)),
                    Err(payload) => std::task::Poll::Ready(Err(payload)),
                }
            });
            // The waiting side dropped (cancelled, deadline, connection gone): stop the body.
            if let Either::Right(done) = first(tx.closed(), caught).await {
                let _ = tx.send(done);
            }
        })
    });
    let _running = Running::enter(thread);
    if thread.jobs.send(job).is_err() {
        return Err(Lost::NoThread(index));
    }
    let mut rx = rx;
    let mut first_poll = first_poll;
    let answer = std::future::poll_fn(|cx| {
        if let Poll::Ready(answer) = Pin::new(&mut rx).poll(cx) {
            return Poll::Ready(answer);
        }
        if let Some(told) = &mut first_poll {
            match Pin::new(told).poll(cx) {
                Poll::Ready(_) => first_poll = None,
                Poll::Pending => HANDING_OVER.with(|h| h.set(true)),
            }
        }
        Poll::Pending
    })
    .await;
    match answer {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(payload)) => Err(Lost::Panicked(payload)),
        // The job was dropped unrun: its thread's runtime is gone.
        Err(_) => Err(Lost::NoThread(index)),
    }
}

thread_local! {
    /// Set while [`poll_judging_waits`] polls on this thread.
    static JUDGING: Cell<bool> = const { Cell::new(false) };
    /// Set by a poll of [`run`]'s waiting side, made while [`JUDGING`], that returned pending
    /// before its body's first poll was over.
    static HANDING_OVER: Cell<bool> = const { Cell::new(false) };
}

/// Poll `future` once, and say whether it is pending only because a body it handed to a
/// local thread in this poll or an earlier one of this kind has not had its first poll end
/// there yet: its call is not waiting on anything the body waits on, not yet.
///
/// For a call that becomes a task when its body first waits (`server::task::run`): a
/// `local` body's waiting side is pending from its first poll, so judged by its pending alone
/// every such call would become a task at once, and a body that never waits would run twice
/// (once in the attempt dropped, once in the task). Judged here, the call waits for the
/// body's first poll to end on its thread, as an async body's first poll ends in place. A
/// `local` call polled otherwise makes no channel for it.
pub(crate) fn poll_judging_waits<F: Future + ?Sized>(
    future: Pin<&mut F>,
    cx: &mut std::task::Context<'_>,
) -> (Poll<F::Output>, bool) {
    struct Judging(bool);
    impl Drop for Judging {
        fn drop(&mut self) {
            JUDGING.with(|j| j.set(self.0));
        }
    }
    let _judging = Judging(JUDGING.with(|j| j.replace(true)));
    let before = HANDING_OVER.with(|h| h.replace(false));
    let polled = future.poll(cx);
    let handing_over = HANDING_OVER.with(|h| h.replace(before));
    (polled, handing_over)
}

/// Counts one running body on a thread for as long as the call waits.
struct Running(&'static LocalThread);

impl Running {
    fn enter(thread: &'static LocalThread) -> Running {
        thread.running.fetch_add(1, Ordering::Relaxed);
        Running(thread)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The least busy local thread, starting another when every one is busy and there is room.
fn pick() -> (&'static LocalThread, usize) {
    static THREADS: OnceLock<std::sync::Mutex<Vec<&'static LocalThread>>> = OnceLock::new();
    let limit = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, MAX_THREADS);
    let mut threads = lock(THREADS.get_or_init(Default::default));
    let least = threads.iter().enumerate().min_by_key(|(_, t)| t.running.load(Ordering::Relaxed));
    match least {
        Some((i, t)) if t.running.load(Ordering::Relaxed) == 0 || threads.len() >= limit => (t, i),
        _ => {
            let thread: &'static LocalThread = Box::leak(Box::new(start(threads.len())));
            threads.push(thread);
            (thread, threads.len() - 1)
        }
    }
}

/// Start local thread number `index`: a current-thread runtime driving a `LocalSet` that
/// spawns each job it receives.
fn start(index: usize) -> LocalThread {
    let (jobs, mut rx) = mpsc::unbounded_channel::<Job>();
    // If the thread cannot start, the receiver goes with the closure that never ran: every
    // send fails, and `run_local` reports it.
    let _ = std::thread::Builder::new().name(format!("toolwire-local-{index}")).spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            // `rx` drops here: every later send fails, and the caller reports it.
            return;
        };
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            while let Some(job) = rx.recv().await {
                tokio::task::spawn_local(job());
            }
        });
    });
    LocalThread { jobs, running: AtomicUsize::new(0) }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::{Lost, run};

    fn message(lost: Lost) -> String {
        match lost {
            Lost::Panicked(p) => crate::tool::panic_message(&*p),
            Lost::NoThread(i) => format!("no thread {i}"),
        }
    }

    #[tokio::test]
    #[expect(
        clippy::await_holding_refcell_ref,
        reason = "the borrow across an await is what this test proves runs"
    )]
    async fn a_body_holding_an_rc_across_an_await_runs_on_a_local_thread() {
        let (n, thread) = run(|| async {
            let cell = Rc::new(RefCell::new(1));
            let borrow = cell.borrow_mut();
            tokio::time::sleep(Duration::from_millis(1)).await;
            let n = *borrow + 1;
            drop(borrow);
            (n, std::thread::current().name().map(str::to_owned))
        })
        .await
        .map_err(message)
        .unwrap();
        assert_eq!(n, 2);
        assert!(thread.as_deref().is_some_and(|n| n.starts_with("toolwire-local-")), "{thread:?}");
    }

    #[tokio::test]
    async fn a_panic_in_the_body_or_its_maker_is_reported_and_the_thread_lives_on() {
        let e = run::<(), _, _>(|| async { panic!("inside the body") }).await.map_err(message).unwrap_err();
        assert_eq!(e, "inside the body");
        let e = run::<(), _, _>(|| -> std::future::Ready<()> { panic!("making the body") })
            .await
            .map_err(message)
            .unwrap_err();
        assert_eq!(e, "making the body");
        assert_eq!(run(|| async { 7 }).await.map_err(message).unwrap(), 7);
    }

    #[tokio::test]
    async fn dropping_the_waiting_side_drops_the_body_on_its_thread() {
        struct Flag(Arc<AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(AtomicBool::new(false));
        let d = dropped.clone();
        let call = run::<(), _, _>(move || async move {
            let _flag = Flag(d);
            let _not_send = Rc::new(());
            std::future::pending::<()>().await;
        });
        let timed_out = tokio::time::timeout(Duration::from_millis(50), call).await;
        assert!(timed_out.is_err());
        for _ in 0..200 {
            if dropped.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("the body was not dropped after its caller gave up");
    }
}
