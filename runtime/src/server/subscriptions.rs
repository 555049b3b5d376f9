//! Who wants `notifications/resources/updated` for which URIs: the server-wide table that
//! [`Server::notify_resource_updated`](super::Server::notify_resource_updated) fans out over.
//!
//! A [`Subscriber`] is one channel's wish list: a legacy session's `resources/subscribe`s
//! (sent on the session's out-of-call channel), or one 2026-07-28 `subscriptions/listen`
//! (sent on that request's own stream, each carrying its subscription id). The table holds
//! them weakly: a subscriber ends with the session or the request that owns it.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, Weak};

use crate::json::json_string;
use crate::protocol::Outbound;

use super::sink::Sink;

/// One channel's subscriptions.
pub(crate) struct Subscriber {
    sink: Arc<dyn Sink>,
    /// The `subscriptions/listen` request id (raw JSON), for a modern subscriber.
    listen_id: Option<String>,
    uris: Mutex<BTreeSet<String>>,
}

impl Subscriber {
    /// A subscriber sending on `sink`; `listen_id` for a modern `subscriptions/listen`.
    pub(crate) fn new(sink: Arc<dyn Sink>, listen_id: Option<String>) -> Arc<Subscriber> {
        Arc::new(Subscriber { sink, listen_id, uris: Mutex::new(BTreeSet::new()) })
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
}
