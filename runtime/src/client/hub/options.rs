//! How a [`Hub`](super::Hub) behaves: [`HubOptions`] (the project root, the connect mode,
//! the client options per server, the backoff, collisions) and [`Collisions`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::call::Gate;
use super::health::Backoff;
use crate::client::ClientOptions;

/// What to do when two servers offer the same model-facing name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Collisions {
    /// The server declared first keeps the name; the other's tool is withheld and reported
    /// in [`ToolView::withheld`](super::ToolView::withheld) with the reason (the adoption's own rule, seed 002).
    #[default]
    Withhold,
    /// The later tool is renamed `<name>_2` (then `_3`, …), as seed 004 does.
    Rename,
}

/// Client options made from a server's name.
pub type ClientOptionsFn = Arc<dyn Fn(&str) -> ClientOptions + Send + Sync>;

/// How the hub behaves.
#[derive(Clone)]
#[non_exhaustive]
pub struct HubOptions {
    pub(super) project_root: PathBuf,
    pub(super) client: ClientOptionsFn,
    pub(super) collisions: Collisions,
    pub(super) backoff: Backoff,
    pub(super) gate: Option<Gate>,
    pub(super) check_every: Duration,
    pub(super) ping_every: Option<Duration>,
    pub(super) events: usize,
    pub(super) reserved: Vec<String>,
}

impl std::fmt::Debug for HubOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubOptions")
            .field("project_root", &self.project_root)
            .field("collisions", &self.collisions)
            .field("backoff", &self.backoff)
            .field("gate", &self.gate.is_some())
            .field("check_every", &self.check_every)
            .field("ping_every", &self.ping_every)
            .finish_non_exhaustive()
    }
}

impl HubOptions {
    /// The defaults for a project rooted at `project_root` (where `uvx` caches go): client
    /// options `ClientOptions::new(name)`, collisions withheld, [`Backoff::default`], **no
    /// gate** (so every call is denied until you set one), each connection checked every
    /// second, 256 events buffered.
    pub fn new(project_root: impl Into<PathBuf>) -> Self {
        HubOptions {
            project_root: project_root.into(),
            client: Arc::new(|name: &str| ClientOptions::new(name)),
            collisions: Collisions::default(),
            backoff: Backoff::default(),
            gate: None,
            check_every: Duration::from_secs(1),
            ping_every: None,
            events: 256,
            reserved: Vec::new(),
        }
    }

    /// Make each server's [`ClientOptions`] (handlers, roots, …) from its name. A
    /// declaration's `start_timeout` then sets its request timeout, and its `timeout`
    /// bounds its tools' calls.
    pub fn client(mut self, options: impl Fn(&str) -> ClientOptions + Send + Sync + 'static) -> Self {
        self.client = Arc::new(options);
        self
    }

    /// Withhold or rename colliding names.
    pub fn collisions(mut self, collisions: Collisions) -> Self {
        self.collisions = collisions;
        self
    }

    /// The reconnection and respawn backoff.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// The gate deciding each call ([`allow_all`](super::allow_all) to allow every adopted tool).
    pub fn gate(mut self, gate: Gate) -> Self {
        self.gate = Some(gate);
        self
    }

    /// How often a connection is checked for a dead child or a closed transport (a flag,
    /// no message sent). An HTTP server is probed with a ping only after a call failed.
    pub fn check_every(mut self, every: Duration) -> Self {
        self.check_every = every;
        self
    }

    /// Also ping each connected server this often, so that an HTTP server that went away
    /// is noticed (and healing starts) before a call finds it gone. Off by default: a
    /// ping is a request the server must answer.
    pub fn ping_every(mut self, every: Duration) -> Self {
        self.ping_every = Some(every);
        self
    }

    /// Names already taken by the host's own tools: a server's tool of one of these names
    /// is withheld or renamed like any other collision (seed 004's builtins).
    pub fn reserved<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.reserved = names.into_iter().map(Into::into).collect();
        self
    }

    /// How many events a slow subscriber may fall behind by.
    pub fn event_capacity(mut self, n: usize) -> Self {
        self.events = n.max(1);
        self
    }
}
