//! The first of two futures to finish, polled in order.
//!
//! What the crate used `tokio::select!` for: wait on a call's body or the host's
//! cancellation, on a connection or its idle timer, on stdin or stdout. [`first`] polls `a`
//! then `b` on every wake-up and returns the first output (`biased`, in `select!`'s terms:
//! `a` wins a tie, and the order is written where it matters, e.g. cancellation before the
//! body it cancels). The future not finished is dropped with the race, as `select!` drops
//! its other branches.
//!
//! Polled in order, `b` is not polled at all when `a` is ready: in a loop whose `a` is
//! always ready (an accept loop under a flood of connections) `b` would starve. What must be
//! noticed, a shutdown or a cancellation, goes first.
//!
//! One small future instead of tokio's `macros` feature, which costs every user's clean
//! build the `tokio-macros` proc-macro crate (about 0.5 s of CPU), and each `select!` its
//! expansion and a random starting branch (bench/findings.md, "clean dev build").
//!
//! [`First`] is a struct, not an `async fn`: an `async fn` that pins its arguments holds
//! each of them twice in its state (the argument, and the pinned local it is moved into),
//! and a call's body raced against its cancellation made the call's task too big for the
//! allocator's per-thread cache (one `malloc` slow path a call; findings, session 29).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Which of the two futures of [`first`] finished, with its output.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Either<A, B> {
    /// The first future finished first (or both were ready: `a` wins a tie).
    Left(A),
    /// The second future finished first.
    Right(B),
}

pin_project_lite::pin_project! {
    /// The future [`first`] returns: `a` and `b`, side by side.
    #[must_use = "futures do nothing unless awaited"]
    pub(crate) struct First<A, B> {
        #[pin]
        a: A,
        #[pin]
        b: B,
    }
}

/// Wait for `a` or `b`, whichever finishes first; `a` is polled first on every wake-up.
pub(crate) fn first<A: Future, B: Future>(a: A, b: B) -> First<A, B> {
    First { a, b }
}

impl<A: Future, B: Future> Future for First<A, B> {
    type Output = Either<A::Output, B::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(out) = this.a.poll(cx) {
            return Poll::Ready(Either::Left(out));
        }
        if let Poll::Ready(out) = this.b.poll(cx) {
            return Poll::Ready(Either::Right(out));
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::{pending, ready};
    use std::time::Duration;

    #[tokio::test]
    async fn the_first_to_finish_wins_and_a_wins_a_tie() {
        assert_eq!(first(ready(1), ready("b")).await, Either::Left(1));
        assert_eq!(first(pending::<u8>(), ready("b")).await, Either::Right("b"));
        let slow = tokio::time::sleep(Duration::from_millis(200));
        let quick = tokio::time::sleep(Duration::from_millis(1));
        assert_eq!(first(slow, quick).await, Either::Right(()));
    }

    #[test]
    fn the_race_is_as_big_as_its_two_futures() {
        let (a, b) = ([0u8; 512], [0u8; 256]);
        let race = first(async move { a[0] }, async move { b[0] });
        // Each `async move` block holds its array (and a state byte); the race adds nothing
        // for them (it held each twice as an `async fn`).
        assert!(std::mem::size_of_val(&race) < 512 + 256 + 16, "{}", std::mem::size_of_val(&race));
    }

    #[tokio::test]
    async fn the_loser_is_dropped_with_the_race() {
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        let holds_tx = async move {
            let _tx = tx;
            pending::<()>().await
        };
        assert_eq!(first(ready(()), holds_tx).await, Either::Left(()));
        // The losing branch (and the sender it held) is gone: the receiver sees it closed.
        assert_eq!(rx.try_recv(), Err(tokio::sync::oneshot::error::TryRecvError::Closed));
    }
}
