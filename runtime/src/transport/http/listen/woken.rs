//! [`OnWake`]: a future polled only when its own waker has fired.
//!
//! A connection's task races the connection against three rarely-ready futures (its close,
//! the drain, its timer; `race::first`, nested). The race polls each of them whenever the
//! task wakes and the connection is not done, and the task wakes for every request; polling
//! a cancellation token's future takes two locks. Wrapped in `OnWake`, those futures are
//! polled on their first poll and after their own wake-ups only: about 1,000 instructions a request that arrives in two writes (two
//! wake-ups), a few hundred for one in a single write (findings.md).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

pin_project_lite::pin_project! {
    /// `inner`, polled on the first poll and then only after it has woken its waker.
    pub(super) struct OnWake<F> {
        #[pin]
        inner: F,
        flag: Arc<Flag>,
    }
}

/// The waker `inner` is polled with: it notes the wake-up and wakes the task.
struct Flag {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<F> OnWake<F> {
    pub(super) fn new(inner: F) -> OnWake<F> {
        OnWake { inner, flag: Arc::new(Flag { woken: AtomicBool::new(true), task: AtomicWaker::new() }) }
    }
}

impl<F: Future> Future for OnWake<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        // Registered before the flag is read: a wake-up between the two still finds the
        // task's current waker.
        this.flag.task.register(cx.waker());
        if !this.flag.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let waker = Waker::from(Arc::clone(this.flag));
        this.inner.poll(&mut Context::from_waker(&waker))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Ready once its waker has been woken from outside; counts its polls.
    struct Counted {
        polls: Arc<AtomicUsize>,
        ready: Arc<AtomicBool>,
        waker: Arc<std::sync::Mutex<Option<Waker>>>,
    }

    impl Future for Counted {
        type Output = ();
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            if self.ready.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            *self.waker.lock().unwrap() = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn the_inner_future_is_polled_first_and_then_only_when_it_woke() {
        let polls = Arc::new(AtomicUsize::new(0));
        let ready = Arc::new(AtomicBool::new(false));
        let waker = Arc::new(std::sync::Mutex::new(None::<Waker>));
        let inner = Counted { polls: polls.clone(), ready: ready.clone(), waker: waker.clone() };
        let mut on_wake = std::pin::pin!(OnWake::new(inner));
        let task_woken = Arc::new(AtomicUsize::new(0));
        struct Task(Arc<AtomicUsize>);
        impl Wake for Task {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let task = Waker::from(Arc::new(Task(task_woken.clone())));
        let mut cx = Context::from_waker(&task);
        // First poll: polled. Woken for something else (the task polls again): not polled.
        assert!(on_wake.as_mut().poll(&mut cx).is_pending());
        for _ in 0..5 {
            assert!(on_wake.as_mut().poll(&mut cx).is_pending());
        }
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        // It becomes ready and wakes: the task is woken, and the next poll polls it.
        ready.store(true, Ordering::SeqCst);
        waker.lock().unwrap().take().unwrap().wake();
        assert_eq!(task_woken.load(Ordering::SeqCst), 1);
        assert!(on_wake.as_mut().poll(&mut cx).is_ready());
        assert_eq!(polls.load(Ordering::SeqCst), 2);
    }
}
