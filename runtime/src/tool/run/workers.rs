//! Sync workers: a few threads of toolwire's own (at most [`MAX_WORKERS`]) that run sync
//! tool bodies, handed over directly so a short sync body costs about what an async one does.
//!
//! The blocking pool costs a sync call three thread wake-ups (the runtime, to run the call's
//! task; a pool thread, for the body; the runtime again, for the answer). Here the thread
//! that polls the call (an HTTP worker, or a stdin reader once relief is full: see `relief`) hands the body to an idle sync
//! worker (an atomic swap, and one wake-up) and sleeps until the worker wakes it with the
//! result, for at most [`BUDGET`]: a short body is answered right on the polling thread, with
//! no task spawned and the runtime never woken. A longer body is waited for like any other
//! future (the worker wakes the waiting task), so it blocks nothing but its own worker: the
//! polling thread moves on after the budget. When every worker is busy (a body that blocks
//! for seconds, or one that never returns), a body goes to tokio's blocking pool instead, as
//! every sync body did before. An idle worker sleeps; it does not spin (measured: on a
//! machine whose cores are all busy, a spinning worker is often not running when a body
//! comes, and costs more than a wake-up; see bench/results.md).
//!
//! Dropping the waiting future (the server's deadline, a cancellation) does not stop the
//! body, as with the blocking pool: a thread cannot be stopped from outside. Its worker is
//! busy until the body returns.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context as TaskContext, Poll, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use crate::sync::lock;

/// How long the polling thread waits (asleep) for a body's result before it waits as a
/// future does.
pub(super) const BUDGET: Duration = Duration::from_micros(50);
/// The most sync workers a process runs.
const MAX_WORKERS: usize = 2;

/// A body, boxed, with its result's destination inside.
type Job = Box<dyn FnOnce() + Send>;

/// The worker has not been started.
const NEW: u8 = 0;
/// Done with its last body, not yet asleep.
const IDLE: u8 = 1;
/// Claimed: running a body, or about to receive one.
const BUSY: u8 = 2;
/// Asleep, waiting for a body.
const PARKED: u8 = 3;

/// One sync worker.
struct Worker {
    state: AtomicU8,
    /// A body is in `job`.
    ready: AtomicBool,
    job: Mutex<Option<Job>>,
    thread: OnceLock<Thread>,
}

fn workers() -> &'static [Worker] {
    static WORKERS: OnceLock<Box<[Worker]>> = OnceLock::new();
    WORKERS.get_or_init(|| {
        let n = thread::available_parallelism().map_or(1, usize::from).clamp(1, MAX_WORKERS);
        (0..n)
            .map(|_| Worker {
                state: AtomicU8::new(NEW),
                ready: AtomicBool::new(false),
                job: Mutex::new(None),
                thread: OnceLock::new(),
            })
            .collect()
    })
}

/// An idle sync worker, claimed (or an unstarted one, to start).
struct Claimed {
    worker: &'static Worker,
    prev: u8,
}

/// Claim an idle sync worker; `None` when every worker is busy.
fn claim() -> Option<Claimed> {
    for worker in workers() {
        let mut current = worker.state.load(Ordering::Acquire);
        while current != BUSY {
            match worker.state.compare_exchange_weak(current, BUSY, Ordering::AcqRel, Ordering::Acquire) {
                Ok(prev) => return Some(Claimed { worker, prev }),
                Err(now) => current = now,
            }
        }
    }
    None
}

impl Claimed {
    /// Give the worker its body (starting its thread first if it has none); the body is
    /// given back if no thread can be started.
    fn give(self, job: Job) -> Result<(), Job> {
        let Claimed { worker, prev } = self;
        if prev == NEW {
            return start(worker, job);
        }
        *lock(&worker.job) = Some(job);
        worker.ready.store(true, Ordering::Release);
        if let (PARKED, Some(t)) = (prev, worker.thread.get()) {
            t.unpark();
        }
        Ok(())
    }
}

/// Start `w`'s thread with its first body; on failure the worker stays unstarted and the
/// body is given back.
fn start(w: &'static Worker, job: Job) -> Result<(), Job> {
    let slot = Arc::new(Mutex::new(Some(job)));
    let first = slot.clone();
    let spawned = thread::Builder::new().name("toolwire-sync".into()).spawn(move || {
        let job = lock(&first).take();
        work(w, job);
    });
    match spawned {
        Ok(_) => Ok(()),
        Err(_) => {
            // The thread never ran, so the body is still in its slot.
            let job = lock(&slot).take();
            w.state.store(NEW, Ordering::Release);
            job.map_or(Ok(()), Err)
        }
    }
}

/// A worker's loop: run a body, then sleep until the next comes.
fn work(w: &'static Worker, mut job: Option<Job>) {
    // Set before this thread can sleep, so whoever wakes it finds it.
    let _ = w.thread.set(thread::current());
    loop {
        if let Some(j) = job.take() {
            // The body's own guard catches its panic; this one keeps the worker alive if the
            // waker or a destructor panics.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(j));
        }
        w.state.store(IDLE, Ordering::Release);
        // Asleep until claimed (a claim of an idle worker that has not yet gone to sleep
        // finds it here, awake, and wakes nothing).
        if w.state.compare_exchange(IDLE, PARKED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            while w.state.load(Ordering::Acquire) == PARKED {
                thread::park();
            }
        }
        // Claimed: the body follows at once.
        while !w.ready.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
        w.ready.store(false, Ordering::Relaxed);
        job = lock(&w.job).take();
    }
}

/// Where a body's result goes.
struct Shot<R> {
    done: AtomicBool,
    /// The thread waiting for the result in [`Wait::poll`], to wake when it comes.
    poller: Mutex<Option<Thread>>,
    value: Mutex<Option<thread::Result<R>>>,
    waker: Mutex<Option<Waker>>,
}

impl<R> Shot<R> {
    fn take(&self) -> Option<thread::Result<R>> {
        if self.done.load(Ordering::Acquire) { lock(&self.value).take() } else { None }
    }
}

/// Run `body` on a sync worker, or give it back when none is free.
pub(super) fn spawn<R, F>(body: F) -> Result<Wait<R>, F>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let Some(claimed) = claim() else { return Err(body) };
    let shot = Arc::new(Shot {
        done: AtomicBool::new(false),
        poller: Mutex::new(None),
        value: Mutex::new(None),
        waker: Mutex::new(None),
    });
    let theirs = shot.clone();
    let job: Job = Box::new(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        *lock(&theirs.value) = Some(result);
        theirs.done.store(true, Ordering::Release);
        if let Some(t) = lock(&theirs.poller).take() {
            t.unpark();
        }
        let waker = lock(&theirs.waker).take();
        if let Some(w) = waker {
            w.wake();
        }
    });
    if let Err(job) = claimed.give(job) {
        // No thread could be started: the blocking pool runs it, into the same result.
        drop(tokio::task::spawn_blocking(job));
    }
    Ok(Wait { shot, watched: false })
}

/// A body's result, from its sync worker: ready at once, or after [`BUDGET`] a future that the
/// worker wakes.
pub(super) struct Wait<R> {
    shot: Arc<Shot<R>>,
    watched: bool,
}

impl<R> Future for Wait<R> {
    type Output = Result<R, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        if let Some(v) = self.shot.take() {
            return Poll::Ready(v);
        }
        if !self.watched {
            self.watched = true;
            let until = Instant::now() + BUDGET;
            // Asleep until the worker wakes this thread, or the budget is spent.
            if !self.shot.done.load(Ordering::Acquire) {
                *lock(&self.shot.poller) = Some(thread::current());
                loop {
                    if self.shot.done.load(Ordering::Acquire) {
                        break;
                    }
                    let now = Instant::now();
                    if now >= until {
                        break;
                    }
                    thread::park_timeout(until - now);
                }
                lock(&self.shot.poller).take();
            }
            if let Some(v) = self.shot.take() {
                return Poll::Ready(v);
            }
        }
        {
            let mut waker = lock(&self.shot.waker);
            match &mut *waker {
                Some(w) if w.will_wake(cx.waker()) => {}
                slot => *slot = Some(cx.waker().clone()),
            }
        }
        // The worker stores the result before it takes the waker, so a result that came in
        // while the waker was stored is seen here.
        match self.shot.take() {
            Some(v) => Poll::Ready(v),
            None => Poll::Pending,
        }
    }
}
