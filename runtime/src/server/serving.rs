//! [`Serving`]: what a server serves (each capability it was given, built once) and where
//! the notices it raises go besides this process's subscribers (its [`Fanout`]). Read by the
//! method table (`methods`), by the live changes and `subscriptions/listen` (`live`) and by
//! the [`Server`](super::Server) that owns it; the sessions and the request path below them
//! read only [`Shared`].

use std::sync::Arc;

use super::capability::completion::CompletionTable;
use super::capability::prompts::Prompts;
use super::capability::resources::Resources;
use super::capability::skills::Skills;
use super::capability::tools::Tools;
use super::notify::fanout::{Fanout, Notice, deliver_here};
use super::shared::Shared;

/// What a server serves, beside what its sessions share.
pub(crate) struct Serving {
    pub(crate) shared: Arc<Shared>,
    /// The tools capability, when tools were registered.
    pub(crate) tools: Option<Tools>,
    /// The resources capability, when resources were registered.
    pub(crate) resources: Option<Resources>,
    /// The prompts capability, when prompts were registered.
    pub(crate) prompts: Option<Prompts>,
    /// The completions capability, when something completes.
    pub(crate) completion: Option<CompletionTable>,
    /// The Skills extension, when a skill catalog was given.
    pub(crate) skills: Option<Skills>,
    /// Where notices go besides this process's subscribers
    /// ([`ServerBuilder::fanout`](super::ServerBuilder::fanout)).
    pub(crate) fanout: Option<Arc<dyn Fanout>>,
}

impl Serving {
    /// `notice` to this process's subscribers, then to the other replicas; how many were
    /// sent here.
    pub(crate) fn raise(&self, notice: Notice) -> usize {
        let sent = deliver_here(&self.shared, &notice);
        if let Some(fanout) = &self.fanout {
            fanout.publish(&notice);
        }
        sent
    }
}
