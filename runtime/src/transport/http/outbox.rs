//! What a session sends for one POST, on its way to the HTTP answer, with a bound on what it
//! holds unwritten.
//!
//! The engine's sink cannot wait, so a client that stops reading its SSE stream would
//! otherwise have every progress notification a tool sends queued for it. Past
//! `max_backlog` bytes held, notifications are dropped (and the drop logged once per
//! stream); responses are always queued, so the request is still answered.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::sync::mpsc;

use crate::protocol::{Outbound, OutboundKind};
use crate::server::Sink;

/// One message on its way to the connection, with its place in its stream (`seq`, from 1;
/// 0 for a stream whose events carry no id).
pub(super) struct Queued {
    pub(super) seq: u64,
    pub(super) message: Outbound,
}

/// The receiving end: messages in order, with the bytes they held released as they leave.
pub(super) struct Outbox {
    rx: mpsc::UnboundedReceiver<Queued>,
    held: Arc<AtomicUsize>,
}

impl Outbox {
    /// The next message; `None` once the session has dropped its sink and all is read.
    #[cfg(test)]
    pub(super) async fn recv(&mut self) -> Option<Outbound> {
        self.next().await.map(|q| q.message)
    }

    /// The next message with its place in the stream.
    pub(super) async fn next(&mut self) -> Option<Queued> {
        let queued = self.rx.recv().await?;
        self.held.fetch_sub(queued.message.as_str().len(), Ordering::AcqRel);
        Some(queued)
    }

    /// Bytes queued and not yet taken.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }
}

/// The sending end of an [`Outbox`], holding at most `max_backlog` bytes of notifications.
pub(super) struct Feed {
    tx: mpsc::UnboundedSender<Queued>,
    held: Arc<AtomicUsize>,
    warned: AtomicBool,
    max_backlog: usize,
}

impl Feed {
    /// Queue `message` as event `seq`: dropped if it is a notification and the backlog is
    /// full, or if the reading end is gone.
    pub(super) fn push(&self, seq: u64, message: Outbound) {
        let len = message.as_str().len();
        if message.kind() != OutboundKind::Response
            && self.held.load(Ordering::Acquire) + len > self.max_backlog
        {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    max_backlog = self.max_backlog,
                    "the client is not reading its SSE stream; dropping notifications until it does"
                );
            }
            return;
        }
        self.held.fetch_add(len, Ordering::AcqRel);
        let _ = self.tx.send(Queued { seq, message });
    }
}

/// A feed and its outbox, holding at most `max_backlog` bytes of notifications.
pub(super) fn channel(max_backlog: usize) -> (Feed, Outbox) {
    let (tx, rx) = mpsc::unbounded_channel::<Queued>();
    let held = Arc::new(AtomicUsize::new(0));
    let feed = Feed { tx, held: held.clone(), warned: AtomicBool::new(false), max_backlog };
    (feed, Outbox { rx, held })
}

/// A sink for one POST and its outbox, holding at most `max_backlog` bytes of notifications
/// (a stream that is not resumable: its events carry no id).
pub(super) fn outbox(max_backlog: usize) -> (Arc<dyn Sink>, Outbox) {
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
}
