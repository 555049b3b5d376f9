//! Relief: a sync body run in place, on the thread that polls its call, with the call still
//! answered on time when the body runs long.
//!
//! Handing a sync body to another thread costs two thread wake-ups a call (see `workers`),
//! and more when the machine's cores are idle and halted. A body run where its call is
//! polled costs none; but a body that blocks would then hold up whatever else that thread
//! serves. Relief runs bodies in place in two kinds of place, each a [`Post`]:
//!
//! - **A reader**: the thread that reads a transport's input (stdio's stdin reader). A body
//!   that runs long is *relieved*: a new thread takes over the reading (the post's
//!   `take_over`), and the relieved thread answers its body, then leaves. At most
//!   [`MAX_STUCK`] relieved bodies run at once.
//! - **A runtime worker** of a multi-threaded tokio runtime (every HTTP call, and stdio served
//!   on such a runtime), for a call the server runs, at most workers − 1 bodies at once, so
//!   one worker at least always serves everything else. A worker cannot be relieved: a body
//!   that runs long holds its worker, and its seat, until it returns, and the watcher wakes
//!   another worker to drive the runtime's timers and I/O meanwhile. What the body sends
//!   to the client meanwhile (progress, a log message: [`defer`]) is sent from the watcher
//!   thread, not from the worker: a task woken on a worker goes to that worker's own
//!   next-task slot, which no other worker takes, so it would wait for the body to return.
//!
//! Past either bound, sync bodies go to the sync workers and the blocking pool.
//!
//! A watcher thread per post looks at the bodies while bodies have run recently (it sleeps
//! after [`IDLE_TICKS`] looks without one, and the next body wakes it): every [`TICK`] while
//! it sees a body running, and otherwise at intervals that double up to [`REST_TICK`]. A
//! body it sees still running half a tick or more after it first saw it is relieved (on a
//! reader) or just marked so (on a worker): a tick after the first look that sees it, so 1
//! to 9 ms (`TICK` to `REST_TICK` + `TICK`) after it starts. The back-off is for a server
//! that serves short bodies back to back, where a look rarely finds one running: looking
//! every millisecond there cost a tenth of the sync tool's throughput over HTTP at c=16 on
//! two busy cores (each look wakes a thread on a core the workers and the client need;
//! bench/findings.md, session 28).
//!
//! Either way a relieved body's call must still be answered on time, though the call's
//! future is inside its own poll: the watcher hands the call's [`Rescue`] (offered by the
//! request path for each poll, see [`offer`]) a receiver that resolves when the body
//! returns, and the request path answers the call at its deadline, or at the host's
//! cancellation, through a second reply, unless the body returned first. A body that never
//! returns keeps its thread, and its call's in-flight slot, for good.

use std::cell::{Cell, RefCell};
use std::io;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use tokio::runtime::Handle;
use tokio::sync::oneshot;

use crate::sync::lock;

/// How often the watcher looks at the bodies running in place while it sees one running.
const TICK: Duration = Duration::from_millis(1);
/// The longest the watcher rests between looks while bodies run but none is running when
/// it looks (intervals from [`TICK`] double up to this).
const REST_TICK: Duration = Duration::from_millis(8);
/// Looks without a body before the watcher sleeps (at [`REST_TICK`] apart by then: about
/// half a second).
const IDLE_TICKS: u32 = 64;
/// The most relieved bodies running at once on a reader post.
const MAX_STUCK: usize = 2;

/// Starts a thread that reads on as the given generation.
type TakeOver = Box<dyn Fn(Arc<Post>, u64) -> io::Result<()> + Send + Sync>;

/// Something a body run in place on a runtime worker sent, to send from the watcher.
pub(crate) type Deferred = Box<dyn FnOnce() + Send>;

/// How a call whose body ran long is answered on time: implemented by the request path.
pub(crate) trait Rescue: Sync {
    /// The body, running since about `started`, ran long and still runs. Answer the call
    /// when its deadline or the host's cancellation comes, unless `returned` resolves first
    /// (the body returned; its own answer goes out). Called on the watcher thread, inside
    /// the call's runtime, while the body runs.
    fn relieved(&self, started: Instant, returned: oneshot::Receiver<()>);
}

/// Where sync bodies run in place: one transport's input and the threads that take turns
/// reading it, or (with no `take_over`) the workers of the multi-threaded runtimes.
pub(crate) struct Post {
    state: Mutex<PostState>,
    /// The generation of the thread that reads now.
    generation: AtomicU64,
    /// `None` for the runtime workers' post: a worker cannot be relieved.
    take_over: Option<TakeOver>,
    /// The reader post's runtime (a worker's body carries its own).
    runtime: Option<Handle>,
    watcher: OnceLock<Thread>,
}

struct PostState {
    /// Bodies started in place, ever.
    started: u64,
    /// The bodies running in place, relieved or not.
    bodies: Vec<Body>,
    watcher: Watcher,
}

impl PostState {
    fn relieved(&self) -> usize {
        self.bodies.iter().filter(|b| b.relieved.is_some()).count()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Watcher {
    NotStarted,
    Ticking,
    Asleep,
}

/// A body running in place.
struct Body {
    number: u64,
    rescue: Option<Rescuing>,
    /// The runtime of a body on a worker.
    runtime: Option<Handle>,
    /// When the watcher first saw it.
    seen: Option<Instant>,
    /// Set once it ran long: dropping it tells the rescue the body returned.
    relieved: Option<oneshot::Sender<()>>,
    /// What it sent that the watcher has not sent yet (on a worker only).
    sends: Vec<Deferred>,
}

/// A call's [`Rescue`], by address, valid while its body runs (see [`offer`]).
struct Rescuing(*const (dyn Rescue + 'static));

// SAFETY: a `Rescuing` is only dereferenced (in `relieve`) while the body it was offered for
// runs, and the `dyn Rescue` it points to is `Sync`: sharing it with the watcher thread is
// sharing a `&dyn Rescue`, which `Sync` allows.
#[allow(unsafe_code)]
unsafe impl Send for Rescuing {}

impl Post {
    /// A post whose reading moves to a thread started by `take_over` (given the post and the
    /// new generation) when a body is relieved; generation 0 reads first.
    pub(crate) fn new(
        runtime: Handle,
        take_over: impl Fn(Arc<Post>, u64) -> io::Result<()> + Send + Sync + 'static,
    ) -> Arc<Post> {
        Arc::new(Post::with(Some(Box::new(take_over)), Some(runtime)))
    }

    fn with(take_over: Option<TakeOver>, runtime: Option<Handle>) -> Post {
        Post {
            state: Mutex::new(PostState { started: 0, bodies: Vec::new(), watcher: Watcher::NotStarted }),
            generation: AtomicU64::new(0),
            take_over,
            runtime,
            watcher: OnceLock::new(),
        }
    }

    /// The post of the runtime workers (one per process).
    fn workers() -> &'static Arc<Post> {
        static WORKERS: OnceLock<Arc<Post>> = OnceLock::new();
        WORKERS.get_or_init(|| Arc::new(Post::with(None, None)))
    }

    /// Start the first reader (generation 0).
    pub(crate) fn start(self: &Arc<Post>) -> io::Result<()> {
        match &self.take_over {
            Some(take_over) => take_over(self.clone(), 0),
            None => Ok(()),
        }
    }

    /// Whether the thread of generation `generation` still reads.
    pub(crate) fn reads(&self, generation: u64) -> bool {
        self.generation.load(Ordering::Acquire) == generation
    }

    fn lock(&self) -> MutexGuard<'_, PostState> {
        lock(&self.state)
    }

    /// Run `body` here if `admit` lets it, as this post's; give it back otherwise.
    fn run<R, F: FnOnce() -> R>(
        self: &Arc<Post>,
        body: F,
        admit: impl FnOnce(&PostState) -> bool,
        runtime: Option<Handle>,
    ) -> Result<thread::Result<R>, F> {
        let number = {
            let mut s = self.lock();
            if !admit(&s) {
                return Err(body);
            }
            s.started += 1;
            let number = s.started;
            let rescue = RESCUE.with(Cell::take).map(Rescuing);
            s.bodies.push(Body { number, rescue, runtime, seen: None, relieved: None, sends: Vec::new() });
            self.wake_watcher(&mut s);
            number
        };
        let on_worker = self.take_over.is_none();
        if on_worker {
            DEFERRING.with(|d| d.set(number));
        }
        let result = std::panic::catch_unwind(AssertUnwindSafe(body));
        if on_worker {
            DEFERRING.with(|d| d.set(0));
        }
        let done = {
            let mut s = self.lock();
            s.bodies.iter().position(|b| b.number == number).map(|i| s.bodies.swap_remove(i))
        };
        // Dropping it tells a rescue the body returned. What it sent and the watcher has not
        // goes out now, before its answer (the watcher sends under the lock, so nothing it
        // took is still on its way).
        if let Some(done) = done {
            for send in done.sends {
                deliver(send);
            }
        }
        Ok(result)
    }

    /// Make sure the watcher ticks: start it, or wake it.
    fn wake_watcher(self: &Arc<Post>, s: &mut PostState) {
        match s.watcher {
            Watcher::Ticking => {}
            Watcher::Asleep => {
                s.watcher = Watcher::Ticking;
                if let Some(t) = self.watcher.get() {
                    t.unpark();
                }
            }
            Watcher::NotStarted => {
                let weak = Arc::downgrade(self);
                let spawned =
                    thread::Builder::new().name("toolwire-relief".into()).spawn(move || watch(weak));
                if let Ok(handle) = spawned {
                    s.watcher = Watcher::Ticking;
                    let _ = self.watcher.set(handle.thread().clone());
                }
            }
        }
    }
}

impl Drop for Post {
    fn drop(&mut self) {
        // The watcher holds the post weakly: woken, it finds it gone and leaves.
        if let Some(watcher) = self.watcher.get() {
            watcher.unpark();
        }
    }
}

thread_local! {
    /// The post this thread reads for, and as which generation.
    static READING: RefCell<Option<(Arc<Post>, u64)>> = const { RefCell::new(None) };
    /// The rescue of the call being polled on this thread (see [`offer`]).
    static RESCUE: Cell<Option<*const (dyn Rescue + 'static)>> = const { Cell::new(None) };
    /// The number of the body running in place on this runtime worker; 0 for none.
    static DEFERRING: Cell<u64> = const { Cell::new(0) };
    /// Set while a call is polled where no sync body may start (see [`hold_back`]).
    static HELD_BACK: Cell<bool> = const { Cell::new(false) };
}

/// Hold sync bodies back on this thread while the guard lives: a body polled meanwhile does
/// not start, and its call's poll returns pending (`run_blocking` yields first), so the call
/// is spawned and the body starts in its task. For a poll inside something that must not
/// block (an HTTP handler polling a call once before spawning it).
pub(crate) fn hold_back() -> HoldBack {
    HoldBack(HELD_BACK.with(|h| h.replace(true)))
}

/// Whether sync bodies are held back on this thread (see [`hold_back`]).
pub(crate) fn held_back() -> bool {
    HELD_BACK.with(Cell::get)
}

/// Ends a [`hold_back`] when dropped.
pub(crate) struct HoldBack(bool);

impl Drop for HoldBack {
    fn drop(&mut self) {
        HELD_BACK.with(|h| h.set(self.0));
    }
}

/// Make this thread `post`'s reader of generation `generation`: sync bodies it polls run in
/// place while it is the one that reads.
pub(crate) fn read_for(post: &Arc<Post>, generation: u64) {
    READING.with(|r| *r.borrow_mut() = Some((post.clone(), generation)));
}

/// `rescue`, offered to a body run in place while the guard lives (and only on this thread).
/// Offer it for each poll of the call, and drop the guard before the poll returns: past
/// it, the future may move to another thread or be dropped. Only a call the server runs
/// offers one, so only its body runs in place on a runtime worker.
pub(crate) fn offer<'a>(rescue: &'a (dyn Rescue + 'a)) -> OfferGuard<'a> {
    let ptr: *const (dyn Rescue + 'a) = rescue;
    // SAFETY: only the lifetime bound of the trait object changes. The pointer is read by
    // `run_here`, on this thread, while the poll that offered it runs (the guard is dropped
    // before that poll returns); it is dereferenced only while the body it was taken by
    // runs, inside that poll, where the borrow `'a` is alive.
    #[allow(unsafe_code)]
    let ptr: *const (dyn Rescue + 'static) = unsafe { std::mem::transmute(ptr) };
    RESCUE.with(|r| r.set(Some(ptr)));
    OfferGuard { addr: ptr.cast::<()>() as usize, _rescue: PhantomData }
}

/// Withdraws its rescue when dropped, if it is still the one offered.
pub(crate) struct OfferGuard<'a> {
    /// The rescue's address, only to compare.
    addr: usize,
    _rescue: PhantomData<&'a ()>,
}

impl Drop for OfferGuard<'_> {
    fn drop(&mut self) {
        RESCUE.with(|r| {
            if r.get().is_some_and(|p| p.cast::<()>() as usize == self.addr) {
                r.set(None);
            }
        });
    }
}

/// Run `body` right here if this thread may: it reads for a post, or it is a runtime worker
/// polling a call the server runs, with a seat free. Give it back otherwise (it then goes
/// to a sync worker).
pub(crate) fn run_here<R, F: FnOnce() -> R>(body: F) -> Result<thread::Result<R>, F> {
    if let Some((post, generation)) = READING.with(|r| r.borrow().clone()) {
        return post.run(body, |s| post.reads(generation) && s.relieved() < MAX_STUCK, None);
    }
    // A call the server runs on a multi-threaded runtime is a task, so it is polled by a
    // worker (a current-thread runtime's one thread must never block).
    if RESCUE.with(Cell::get).is_none() {
        return Err(body);
    }
    let Ok(runtime) = Handle::try_current() else { return Err(body) };
    if runtime.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return Err(body);
    }
    let seats = runtime.metrics().num_workers().saturating_sub(1);
    Post::workers().run(body, |s| s.bodies.len() < seats, Some(runtime))
}

/// Whether what this thread sends for a call must be [`defer`]red: it runs a sync body in
/// place on a runtime worker.
pub(crate) fn defers() -> bool {
    DEFERRING.with(Cell::get) != 0
}

/// Send `send` from the watcher, in order with the other sends of the body running in place
/// on this runtime worker, and before its answer; at once when no body runs here.
pub(crate) fn defer(send: Deferred) {
    let number = DEFERRING.with(Cell::get);
    let post = Post::workers();
    let mut s = post.lock();
    let Some(body) = s.bodies.iter_mut().find(|b| b.number == number).filter(|_| number != 0) else {
        drop(s);
        return send();
    };
    body.sends.push(send);
    post.wake_watcher(&mut s);
    drop(s);
    if let Some(t) = post.watcher.get() {
        t.unpark();
    }
}

/// Send one deferred message; a panic in it is not the watcher's.
fn deliver(send: Deferred) {
    let _ = std::panic::catch_unwind(AssertUnwindSafe(send));
}

/// The watcher's loop: send what bodies on workers sent; relieve a body seen running half a
/// tick or more before; sleep while no body runs; leave when the post is gone.
fn watch(post: Weak<Post>) {
    let mut idle = 0;
    let mut started_at_last_tick = 0;
    let mut rest = TICK;
    loop {
        thread::park_timeout(rest);
        let Some(p) = post.upgrade() else { return };
        let mut s = p.lock();
        // Sent under the lock, so a body's end (which sends the rest) cannot overtake them.
        for body in &mut s.bodies {
            for send in body.sends.drain(..) {
                deliver(send);
            }
        }
        let running = s.bodies.iter().any(|b| b.relieved.is_none());
        rest = if running { TICK } else { (rest * 2).min(REST_TICK) };
        if s.started != started_at_last_tick || running {
            idle = 0;
        } else {
            idle += 1;
        }
        started_at_last_tick = s.started;
        let now = Instant::now();
        for i in 0..s.bodies.len() {
            let body = &mut s.bodies[i];
            match body.seen {
                _ if body.relieved.is_some() => {}
                None => body.seen = Some(now),
                Some(seen) if now.duration_since(seen) >= TICK / 2 => relieve(&p, &mut s, i),
                Some(_) => {}
            }
        }
        if idle >= IDLE_TICKS {
            s.watcher = Watcher::Asleep;
            drop(s);
            drop(p);
            loop {
                thread::park();
                let Some(p) = post.upgrade() else { return };
                if p.lock().watcher != Watcher::Asleep {
                    break;
                }
            }
            idle = 0;
            rest = TICK;
        }
    }
}

/// The body `s.bodies[i]` runs long: on a reader, move the reading to a new thread; on a
/// worker, wake another one ([`wake_a_worker`]); then hand the body's call its rescue. (A
/// body starts in place only within its post's bound, so this one is within it.)
fn relieve(post: &Arc<Post>, s: &mut PostState, i: usize) {
    if let Some(take_over) = &post.take_over {
        let next = post.generation.load(Ordering::Acquire) + 1;
        // Set before the new thread starts, so it finds itself the reader.
        post.generation.store(next, Ordering::Release);
        if take_over(post.clone(), next).is_err() {
            // No thread: this one reads on after its body, as if never relieved (the next
            // tick tries again).
            post.generation.store(next - 1, Ordering::Release);
            return;
        }
    }
    let (returned, rx) = oneshot::channel();
    let body = &mut s.bodies[i];
    // Only a body on a worker carries a runtime of its own.
    if let Some(runtime) = &body.runtime {
        wake_a_worker(runtime);
    }
    let runtime = body.runtime.as_ref().or(post.runtime.as_ref());
    if let (Some(rescue), Some(seen), Some(runtime)) = (body.rescue.take(), body.seen, runtime) {
        let _runtime = runtime.enter();
        // SAFETY: the body this rescue was offered for is still running (it is in
        // `s.bodies`, and the body's end takes it out under the lock held here), and it runs
        // inside the poll of the call that offered it, where the rescue's borrow is alive
        // (see `offer`). `Rescue: Sync`, so using it from this thread is sound.
        #[allow(unsafe_code)]
        unsafe { &*rescue.0 }.relieved(seen, rx);
    }
    body.relieved = Some(returned);
}

/// Wake a parked worker of `runtime`, whose worker thread here holds a body that runs
/// long. The runtime's timers and I/O are driven by a worker that parks on them; the one
/// that did may be the one now held, having woken for the body's task alone, and then the
/// others, parked without them, would sleep until the body returned: a 2 s body would hold
/// every timer and new connection of the runtime for 2 s. A task spawned from outside the
/// runtime's workers (this thread) goes to its shared queue, which wakes a parked worker;
/// that worker runs it, finds the driver free, and parks on it.
fn wake_a_worker(runtime: &Handle) {
    drop(runtime.spawn(async {}));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn current_thread() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    /// A body that runs past two ticks is relieved: `take_over` is asked for a reader of the
    /// next generation, and the thread that ran it no longer reads. A short one is not.
    #[test]
    fn a_long_body_is_relieved_and_a_short_one_is_not() {
        let runtime = current_thread();
        let taken = Arc::new(AtomicUsize::new(0));
        let theirs = taken.clone();
        let post = Post::new(runtime.handle().clone(), move |_, generation| {
            theirs.store(generation as usize, Ordering::SeqCst);
            Ok(())
        });
        read_for(&post, 0);
        assert_eq!(run_here(|| 1).ok().map(|r| r.unwrap()), Some(1));
        assert!(post.reads(0));
        assert_eq!(taken.load(Ordering::SeqCst), 0);

        let slept = run_here(|| std::thread::sleep(Duration::from_millis(50)));
        assert!(slept.is_ok_and(|r| r.is_ok()));
        assert_eq!(taken.load(Ordering::SeqCst), 1, "a reader of generation 1 was started");
        assert!(!post.reads(0) && post.reads(1));
        // This thread no longer reads: a body here goes elsewhere.
        assert!(run_here(|| 2).is_err());
        assert!(post.lock().bodies.is_empty(), "the relieved body returned");
    }

    /// Records the receiver a rescue is handed.
    struct Told(Mutex<Option<oneshot::Receiver<()>>>);

    impl Rescue for Told {
        fn relieved(&self, _started: Instant, returned: oneshot::Receiver<()>) {
            *self.0.lock().unwrap() = Some(returned);
        }
    }

    /// A relieved body's rescue learns when the body returns.
    #[test]
    fn a_rescue_is_told_when_its_relieved_body_returns() {
        let runtime = current_thread();
        let post = Post::new(runtime.handle().clone(), |_, _| Ok(()));
        read_for(&post, 0);
        let told = Told(Mutex::new(None));
        {
            let _offered = offer(&told);
            let r = run_here(|| std::thread::sleep(Duration::from_millis(50)));
            assert!(r.is_ok());
        }
        let mut returned = told.0.lock().unwrap().take().expect("the rescue was handed the body at relief");
        assert_eq!(returned.try_recv(), Err(oneshot::error::TryRecvError::Closed));
        assert!(RESCUE.with(Cell::get).is_none(), "the offer was withdrawn");
    }

    /// A panicking body is caught, and leaves the post as it was.
    #[test]
    fn a_panic_in_place_is_caught() {
        let runtime = current_thread();
        let post = Post::new(runtime.handle().clone(), |_, _| Ok(()));
        read_for(&post, 0);
        let r = run_here(|| panic!("in place"));
        assert!(r.is_ok_and(|r| r.is_err()));
        assert!(post.lock().bodies.is_empty());
        // Printing the panic may take long enough for a relief: read as whoever reads now.
        read_for(&post, post.generation.load(Ordering::Acquire));
        assert!(run_here(|| 3).is_ok());
    }

    /// Off a reader, a body runs in place only when its call offers it and is a task of a
    /// multi-threaded runtime.
    #[test]
    fn off_a_reader_a_body_runs_in_place_only_on_an_offering_worker() {
        assert!(run_here(|| ()).is_err(), "no offer");
        let told = Told(Mutex::new(None));
        let _offered = offer(&told);
        assert!(run_here(|| ()).is_err(), "offered, but on no runtime");
        let in_current_thread = current_thread().block_on(async {
            let _offered = offer(&told);
            run_here(|| ()).is_ok()
        });
        assert!(!in_current_thread, "offered, but on a current-thread runtime's one thread");
    }

    /// The runtime workers' post is the process's: its tests take turns.
    static WORKERS_POST: Mutex<()> = Mutex::new(());

    /// While a long body holds one worker of two, the runtime's timers still fire: the
    /// watcher wakes the other worker, which may have parked without the driver (the one that
    /// held it woke for the body's task) and would otherwise sleep until the body returned.
    #[test]
    fn a_long_body_on_a_worker_leaves_the_timers_running() {
        let _turn = WORKERS_POST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let (inside_tx, inside_rx) = std::sync::mpsc::channel::<()>();
        let long = runtime.spawn(async move {
            // Woken by a timer: the worker that drives them runs the body, and the other one
            // has parked on its own.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let told = Told(Mutex::new(None));
            let _offered = offer(&told);
            run_here(move || {
                inside_tx.send(()).unwrap();
                thread::sleep(Duration::from_millis(1500));
            })
            .is_ok()
        });
        inside_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let started = Instant::now();
        runtime.block_on(async { tokio::time::sleep(Duration::from_millis(50)).await });
        let took = started.elapsed();
        assert!(runtime.block_on(long).unwrap(), "the body ran in place");
        assert!(took < Duration::from_millis(1000), "a 50 ms timer fired after {took:?}");
    }

    /// On the workers of a multi-threaded runtime: at most workers - 1 bodies run in place at
    /// once; a long one's rescue is handed its body while it runs; what it sends goes out from
    /// the watcher thread while it runs, in order.
    #[test]
    fn on_workers_a_seat_is_held_a_long_body_is_rescued_and_its_sends_go_out_from_the_watcher() {
        let _turn = WORKERS_POST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let (sent_tx, sent_rx) = std::sync::mpsc::channel::<(u32, String)>();
        let (inside_tx, inside_rx) = std::sync::mpsc::channel::<()>();
        let (second_tx, second_rx) = std::sync::mpsc::channel::<bool>();
        let told = Arc::new(Told(Mutex::new(None)));
        let theirs = told.clone();
        let long = runtime.spawn(async move {
            let _offered = offer(&*theirs);
            run_here(move || {
                assert!(defers());
                for n in 0..3 {
                    let sent = sent_tx.clone();
                    defer(Box::new(move || {
                        let _ = sent.send((n, thread::current().name().unwrap_or("").to_owned()));
                    }));
                }
                inside_tx.send(()).unwrap();
                // Held until the other worker has tried for the one seat.
                let _ = second_rx.recv_timeout(Duration::from_secs(5));
                thread::sleep(Duration::from_millis(20));
            })
            .is_ok()
        });
        inside_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let second = runtime.spawn(async {
            let told = Told(Mutex::new(None));
            let _offered = offer(&told);
            run_here(|| ()).is_ok()
        });
        let second_in_place = runtime.block_on(second).unwrap();
        second_tx.send(second_in_place).unwrap();
        // The sends went out from the watcher while the body ran.
        for n in 0..3 {
            let (got, thread) = sent_rx.recv_timeout(Duration::from_secs(5)).unwrap();
            assert_eq!((got, thread.as_str()), (n, "toolwire-relief"));
        }
        assert!(runtime.block_on(long).unwrap(), "the first body ran in place");
        assert!(!second_in_place, "2 workers: one seat, taken");
        assert!(told.0.lock().unwrap().is_some(), "the long body's rescue was handed it");
        assert!(!defers(), "not deferring off the body");
        assert!(Post::workers().lock().bodies.is_empty());
    }
}
