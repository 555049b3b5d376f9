//! The first of two futures to finish, polled in order.
//!
//! What the crate used `tokio::select!` for: wait on a call's body or the host's
//! cancellation, on a connection or its idle timer, on stdin or stdout. [`first`] polls `a`
//! then `b` on every wake-up and returns the first output (`biased`, in `select!`'s terms:
//! `a` wins a tie, and the order is written where it matters, e.g. cancellation before the
//! body it cancels). The future not finished is dropped with the race, as `select!` drops
//! its other branches.
//!
//! One generic `async fn` instead of tokio's `macros` feature, which costs every user's
//! clean build the `tokio-macros` proc-macro crate (about 0.5 s of CPU), and each `select!`
//! its expansion and a random starting branch (bench/findings.md, "clean dev build").

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

/// Which of the two futures of [`first`] finished, with its output.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Either<A, B> {
    /// The first future finished first (or both were ready: `a` wins a tie).
    Left(A),
    /// The second future finished first.
    Right(B),
}

/// Wait for `a` or `b`, whichever finishes first; `a` is polled first on every wake-up.
pub(crate) async fn first<A: Future, B: Future>(a: A, b: B) -> Either<A::Output, B::Output> {
    let (mut a, mut b) = (pin!(a), pin!(b));
    poll_fn(|cx| {
        if let Poll::Ready(out) = a.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(out));
        }
        if let Poll::Ready(out) = b.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(out));
        }
        Poll::Pending
    })
    .await
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
