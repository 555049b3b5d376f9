//! [`Fanout`]: how notifications sent outside any call reach the subscribers of other
//! replicas. A server given one ([`ServerBuilder::fanout`](crate::server::ServerBuilder::fanout))
//! publishes on it each [`Notice`] it raises ([`Server::notify_resource_updated`], and the
//! `notifications/*/list_changed` of a live server's changes), and delivers what the other
//! replicas publish to its own subscribers through the [`Delivery`] it hands the fan-out.
//!
//! Without one (the default), notices stay in this process, as they always did. The notice
//! is always delivered here first, synchronously; the fan-out carries it to the others, and
//! must not hand a replica back what it published itself.
//!
//! [`Server::notify_resource_updated`]: crate::server::Server::notify_resource_updated

use std::sync::{Arc, Weak};

use super::subscriptions::ListKind;
use crate::server::shared::Shared;

/// A notification raised on one replica, for every replica's subscribers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice {
    /// `notifications/resources/updated` for `uri`: to each subscriber of it.
    ResourceUpdated {
        /// The resource that changed.
        uri: String,
    },
    /// A list changed (`notifications/tools/list_changed`, …): to each subscriber that
    /// takes that list's changes.
    ListChanged(ChangedList),
}

/// Which list a [`Notice::ListChanged`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChangedList {
    /// The tools (`notifications/tools/list_changed`).
    Tools,
    /// The resources and resource templates (`notifications/resources/list_changed`).
    Resources,
    /// The prompts (`notifications/prompts/list_changed`).
    Prompts,
}

impl ChangedList {
    /// Its name on the wire of a fan-out: `tools`, `resources` or `prompts`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangedList::Tools => "tools",
            ChangedList::Resources => "resources",
            ChangedList::Prompts => "prompts",
        }
    }

    /// The list named `name` ([`as_str`](Self::as_str)), if it is one.
    pub fn parse(name: &str) -> Option<ChangedList> {
        match name {
            "tools" => Some(ChangedList::Tools),
            "resources" => Some(ChangedList::Resources),
            "prompts" => Some(ChangedList::Prompts),
            _ => None,
        }
    }

    pub(crate) fn kind(self) -> ListKind {
        match self {
            ChangedList::Tools => ListKind::Tools,
            ChangedList::Resources => ListKind::Resources,
            ChangedList::Prompts => ListKind::Prompts,
        }
    }

    pub(crate) fn of(kind: ListKind) -> ChangedList {
        match kind {
            ListKind::Tools => ChangedList::Tools,
            ListKind::Resources => ChangedList::Resources,
            ListKind::Prompts => ChangedList::Prompts,
        }
    }
}

/// Carries [`Notice`]s between replicas (Redis pub/sub, say: `toolwire::redis::RedisFanout`
/// with feature `redis`).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolwire::server::{Delivery, Fanout, Notice};
/// use toolwire::{Server, ServerOptions};
///
/// /// A fan-out that only records what it was asked to publish.
/// #[derive(Default)]
/// struct Recorder(Mutex<Vec<Notice>>);
///
/// impl Fanout for Recorder {
///     fn publish(&self, notice: &Notice) {
///         self.0.lock().unwrap().push(notice.clone());
///     }
///     fn attach(&self, _delivery: Delivery) {}
/// }
///
/// let fanout = Arc::new(Recorder::default());
/// let server = Server::builder(ServerOptions::new("demo", "0.1.0"))
///     .resources(toolwire::resource::ResourceRegistry::new())
///     .fanout(fanout.clone())
///     .build();
/// assert_eq!(server.notify_resource_updated("file:///a"), 0); // no subscriber here
/// assert_eq!(*fanout.0.lock().unwrap(), [Notice::ResourceUpdated { uri: "file:///a".into() }]);
/// ```
pub trait Fanout: Send + Sync + 'static {
    /// Send `notice` to the other replicas. Must not block (queue it, and send it in the
    /// background), and must not come back to this replica's [`Delivery`].
    fn publish(&self, notice: &Notice);

    /// Deliver, from now on, what the other replicas publish to `delivery` (called once,
    /// when the server is built).
    fn attach(&self, delivery: Delivery);
}

/// A server's door for notices from other replicas: [`Delivery::deliver`] sends one to this
/// replica's subscribers. Holds the server weakly: once the server is gone, it delivers
/// nothing.
#[derive(Clone)]
pub struct Delivery {
    shared: Weak<Shared>,
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delivery").field("server_alive", &(self.shared.strong_count() > 0)).finish()
    }
}

impl Delivery {
    pub(crate) fn new(shared: &Arc<Shared>) -> Delivery {
        Delivery { shared: Arc::downgrade(shared) }
    }

    /// Send `notice` to this replica's subscribers that want it; how many were sent (0 once
    /// the server is gone, or for a resource update on a server that serves no resources).
    pub fn deliver(&self, notice: &Notice) -> usize {
        let Some(shared) = self.shared.upgrade() else { return 0 };
        deliver_here(&shared, notice)
    }

    /// Whether the server it delivers to is still running.
    pub fn is_alive(&self) -> bool {
        self.shared.strong_count() > 0
    }
}

/// `notice` to this process's subscribers.
pub(crate) fn deliver_here(shared: &Shared, notice: &Notice) -> usize {
    match notice {
        Notice::ResourceUpdated { uri } if shared.serves_resources => shared.subscriptions.updated(uri),
        Notice::ResourceUpdated { .. } => 0,
        Notice::ListChanged(list) => shared.subscriptions.list_changed(list.kind()),
    }
}
