//! Carry: what a request's watch makes current (a tracing span, a telemetry context: an
//! interceptor's `Watch::enter`, in `server`) taken to the thread that runs its body, when that
//! is not the thread polling the call.
//!
//! The request path enters the watch around each poll of the call, on the polling thread, and
//! [`lend`]s it there for the poll. A body that runs in that poll (an async body, a sync body
//! run in place) needs nothing more. A body handed to another thread (a sync body sent to a
//! sync worker or the blocking pool, a `#[tool(local)]` body on a local thread) [`take`]s
//! the lent watch along (a handle, not a borrow: the body may outlive the call's poll, and
//! its call) and [`enter`]s it there: around the whole sync body, and around each poll of a
//! local body, on the thread that runs it, since what `enter` makes current is that thread's
//! (its guard is not `Send`).
//!
//! Nothing is lent, and nothing taken, where no interceptor watches: a body handed over then
//! carries an empty `Option` and enters nothing.

use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;

/// A request's watch, as the threads that run its body enter it.
pub(crate) trait Enter: Send + Sync + 'static {
    /// Make the watch's context current on this thread until the returned guard is dropped
    /// (on this thread); `None` when it has nothing to make current (any more).
    fn enter(&self) -> Option<Box<dyn Any>>;
}

/// A watch taken along to another thread (see [`take`]).
pub(crate) type Carried = Option<Arc<dyn Enter>>;

thread_local! {
    /// The watch of the call being polled on this thread (see [`lend`]).
    static LENT: RefCell<Carried> = const { RefCell::new(None) };
}

/// Lend `watch` to the bodies this thread hands to other threads while the guard lives.
/// Lend it for each poll of the call, and drop the guard before the poll returns: past it,
/// the future may move to another thread. A lend inside another's poll (a nested call) is
/// undone to the outer one.
pub(crate) fn lend(watch: Arc<dyn Enter>) -> Lent {
    Lent(LENT.with(|l| l.replace(Some(watch))))
}

/// Ends a [`lend`] when dropped: the watch lent before it is lent again.
pub(crate) struct Lent(Carried);

impl Drop for Lent {
    fn drop(&mut self) {
        let before = self.0.take();
        LENT.with(|l| *l.borrow_mut() = before);
    }
}

/// The watch lent on this thread now, to take to the thread that will run a body.
pub(crate) fn take() -> Carried {
    LENT.with(|l| l.borrow().clone())
}

/// Enter `carried` here, on the thread that runs the body, while the guard lives.
pub(crate) fn enter(carried: &Carried) -> Option<Box<dyn Any>> {
    carried.as_ref().and_then(|watch| watch.enter())
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    thread_local! {
        static CURRENT: Cell<&'static str> = const { Cell::new("nothing") };
    }

    /// Makes its name current, and "nothing" again when the guard drops.
    struct Named(&'static str);

    impl Enter for Named {
        fn enter(&self) -> Option<Box<dyn Any>> {
            struct Reset(&'static str);
            impl Drop for Reset {
                fn drop(&mut self) {
                    CURRENT.with(|c| c.set(self.0));
                }
            }
            let before = CURRENT.with(|c| c.replace(self.0));
            Some(Box::new(Reset(before)))
        }
    }

    #[test]
    fn a_lent_watch_is_taken_to_another_thread_and_entered_there_only() {
        assert!(take().is_none(), "nothing lent");
        let outer = lend(Arc::new(Named("outer")));
        {
            let _inner = lend(Arc::new(Named("inner")));
            let carried = take();
            let seen = std::thread::spawn(move || {
                let before = CURRENT.with(Cell::get);
                let entered = enter(&carried);
                let during = CURRENT.with(Cell::get);
                drop(entered);
                (before, during, CURRENT.with(Cell::get))
            })
            .join()
            .unwrap();
            assert_eq!(seen, ("nothing", "inner", "nothing"));
        }
        // The nested lend is undone to the outer one, and the lending thread entered nothing.
        let carried = take();
        assert_eq!(CURRENT.with(Cell::get), "nothing");
        let entered = enter(&carried);
        assert_eq!(CURRENT.with(Cell::get), "outer");
        drop(entered);
        drop(outer);
        assert!(take().is_none(), "withdrawn with its guard");
        assert!(enter(&None).is_none());
    }
}
