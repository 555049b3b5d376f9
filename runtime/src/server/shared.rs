//! [`Shared`]: what every session of a server shares and every request may read (its
//! options, its pre-serialised lifecycle answers, who calls when no one is named, the rules
//! and limits callers meet, the in-flight bound, the subscribers of notices sent outside a
//! call). The bottom of the engine: it names none of the capabilities, which live in
//! `serving` above the sessions that serve them.

use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;
use tokio::sync::Semaphore;

use crate::principal::Principal;

use super::access::caller::Caller;
use super::access::exposure::Exposure;
use super::access::policy::Access;
use super::access::rate::Limiter;
use super::intercept::Interceptors;
use super::notify::subscriptions::Subscriptions;
use super::options::ServerOptions;
use super::task::tasks::Tasks;

/// What every session of a server shares.
pub(crate) struct Shared {
    pub(crate) options: ServerOptions,
    /// `capabilities`, as `initialize` and `server/discover` send it.
    pub(crate) capabilities: Box<RawValue>,
    /// `{"io.modelcontextprotocol/serverInfo":{…}}`: the `_meta` of every modern result.
    pub(crate) modern_meta: Box<RawValue>,
    /// The modern `server/discover` result.
    pub(crate) discover_body: String,
    /// An empty modern result (`ping`).
    pub(crate) modern_empty: String,
    /// Whether what is served can change while serving
    /// ([`ServerBuilder::live`](super::ServerBuilder::live)).
    pub(crate) live: bool,
    /// Whether resources are served (so a resource update has anyone to reach).
    pub(crate) serves_resources: bool,
    /// Who takes which notifications sent outside any call: resource updates, list changes.
    pub(crate) subscriptions: Subscriptions,
    pub(crate) permits: Semaphore,
    /// The dispatcher calls are polled under when `forward_tracing` is on (made at the first
    /// forwarded call; see `forward`).
    pub(crate) forward: OnceLock<tracing::Dispatch>,
    /// Who a request is served for when the transport names no one (stdio): the host.
    pub(crate) host_principal: Arc<Principal>,
    /// Who may see and call what ([`ServerBuilder::authorize`](super::ServerBuilder::authorize)).
    pub(crate) access: Option<Arc<Access>>,
    /// Requests per principal ([`ServerBuilder::rate_limit`](super::ServerBuilder::rate_limit)).
    pub(crate) limiter: Option<Limiter>,
    /// Who the callers are when the transport does not say
    /// ([`ServerBuilder::exposure`](super::ServerBuilder::exposure)).
    pub(crate) exposure: Arc<Exposure>,
    /// What sees every request before it is served
    /// ([`ServerBuilder::intercept`](super::ServerBuilder::intercept)); empty, nothing does.
    pub(crate) interceptors: Interceptors,
    /// The tower layers every request is served through
    /// ([`ServerBuilder::layer`](super::ServerBuilder::layer)); `None`, none.
    #[cfg(feature = "tower")]
    pub(crate) layers: Option<super::layer::Stack>,
    /// Whether anything is on the seam (an interceptor, a tower layer): the one branch a
    /// request pays for the seam. `false`, every request goes straight to the method table,
    /// and a `tools/call` read in one pass keeps its fast path.
    pub(crate) seam: bool,
    /// The tasks (the tasks extension), when a tool allows them or the builder was given a
    /// task store ([`ServerBuilder::task_store`](super::ServerBuilder::task_store)).
    pub(crate) tasks: Option<Arc<Tasks>>,
    /// Whether the builder said it (unsaid, a listener on a network address serves untrusted
    /// callers: `Server::exposure_on`).
    #[cfg(feature = "http")]
    pub(crate) exposure_said: bool,
}

impl Shared {
    /// Who a message is served for when its transport names no one: the host principal,
    /// from the callers the server's exposure says.
    pub(crate) fn host_caller(&self) -> Caller<'_> {
        Caller::new(&self.host_principal, &self.exposure)
    }
}
