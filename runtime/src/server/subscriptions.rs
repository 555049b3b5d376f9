//! Who wants which notifications sent outside any call: the server-wide table that
//! [`Server::notify_resource_updated`](super::Server::notify_resource_updated) and a live
//! registry's changes fan out over.
//!
//! A [`Subscriber`] is one channel's wish list: a legacy session's (sent on the session's
//! out-of-call channel: stdout, or an HTTP session's GET stream), which takes every
//! `notifications/*/list_changed` once the session is initialized, and the URIs it sent
//! `resources/subscribe` for; or one 2026-07-28 `subscriptions/listen` (sent on that
//! request's own stream, each carrying its subscription id), which takes the list changes
//! and URIs its filter named. The table holds them weakly: a subscriber ends with the
//! session or the request that owns it.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::json::json_string;
use crate::protocol::Outbound;

use super::sink::Sink;

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
            ListKind::Tools => "notifications/tools/list_changed",
            ListKind::Resources => "notifications/resources/list_changed",
            ListKind::Prompts => "notifications/prompts/list_changed",
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
}

impl Subscriber {
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
            listen_id,
            uris: Mutex::new(BTreeSet::new()),
            lists,
            ready: AtomicBool::new(ready),
        })
    }

    /// From now on, list changes are sent (a legacy session got `notifications/initialized`).
    pub(crate) fn ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    /// Add `uri`; whether it was new.
    pub(crate) fn subscribe(&self, uri: &str) -> bool {
        self.uris.lock().unwrap_or_else(|e| e.into_inner()).insert(uri.to_owned())
    }

    /// Remove `uri`; whether it was there.
    pub(crate) fn unsubscribe(&self, uri: &str) -> bool {
        self.uris.lock().unwrap_or_else(|e| e.into_inner()).remove(uri)
    }

    fn wants(&self, uri: &str) -> bool {
        self.uris.lock().unwrap_or_else(|e| e.into_inner()).contains(uri)
    }

    /// Send `method` with `members` (JSON object members, without braces), adding the
    /// subscription id for a modern subscriber.
    pub(crate) fn send(&self, method: &str, members: &str) {
        let params = match &self.listen_id {
            None => format!("{{{members}}}"),
            Some(id) => {
                let sep = if members.is_empty() { "" } else { "," };
                format!("{{\"_meta\":{{\"io.modelcontextprotocol/subscriptionId\":{id}}}{sep}{members}}}")
            }
        };
        self.sink.send(Outbound::notification(method, &params));
    }
}

/// Every live subscriber of a server.
#[derive(Default)]
pub(crate) struct Subscriptions {
    live: Mutex<Vec<Weak<Subscriber>>>,
}

impl Subscriptions {
    /// Track `subscriber` until it is dropped.
    pub(crate) fn add(&self, subscriber: &Arc<Subscriber>) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(subscriber));
    }

    /// Send `notifications/resources/updated` for `uri` to every subscriber that wants it;
    /// how many were sent.
    pub(crate) fn updated(&self, uri: &str) -> usize {
        let targets: Vec<Arc<Subscriber>> = {
            let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
            live.retain(|w| w.strong_count() > 0);
            live.iter().filter_map(Weak::upgrade).filter(|s| s.wants(uri)).collect()
        };
        let members = format!("\"uri\":{}", json_string(uri));
        for s in &targets {
            s.send("notifications/resources/updated", &members);
        }
        targets.len()
    }

    /// Send `kind`'s `list_changed` notification to every subscriber that takes it; how many
    /// were sent.
    pub(crate) fn list_changed(&self, kind: ListKind) -> usize {
        let targets: Vec<Arc<Subscriber>> = {
            let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
            live.retain(|w| w.strong_count() > 0);
            live.iter()
                .filter_map(Weak::upgrade)
                .filter(|s| s.lists.has(kind) && s.ready.load(Ordering::Acquire))
                .collect()
        };
        for s in &targets {
            s.send(kind.method(), "");
        }
        targets.len()
    }
}
