//! What a session sends for one POST, on its way to the HTTP answer, with a bound on what it
//! holds unwritten.
//!
//! The engine's sink cannot wait, so a client that stops reading its SSE stream would
//! otherwise have every progress notification a tool sends queued for it. Past
//! `max_backlog` bytes held, notifications are dropped (and the drop logged once per
//! stream); responses are always queued, so the request is still answered.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::protocol::{Outbound, OutboundKind};
use crate::server::Sink;
use crate::sync::lock;

/// One message on its way to the connection, with its place in its stream (`seq`, from 1;
/// 0 for a stream whose events carry no id).
pub(crate) struct Queued {
    pub(super) seq: u64,
    pub(crate) message: Outbound,
}

/// What a feed and its outbox share: a queue behind a lock, with the reader's waker. One
/// writer ([`Feed`], which the session's sink owns) and one reader ([`Outbox`]), and most
/// POSTs carry one message, so a lock is all it takes; tokio's unbounded channel, which this
/// replaces, allocated a block of 32 slots for every POST.
struct Shared {
    state: Mutex<State>,
}

struct State {
    /// The oldest message, when the queue behind it was empty as it came: most POSTs carry
    /// one message, which then takes no allocation of the queue's (a malloc and a free a
    /// request).
    first: Option<Queued>,
    /// The messages after `first`, in order.
    queue: VecDeque<Queued>,
    /// Bytes of the queued messages.
    held: usize,
    /// The feed is gone: once the queue is read, the outbox ends.
    feed_gone: bool,
    /// The outbox is gone: messages are dropped, not queued.
    outbox_gone: bool,
    /// The reader waiting for the next message.
    waiting: Option<Waker>,
    /// A notification was dropped for the backlog (the warning is logged once per stream).
    warned: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing here panics while holding the lock; a poisoned one is taken over anyway.
        lock(&self.state)
    }
}

/// The receiving end: messages in order, with the bytes they held released as they leave.
pub(crate) struct Outbox {
    shared: Arc<Shared>,
}

impl Outbox {
    /// The next message; `None` once the session has dropped its sink and all is read.
    #[cfg(test)]
    pub(super) async fn recv(&mut self) -> Option<Outbound> {
        self.next().await.map(|q| q.message)
    }

    /// The next message with its place in the stream. Cancel-safe: a message is taken only
    /// when it is returned.
    pub(crate) async fn next(&mut self) -> Option<Queued> {
        poll_fn(|cx| self.poll_next(cx)).await
    }

    fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Option<Queued>> {
        let mut s = self.shared.lock();
        if let Some(queued) = s.first.take().or_else(|| s.queue.pop_front()) {
            s.held -= queued.message.as_str().len();
            return Poll::Ready(Some(queued));
        }
        if s.feed_gone {
            return Poll::Ready(None);
        }
        match &mut s.waiting {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Bytes queued and not yet taken.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.shared.lock().held
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        let mut s = self.shared.lock();
        s.outbox_gone = true;
        s.held = 0;
        // Dropped after the lock is released: a message's drop runs no code of ours, but
        // the queue may be long.
        let queued = (s.first.take(), std::mem::take(&mut s.queue));
        drop(s);
        drop(queued);
    }
}

/// The sending end of an [`Outbox`], holding at most `max_backlog` bytes of notifications.
/// Dropping it ends the outbox once what is queued has been read.
pub(crate) struct Feed {
    shared: Arc<Shared>,
    max_backlog: usize,
}

impl Feed {
    /// Queue `message` as event `seq`: dropped if it is a notification and the backlog is
    /// full, or if the reading end is gone.
    pub(super) fn push(&self, seq: u64, message: Outbound) {
        let len = message.as_str().len();
        let mut s = self.shared.lock();
        if s.outbox_gone {
            return;
        }
        if message.kind() != OutboundKind::Response && s.held + len > self.max_backlog {
            let warn = !std::mem::replace(&mut s.warned, true);
            drop(s);
            if warn {
                tracing::warn!(
                    max_backlog = self.max_backlog,
                    "the client is not reading its SSE stream; dropping notifications until it does"
                );
            }
            return;
        }
        s.held += len;
        let queued = Queued { seq, message };
        if s.first.is_none() && s.queue.is_empty() {
            s.first = Some(queued);
        } else {
            s.queue.push_back(queued);
        }
        let waiting = s.waiting.take();
        drop(s);
        if let Some(waker) = waiting {
            waker.wake();
        }
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        let mut s = self.shared.lock();
        s.feed_gone = true;
        let waiting = s.waiting.take();
        drop(s);
        if let Some(waker) = waiting {
            waker.wake();
        }
    }
}

/// A feed and its outbox, holding at most `max_backlog` bytes of notifications.
pub(crate) fn channel(max_backlog: usize) -> (Feed, Outbox) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            first: None,
            queue: VecDeque::new(),
            held: 0,
            feed_gone: false,
            outbox_gone: false,
            waiting: None,
            warned: false,
        }),
    });
    (Feed { shared: Arc::clone(&shared), max_backlog }, Outbox { shared })
}

/// A sink for one POST and its outbox, holding at most `max_backlog` bytes of notifications
/// (a stream that is not resumable: its events carry no id).
pub(crate) fn outbox(max_backlog: usize) -> (Arc<dyn Sink>, Outbox) {
    let (feed, rx) = channel(max_backlog);
    let sink: Arc<dyn Sink> = Arc::new(move |m: Outbound| feed.push(0, m));
    (sink, rx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::RequestId;

    #[tokio::test]
    async fn a_reader_that_stalls_holds_at_most_the_backlog_and_still_gets_the_response() {
        let (sink, mut outbox) = outbox(64 * 1024);
        let params = format!("{{\"progressToken\":1,\"progress\":1,\"message\":\"{}\"}}", "x".repeat(1000));
        for _ in 0..10_000 {
            sink.send(Outbound::notification("notifications/progress", &params));
        }
        assert!(outbox.held() <= 64 * 1024, "{} bytes held", outbox.held());
        let id = RequestId::from_raw(serde_json::from_str("7").unwrap()).unwrap();
        sink.send(Outbound::result(&id, "{}"));
        drop(sink);
        let mut last = None;
        let mut notifications = 0;
        while let Some(m) = outbox.recv().await {
            notifications += usize::from(m.kind() != OutboundKind::Response);
            last = Some(m);
        }
        assert!(notifications > 0 && notifications < 10_000, "{notifications}");
        assert_eq!(last.unwrap().kind(), OutboundKind::Response);
        assert_eq!(outbox.held(), 0);
    }

    fn response(n: i64) -> Outbound {
        Outbound::result(&RequestId::Number(n), "{}")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiting_reader_is_woken_and_reads_in_order_until_the_feed_is_gone() {
        let (feed, mut outbox) = channel(1024);
        let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            while let Some(q) = outbox.next().await {
                let _ = seen_tx.send((q.seq, q.message.into_string()));
            }
        });
        let five = std::time::Duration::from_secs(5);
        // The reader is waiting when each message arrives, and is woken for it (the feed
        // lives on, so no end of the outbox wakes it instead).
        for n in 1..=3 {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            feed.push(n as u64, response(n));
            let got = tokio::time::timeout(five, seen.recv()).await;
            assert_eq!(got.unwrap(), Some((n as u64, response(n).into_string())));
        }
        feed.push(4, response(4));
        feed.push(5, response(5));
        drop(feed);
        for n in [4, 5] {
            assert_eq!(tokio::time::timeout(five, seen.recv()).await.unwrap().map(|q| q.0), Some(n));
        }
        tokio::time::timeout(five, reader).await.unwrap().unwrap();
        assert_eq!(seen.recv().await, None, "the outbox ended with the feed");
    }

    /// Messages leave in the order they came, however reads and pushes interleave (the
    /// first one waits in a slot of its own, the rest in the queue behind it).
    #[tokio::test]
    async fn messages_leave_in_the_order_they_came() {
        let (feed, mut outbox) = channel(1 << 20);
        let mut read = Vec::new();
        let mut next = 1..;
        for (pushes, reads) in [(3, 1), (1, 2), (2, 0), (1, 4), (1, 1)] {
            for _ in 0..pushes {
                let n = next.next().unwrap();
                feed.push(n, response(n as i64));
            }
            for _ in 0..reads {
                read.push(outbox.next().await.unwrap().seq);
            }
        }
        drop(feed);
        assert_eq!(read, (1..=8).collect::<Vec<u64>>());
        assert!(outbox.next().await.is_none());
        assert_eq!(outbox.held(), 0);
    }

    #[tokio::test]
    async fn a_read_given_up_takes_nothing_and_a_gone_reader_queues_nothing() {
        let (feed, mut outbox) = channel(1024);
        // A read abandoned while waiting (as a race drops its loser) loses nothing.
        let waited = tokio::time::timeout(std::time::Duration::from_millis(10), outbox.next()).await;
        assert!(waited.is_err());
        feed.push(1, response(1));
        assert_eq!(outbox.next().await.map(|q| q.seq), Some(1));
        // Once the reader is gone, what is pushed is dropped, not held.
        let shared = Arc::clone(&feed.shared);
        drop(outbox);
        for n in 0..100 {
            feed.push(n, response(n as i64));
        }
        assert!(shared.lock().first.is_none());
        assert_eq!(shared.lock().queue.len(), 0);
        assert_eq!(shared.lock().held, 0);
    }
}
