//! Who wants which notifications sent outside any call: the server-wide table that
//! [`Server::notify_resource_updated`](crate::server::Server::notify_resource_updated) and a live
//! registry's changes fan out over.
//!
//! A [`Subscriber`] is one channel's wish list: a legacy session's (sent on the session's
//! out-of-call channel: stdout, or an HTTP session's GET stream), which takes every
//! `notifications/*/list_changed` once the session is initialized, and the URIs it sent
//! `resources/subscribe` for; or one 2026-07-28 `subscriptions/listen` (sent on that
//! request's own stream, each carrying its subscription id), which takes the list changes
//! and URIs its filter named. The table holds them weakly: a subscriber ends with the
//! session or the request that owns it.
//!
//! A legacy HTTP session whose state a shared session store keeps (several replicas) may
//! have its state changed on another replica while this one holds its GET stream: its URIs
//! (a `resources/subscribe` served there), and whether it is initialized (a GET stream that
//! opened here before `notifications/initialized` reached another replica re-made the
//! session from a state that was not initialized yet, and no later request need come here
//! to say otherwise). Such a subscriber carries a [`Recheck`] (the transport's), and what it
//! sends depends on a read of the store made for the delivery:
//!
//! - before an update is sent on it, the subscriptions are read again, and the update goes
//!   out only if they name the URI;
//! - a list change finds it either ready (sent at once, no read: once initialized, a
//!   session stays so) or not: then the state is read again, and the change goes out if the
//!   store says the session is initialized (from then on it is ready here too).
//!
//! The subscriber's own set (what the last request here read or changed) is not overwritten
//! by that read, so a subscribe served here meanwhile is never undone. A session that never
//! sends `notifications/initialized` costs one store read per list change while its stream
//! is open here, and is sent nothing.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tokio_util::sync::CancellationToken;

use crate::json::json_string;
use crate::protocol::Outbound;
use crate::protocol::methods;
use crate::sync::lock;

use crate::server::dispatch::sink::Sink;

/// A list whose changes are notified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    /// Resources and templates: both are announced by `notifications/resources/list_changed`.
    Resources,
    Prompts,
}

impl ListKind {
    /// The notification that announces a change.
    pub(crate) fn method(self) -> &'static str {
        match self {
            ListKind::Tools => methods::NOTIFICATIONS_TOOLS_LIST_CHANGED,
            ListKind::Resources => methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED,
            ListKind::Prompts => methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED,
        }
    }

    fn bit(self) -> u8 {
        match self {
            ListKind::Tools => 1,
            ListKind::Resources => 2,
            ListKind::Prompts => 4,
        }
    }
}

/// Which lists' changes a subscriber takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ListFlags(u8);

impl ListFlags {
    /// Every list.
    pub(crate) const ALL: ListFlags = ListFlags(7);

    /// These flags and `kind`.
    pub(crate) fn with(self, kind: ListKind) -> ListFlags {
        ListFlags(self.0 | kind.bit())
    }

    /// Whether `kind` is among them.
    pub(crate) fn has(self, kind: ListKind) -> bool {
        self.0 & kind.bit() != 0
    }
}

/// What a re-read of a subscriber's subscriptions found ([`Recheck`]).
#[derive(Debug, Clone, PartialEq, Eq)]
// Only the HTTP transport (a shared session store) makes these.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) enum Reread {
    /// What is kept now: the URIs subscribed to, and whether `notifications/initialized`
    /// arrived (on whichever replica).
    Now {
        /// The URIs subscribed to.
        uris: BTreeSet<String>,
        /// Whether the session is initialized.
        initialized: bool,
    },
    /// The session is gone from where it was kept: send nothing.
    Gone,
    /// It could not be read (the store is down): go by what this replica last knew.
    Unknown,
}

/// Where a subscriber's state is read again before a notification is sent on it: a legacy
/// HTTP session kept in a shared session store, whose `resources/subscribe` or
/// `notifications/initialized` may have landed on another replica. Implemented by the
/// transport.
pub(crate) trait Recheck: Send + Sync {
    /// Read the state again and hand what was found to `then`, later (off the caller's
    /// thread); or return `false` at once when no read is needed (the session's stream is
    /// not open here), and the subscriber goes by what it holds.
    fn recheck(&self, then: Box<dyn FnOnce(Reread) + Send>) -> bool;
}

/// One channel's subscriptions.
pub(crate) struct Subscriber {
    sink: Arc<dyn Sink>,
    /// The `subscriptions/listen` request id (raw JSON), for a modern subscriber.
    listen_id: Option<String>,
    uris: Mutex<BTreeSet<String>>,
    /// The lists whose changes it takes.
    lists: ListFlags,
    /// Whether list changes may be sent yet (a legacy session: once initialized).
    ready: AtomicBool,
    /// Where its subscriptions are read again before an update (a roaming session's).
    recheck: OnceLock<Arc<dyn Recheck>>,
    /// Where its notifications stand against its acknowledgment (a legacy subscriber has
    /// none: [`Gate::Open`] from the start).
    gate: Mutex<Gate>,
}

/// A modern subscriber's notifications, against its `notifications/subscriptions/acknowledged`.
enum Gate {
    /// Not acknowledged yet: a change now is not owed to the client, which has not been
    /// told it is listening; its notification is dropped.
    Before,
    /// The acknowledgment is being sent: notifications wait here and follow it.
    Acknowledging(Vec<Outbound>),
    /// Sent as they come.
    Open,
}

impl Subscriber {
    /// Whether it sends on `sink` (the very one, not an equal one).
    pub(crate) fn sends_to(&self, sink: &Arc<dyn Sink>) -> bool {
        Arc::ptr_eq(&self.sink, sink)
    }

    /// A subscriber sending on `sink`; `listen_id` for a modern `subscriptions/listen`. It
    /// takes the list changes in `lists`, once [`ready`](Self::ready) when `ready` is false.
    pub(crate) fn new(
        sink: Arc<dyn Sink>,
        listen_id: Option<String>,
        lists: ListFlags,
        ready: bool,
    ) -> Arc<Subscriber> {
        Arc::new(Subscriber {
            sink,
            uris: Mutex::new(BTreeSet::new()),
            lists,
            ready: AtomicBool::new(ready),
            recheck: OnceLock::new(),
            gate: Mutex::new(if listen_id.is_none() { Gate::Open } else { Gate::Before }),
            listen_id,
        })
    }

    /// From now on, read the subscriptions again through `recheck` before each update
    /// (set once; a later call is ignored).
    #[cfg(feature = "http")]
    pub(crate) fn recheck_with(&self, recheck: Arc<dyn Recheck>) {
        let _ = self.recheck.set(recheck);
    }

    /// The URIs it is subscribed to.
    #[cfg(feature = "http")]
    pub(crate) fn uris(&self) -> BTreeSet<String> {
        lock(&self.uris).clone()
    }

    /// Take `uris` as the URIs it is subscribed to (another replica changed them).
    #[cfg(feature = "http")]
    pub(crate) fn set_uris(&self, uris: &BTreeSet<String>) {
        let mut held = lock(&self.uris);
        if *held != *uris {
            held.clone_from(uris);
        }
    }

    /// From now on, list changes are sent (a legacy session got `notifications/initialized`).
    pub(crate) fn ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Add `uri`; whether it was new.
    pub(crate) fn subscribe(&self, uri: &str) -> bool {
        lock(&self.uris).insert(uri.to_owned())
    }

    /// Remove `uri`; whether it was there.
    pub(crate) fn unsubscribe(&self, uri: &str) -> bool {
        lock(&self.uris).remove(uri)
    }

    fn wants(&self, uri: &str) -> bool {
        lock(&self.uris).contains(uri)
    }

    /// Send a modern listen's `notifications/subscriptions/acknowledged` (`members`: its
    /// params' members), then let its notifications through.
    ///
    /// Call it once the subscriber is tracked ([`Subscriptions::add`]). A change from then
    /// on is either before the acknowledgment (its notification is dropped: the client has
    /// not been told it is listening) or waits for it and follows it, so the acknowledgment
    /// is the first message and no change after it goes unannounced. (Acknowledging first
    /// and tracking after left a window in which a change was announced to no one.)
    pub(crate) fn acknowledge(&self, members: &str) {
        *self.gate() = Gate::Acknowledging(Vec::new());
        // No lock is held while a sink sends: a sink may do anything, even announce a change.
        self.sink.send(self.message(methods::NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED, members));
        let held = match std::mem::replace(&mut *self.gate(), Gate::Open) {
            Gate::Acknowledging(held) => held,
            Gate::Before | Gate::Open => Vec::new(),
        };
        for message in held {
            self.sink.send(message);
        }
    }

    /// Send `method` with `members` (JSON object members, without braces), adding the
    /// subscription id for a modern subscriber; whether it was sent (or will be, right after
    /// the acknowledgment being sent). Nothing before a modern subscriber's acknowledgment.
    pub(crate) fn send(&self, method: &str, members: &str) -> bool {
        let mut gate = self.gate();
        match &mut *gate {
            // Not owed: nothing is written, not even the message.
            Gate::Before => return false,
            Gate::Acknowledging(held) => {
                held.push(self.message(method, members));
                return true;
            }
            Gate::Open => {}
        }
        drop(gate);
        self.sink.send(self.message(method, members));
        true
    }

    fn gate(&self) -> std::sync::MutexGuard<'_, Gate> {
        lock(&self.gate)
    }

    fn message(&self, method: &str, members: &str) -> Outbound {
        let params = match &self.listen_id {
            None => format!("{{{members}}}"),
            Some(id) => {
                let sep = if members.is_empty() { "" } else { "," };
                format!("{{\"_meta\":{{\"io.modelcontextprotocol/subscriptionId\":{id}}}{sep}{members}}}")
            }
        };
        Outbound::notification(method, &params)
    }
}

/// Every live subscriber of a server.
#[derive(Default)]
pub(crate) struct Subscriptions {
    live: Mutex<Vec<Weak<Subscriber>>>,
    /// Cancelled when the server ends every `subscriptions/listen` (a replica's drain).
    listens_end: CancellationToken,
}

impl Subscriptions {
    /// End every `subscriptions/listen`, open now or opened later, gracefully: each is
    /// answered with its completion result (the spec's "graceful closure"), so its stream
    /// ends and the client knows to listen again, elsewhere.
    pub(crate) fn end_listens(&self) {
        self.listens_end.cancel();
    }

    /// Resolves once [`end_listens`](Self::end_listens) was called.
    pub(crate) async fn listens_ended(&self) {
        self.listens_end.cancelled().await;
    }

    /// Track `subscriber` until it is dropped.
    pub(crate) fn add(&self, subscriber: &Arc<Subscriber>) {
        let mut live = lock(&self.live);
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(subscriber));
    }

    /// Send `notifications/resources/updated` for `uri` to every subscriber that wants it;
    /// how many were sent now. A subscriber with a [`Recheck`] is sent to once its
    /// subscriptions are read again (if they name `uri`), and is not counted.
    pub(crate) fn updated(&self, uri: &str) -> usize {
        let targets: Vec<Arc<Subscriber>> = {
            let mut live = lock(&self.live);
            live.retain(|w| w.strong_count() > 0);
            live.iter()
                .filter_map(Weak::upgrade)
                .filter(|s| s.recheck.get().is_some() || s.wants(uri))
                .collect()
        };
        let members: Arc<str> = format!("\"uri\":{}", json_string(uri)).into();
        let mut sent = 0;
        for s in targets {
            if let Some(recheck) = s.recheck.get() {
                let (subscriber, uri, members) = (Arc::clone(&s), uri.to_owned(), Arc::clone(&members));
                let then = Box::new(move |found: Reread| {
                    let wants = match found {
                        Reread::Now { uris, initialized } => {
                            if initialized {
                                subscriber.ready();
                            }
                            uris.contains(&uri)
                        }
                        Reread::Gone => false,
                        Reread::Unknown => subscriber.wants(&uri),
                    };
                    if wants {
                        subscriber.send(methods::NOTIFICATIONS_RESOURCES_UPDATED, &members);
                    }
                });
                if recheck.recheck(then) {
                    continue;
                }
            }
            if s.wants(uri) && s.send(methods::NOTIFICATIONS_RESOURCES_UPDATED, &members) {
                sent += 1;
            }
        }
        sent
    }

    /// Send `kind`'s `list_changed` notification to every subscriber that takes it; how many
    /// were sent now. A subscriber not ready yet that has a [`Recheck`] is sent to once its
    /// state is read again (if it says the session is initialized), and is not counted.
    pub(crate) fn list_changed(&self, kind: ListKind) -> usize {
        let targets: Vec<Arc<Subscriber>> = {
            let mut live = lock(&self.live);
            live.retain(|w| w.strong_count() > 0);
            live.iter()
                .filter_map(Weak::upgrade)
                .filter(|s| s.lists.has(kind) && (s.is_ready() || s.recheck.get().is_some()))
                .collect()
        };
        let mut sent = 0;
        for s in targets {
            if s.is_ready() {
                sent += usize::from(s.send(kind.method(), ""));
                continue;
            }
            // Not initialized as far as this replica knows: the store may know better.
            let Some(recheck) = s.recheck.get() else { continue };
            let subscriber = Arc::clone(&s);
            let then = Box::new(move |found: Reread| {
                if let Reread::Now { initialized: true, .. } = found {
                    subscriber.ready();
                    subscriber.send(kind.method(), "");
                }
            });
            // `false`: its stream is not open here, so there is nothing to send on.
            recheck.recheck(then);
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A modern subscriber on a sink that records what it is sent, and runs `on_ack` (with
    /// the subscriptions) when the acknowledgment passes through it. The acknowledgment is
    /// recorded when its send is done, as a slow write lands: anything sent meanwhile (a
    /// change announced while it is being written) is recorded before it, as it would reach
    /// the wire before it.
    fn listening(
        on_ack: impl Fn(&Subscriptions) + Send + Sync + 'static,
    ) -> (Arc<Subscriptions>, Arc<Subscriber>, Arc<Mutex<Vec<String>>>) {
        let subscriptions = Arc::new(Subscriptions::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (subs, record) = (Arc::downgrade(&subscriptions), Arc::clone(&seen));
        let sink: Arc<dyn Sink> = Arc::new(move |m: Outbound| {
            let acknowledgment = m.as_str().contains("notifications/subscriptions/acknowledged");
            if let (true, Some(subs)) = (acknowledgment, subs.upgrade()) {
                on_ack(&subs);
            }
            record.lock().unwrap().push(m.as_str().to_owned());
        });
        let subscriber =
            Subscriber::new(sink, Some("\"L\"".into()), ListFlags::default().with(ListKind::Tools), true);
        subscriptions.add(&subscriber);
        (subscriptions, subscriber, seen)
    }

    #[test]
    fn a_listen_is_told_nothing_before_its_acknowledgment_and_every_change_after_it() {
        // A change the moment the client has the acknowledgment (here: while it is being
        // sent) is announced, after it. Acknowledging before tracking lost this one.
        let (subscriptions, subscriber, seen) = listening(|subs| {
            assert_eq!(subs.list_changed(ListKind::Tools), 1, "owed, and sent after the acknowledgment");
        });
        // Before the acknowledgment: not owed, not sent.
        assert_eq!(subscriptions.list_changed(ListKind::Tools), 0);
        assert!(seen.lock().unwrap().is_empty());
        subscriber.acknowledge(r#""notifications":{"toolsListChanged":true}"#);
        assert_eq!(subscriptions.list_changed(ListKind::Tools), 1);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 3, "{seen:?}");
        assert!(seen[0].contains("notifications/subscriptions/acknowledged"), "{seen:?}");
        for later in &seen[1..] {
            assert!(later.contains("notifications/tools/list_changed"), "{seen:?}");
            assert!(later.contains(r#""io.modelcontextprotocol/subscriptionId":"L""#), "{seen:?}");
        }
    }

    #[test]
    fn changes_racing_the_acknowledgment_never_come_before_it() {
        for _ in 0..200 {
            let (subscriptions, subscriber, seen) = listening(|_| {});
            let changing = {
                let subscriptions = Arc::clone(&subscriptions);
                std::thread::spawn(move || {
                    (0..50).map(|_| subscriptions.list_changed(ListKind::Tools)).sum::<usize>()
                })
            };
            subscriber.acknowledge(r#""notifications":{"toolsListChanged":true}"#);
            let announced = changing.join().unwrap();
            let seen = seen.lock().unwrap();
            assert!(seen[0].contains("notifications/subscriptions/acknowledged"), "{seen:?}");
            assert_eq!(seen.len(), announced + 1, "every change counted as announced was sent");
        }
    }

    /// A [`Recheck`] answering at once with what `answer` holds (`None`: no read, the stream
    /// is not open here), counting its reads.
    #[cfg(feature = "http")]
    struct Store {
        answer: Mutex<Option<Reread>>,
        reads: std::sync::atomic::AtomicUsize,
    }

    #[cfg(feature = "http")]
    impl Recheck for Store {
        fn recheck(&self, then: Box<dyn FnOnce(Reread) + Send>) -> bool {
            let Some(found) = self.answer.lock().unwrap().clone() else { return false };
            self.reads.fetch_add(1, Ordering::SeqCst);
            then(found);
            true
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn a_roaming_session_not_initialized_here_takes_list_changes_once_the_store_says_it_is() {
        let subscriptions = Subscriptions::default();
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let record = Arc::clone(&seen);
        let sink: Arc<dyn Sink> =
            Arc::new(move |m: Outbound| record.lock().unwrap().push(m.as_str().to_owned()));
        // Re-made here before `notifications/initialized` reached another replica.
        let subscriber = Subscriber::new(sink, None, ListFlags::ALL, false);
        subscriptions.add(&subscriber);
        let store = Arc::new(Store { answer: Mutex::new(None), reads: Default::default() });
        subscriber.recheck_with(store.clone());
        let now = |initialized| Reread::Now { uris: BTreeSet::new(), initialized };
        let tools = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#;

        // Its stream is not open here: nothing is read, nothing sent.
        assert_eq!(subscriptions.list_changed(ListKind::Tools), 0);
        assert_eq!(store.reads.load(Ordering::SeqCst), 0);
        // The store says not yet, or that the session is gone: nothing sent.
        for answer in [now(false), Reread::Gone, Reread::Unknown] {
            *store.answer.lock().unwrap() = Some(answer);
            assert_eq!(subscriptions.list_changed(ListKind::Tools), 0);
        }
        assert_eq!(store.reads.load(Ordering::SeqCst), 3);
        assert!(seen.lock().unwrap().is_empty());
        // The store says initialized: sent (after the read, so not counted as sent now).
        *store.answer.lock().unwrap() = Some(now(true));
        assert_eq!(subscriptions.list_changed(ListKind::Tools), 0);
        assert_eq!(*seen.lock().unwrap(), [tools]);
        // From then on it is ready here: sent at once, with no read.
        assert_eq!(subscriptions.list_changed(ListKind::Prompts), 1);
        assert_eq!(store.reads.load(Ordering::SeqCst), 4);
        assert_eq!(seen.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_subscriber_without_a_recheck_takes_list_changes_only_once_ready() {
        let subscriptions = Subscriptions::default();
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = Arc::clone(&count);
        let sink: Arc<dyn Sink> = Arc::new(move |_: Outbound| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let subscriber = Subscriber::new(sink, None, ListFlags::ALL, false);
        subscriptions.add(&subscriber);
        assert_eq!(subscriptions.list_changed(ListKind::Tools), 0);
        subscriber.ready();
        assert_eq!(subscriptions.list_changed(ListKind::Tools), 1);
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }
}
