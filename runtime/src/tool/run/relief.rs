//! Relief: a sync body run in place, on the thread that reads a transport's input, with
//! another thread taking over the reading when the body runs long.
//!
//! Handing a sync body to another thread costs two thread wake-ups a call (see `workers`),
//! and more when the machine's cores are idle and halted. The stdin reader dispatches each
//! request itself, so a body run right there costs none; but a body that blocks would then
//! stall every later request. Relief keeps both:
//!
//! - A thread that reads (a [`Post`]'s reader, one at a time) runs a sync body in place,
//!   after marking it running under the post's mutex (two uncontended locks a call, no
//!   system call).
//! - A watcher thread ticks every [`TICK`] while bodies have run recently (it sleeps after
//!   [`IDLE_TICKS`] ticks without one, and the next body wakes it). A body it sees running on
//!   two ticks in a row is *relieved*: the post's generation moves on, and a new thread
//!   (started by the post's `take_over`) reads from then on. The relieved thread finishes its
//!   body, answers it and leaves. A blocking body delays the requests after it by at most two
//!   ticks, not for its whole run.
//! - The stuck call's deadline and the host's cancellation must still answer on time, though
//!   its future is inside its own poll: at relief the watcher hands the call's [`Rescue`]
//!   (offered by the request path while it polls the call, see [`offer`]) a receiver that
//!   resolves when the body returns; the request path answers the call at its deadline
//!   through a second reply, unless the body returned first.
//! - At most [`MAX_STUCK`] relieved bodies may be running at once; past that, sync bodies go
//!   to the sync workers and the blocking pool, as they do on any thread that is not a
//!   post's reader. A relieved body that never returns keeps its thread, and the
//!   in-flight slot of its call, for good.

use std::cell::{Cell, RefCell};
use std::io;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How often the watcher looks at the body running in place.
const TICK: Duration = Duration::from_millis(1);
/// Ticks without a body before the watcher sleeps.
const IDLE_TICKS: u32 = 64;
/// The most relieved bodies running at once.
const MAX_STUCK: usize = 2;

/// Starts a thread that reads on as the given generation.
type TakeOver = Box<dyn Fn(Arc<Post>, u64) -> io::Result<()> + Send + Sync>;

/// How a call whose body was relieved is answered on time: implemented by the request path.
pub(crate) trait Rescue: Sync {
    /// The body, running since about `started`, was relieved and still runs. Answer the
    /// call when its deadline or the host's cancellation comes, unless `returned` resolves
    /// first (the body returned; its own answer goes out). Called on the watcher thread,
    /// inside the post's runtime, while the body runs.
    fn relieved(&self, started: Instant, returned: oneshot::Receiver<()>);
}

/// One transport's input and the threads that take turns reading it.
pub(crate) struct Post {
    state: Mutex<PostState>,
    /// The generation of the thread that reads now.
    generation: AtomicU64,
    take_over: TakeOver,
    runtime: tokio::runtime::Handle,
    watcher: OnceLock<Thread>,
}

struct PostState {
    /// Bodies started in place, ever.
    started: u64,
    /// The body running in place on the reader, if any.
    body: Option<Body>,
    /// Relieved bodies still running, by their number, with what tells their rescue they
    /// returned.
    relieved: Vec<(u64, oneshot::Sender<()>)>,
    watcher: Watcher,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Watcher {
    NotStarted,
    Ticking,
    Asleep,
}

/// The body running in place.
struct Body {
    number: u64,
    rescue: Option<Offered>,
    /// When the watcher first saw it.
    seen: Option<Instant>,
}

/// A call's [`Rescue`], by address, valid while its body runs (see [`offer`]).
struct Offered(*const (dyn Rescue + 'static));

// SAFETY: an `Offered` is only dereferenced (in `relieve`) while the body it was offered for
// runs, and the `dyn Rescue` it points to is `Sync`: sharing it with the watcher thread is
// sharing a `&dyn Rescue`, which `Sync` allows.
#[allow(unsafe_code)]
unsafe impl Send for Offered {}

impl Post {
    /// A post whose reading moves to a thread started by `take_over` (given the post and the
    /// new generation) when a body is relieved; generation 0 reads first.
    pub(crate) fn new(
        runtime: tokio::runtime::Handle,
        take_over: impl Fn(Arc<Post>, u64) -> io::Result<()> + Send + Sync + 'static,
    ) -> Arc<Post> {
        Arc::new(Post {
            state: Mutex::new(PostState {
                started: 0,
                body: None,
                relieved: Vec::new(),
                watcher: Watcher::NotStarted,
            }),
            generation: AtomicU64::new(0),
            take_over: Box::new(take_over),
            runtime,
            watcher: OnceLock::new(),
        })
    }

    /// Start the first reader (generation 0).
    pub(crate) fn start(self: &Arc<Post>) -> io::Result<()> {
        (self.take_over)(self.clone(), 0)
    }

    /// Whether the thread of generation `generation` still reads.
    pub(crate) fn reads(&self, generation: u64) -> bool {
        self.generation.load(Ordering::Acquire) == generation
    }

    fn lock(&self) -> MutexGuard<'_, PostState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
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
}

/// Make this thread `post`'s reader of generation `generation`: sync bodies it polls run in
/// place while it is the one that reads.
pub(crate) fn read_for(post: &Arc<Post>, generation: u64) {
    READING.with(|r| *r.borrow_mut() = Some((post.clone(), generation)));
}

/// `rescue`, offered to a body run in place while the guard lives (and only on this thread,
/// and only until [`withdraw`] or the guard's drop, whichever comes first).
pub(crate) fn offer<'a>(rescue: &'a (dyn Rescue + 'a)) -> OfferGuard<'a> {
    let ptr: *const (dyn Rescue + 'a) = rescue;
    // SAFETY: only the lifetime bound of the trait object changes. The pointer is read by
    // `run_here`, on this thread, while the call that offered it is being polled (the guard
    // is held across the call's awaits, and `withdraw` clears the slot when the poll that
    // set it returns, before the future can move to another thread or be dropped); it is
    // dereferenced only while the body it was taken by runs, inside that poll, where the
    // borrow `'a` is alive.
    #[allow(unsafe_code)]
    let ptr: *const (dyn Rescue + 'static) = unsafe { std::mem::transmute(ptr) };
    RESCUE.with(|r| r.set(Some(ptr)));
    OfferGuard { addr: ptr.cast::<()>() as usize, _rescue: PhantomData }
}

/// Withdraw whatever rescue is offered on this thread: the poll that offered it returned.
pub(crate) fn withdraw() {
    RESCUE.with(|r| r.set(None));
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

/// Run `body` right here if this thread reads for a post and may be relieved; give it back
/// otherwise (it then goes to a worker).
pub(crate) fn run_here<R, F: FnOnce() -> R>(body: F) -> Result<thread::Result<R>, F> {
    let Some((post, generation)) = READING.with(|r| r.borrow().clone()) else { return Err(body) };
    let number = {
        let mut s = post.lock();
        if !post.reads(generation) || s.relieved.len() >= MAX_STUCK {
            return Err(body);
        }
        s.started += 1;
        let number = s.started;
        let rescue = RESCUE.with(Cell::take).map(Offered);
        s.body = Some(Body { number, rescue, seen: None });
        match s.watcher {
            Watcher::Ticking => {}
            Watcher::Asleep => {
                s.watcher = Watcher::Ticking;
                if let Some(t) = post.watcher.get() {
                    t.unpark();
                }
            }
            Watcher::NotStarted => {
                let weak = Arc::downgrade(&post);
                let spawned =
                    thread::Builder::new().name("toolwire-relief".into()).spawn(move || watch(weak));
                if let Ok(handle) = spawned {
                    s.watcher = Watcher::Ticking;
                    let _ = post.watcher.set(handle.thread().clone());
                }
            }
        }
        number
    };
    let result = std::panic::catch_unwind(AssertUnwindSafe(body));
    let mut s = post.lock();
    if s.body.as_ref().is_some_and(|b| b.number == number) {
        s.body = None;
    } else if let Some(i) = s.relieved.iter().position(|(n, _)| *n == number) {
        // Relieved: dropping the sender tells the rescue the body returned.
        s.relieved.swap_remove(i);
    }
    Ok(result)
}

/// The watcher's loop: every tick, relieve a body seen running on the tick before; sleep
/// while no body runs; leave when the post is gone.
fn watch(post: Weak<Post>) {
    let mut idle = 0;
    let mut started_at_last_tick = 0;
    loop {
        thread::park_timeout(TICK);
        let Some(p) = post.upgrade() else { return };
        let mut s = p.lock();
        if s.started != started_at_last_tick || s.body.is_some() {
            idle = 0;
        } else {
            idle += 1;
        }
        started_at_last_tick = s.started;
        match &mut s.body {
            Some(b) if b.seen.is_none() => b.seen = Some(Instant::now()),
            Some(_) => relieve(&p, &mut s),
            None if idle >= IDLE_TICKS => {
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
            }
            None => {}
        }
    }
}

/// Move the reading to a new thread, and hand the running body's call its rescue.
/// (A body starts in place only while fewer than [`MAX_STUCK`] relieved ones run, so this one
/// is within the bound.)
fn relieve(post: &Arc<Post>, s: &mut PostState) {
    let Some(body) = s.body.take() else { return };
    let next = post.generation.load(Ordering::Acquire) + 1;
    // Set before the new thread starts, so it finds itself the reader.
    post.generation.store(next, Ordering::Release);
    if (post.take_over)(post.clone(), next).is_err() {
        // No thread: this one reads on after its body, as if never relieved.
        post.generation.store(next - 1, Ordering::Release);
        s.body = Some(body);
        return;
    }
    let (returned, rx) = oneshot::channel();
    if let (Some(rescue), Some(seen)) = (body.rescue, body.seen) {
        let _runtime = post.runtime.enter();
        // SAFETY: the body this rescue was offered for is still running (it was in
        // `s.body`, and the body's end takes it out under the lock held here), and it runs
        // inside the poll of the call that offered it, where the rescue's borrow is alive
        // (see `offer`). `Rescue: Sync`, so using it from this thread is sound.
        #[allow(unsafe_code)]
        unsafe { &*rescue.0 }.relieved(seen, rx);
    }
    s.relieved.push((body.number, returned));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A body that runs past two ticks is relieved: `take_over` is asked for a reader of the
    /// next generation, and the thread that ran it no longer reads. A short one is not.
    #[test]
    fn a_long_body_is_relieved_and_a_short_one_is_not() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
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
        assert!(post.lock().relieved.is_empty(), "the relieved body returned");
    }

    /// A relieved body's rescue learns when the body returns.
    #[test]
    fn a_rescue_is_told_when_its_relieved_body_returns() {
        struct Told(Mutex<Option<oneshot::Receiver<()>>>);
        impl Rescue for Told {
            fn relieved(&self, _started: Instant, returned: oneshot::Receiver<()>) {
                *self.0.lock().unwrap() = Some(returned);
            }
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
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
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let post = Post::new(runtime.handle().clone(), |_, _| Ok(()));
        read_for(&post, 0);
        let r = run_here(|| panic!("in place"));
        assert!(r.is_ok_and(|r| r.is_err()));
        let s = post.lock();
        assert!(s.body.is_none() && s.relieved.is_empty());
        drop(s);
        // Printing the panic may take long enough for a relief: read as whoever reads now.
        read_for(&post, post.generation.load(Ordering::Acquire));
        assert!(run_here(|| 3).is_ok());
    }
}
