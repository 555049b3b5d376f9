//! Many servers, one hub: declared servers connected lazily (or at start-up, or never),
//! watched, healed, and routed by the name the model sees or by a resource's URI.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::path::Path;
//! use toolwire::client::StdioServer;
//! use toolwire::client::hub::{Declaration, ServerDeclarations, Hub, HubCall, HubOptions, allow_all};
//!
//! // Code over MCP_SERVERS over ./.mcp.json over the defaults.
//! let declared = ServerDeclarations::from_environment(Path::new("."))
//!     .declare(Declaration::new("time", StdioServer::new("uvx").arg("mcp-server-time")).max_tools(5));
//! let hub = Hub::start(declared, HubOptions::new(".").gate(allow_all())).await?;
//! // Nothing is started yet (lazy): the first call starts `time`.
//! let out = hub.call("time__get_current_time", serde_json::json!({"timezone": "UTC"}),
//!     HubCall::new().run_id("run-7")).await?;
//! println!("{}", out.joined_text());
//! hub.close_all().await;
//! # Ok(()) }
//! ```
//!
//! - Declaring: [`ServerDeclarations`] (code, `MCP_SERVERS`, a file; see [`declare`]).
//! - Connecting: each server's [`ConnectMode`]. A server that fails to start stops no other;
//!   its tools read as unavailable with the reason ([`ToolView::unavailable`], and a call's
//!   [`ErrorCode::Network`]).
//! - Health: [`Hub::health`], [`Hub::watch`] (a `tokio::sync::watch`), [`Hub::events`] (a
//!   `tokio::sync::broadcast` of [`HubEvent`]s).
//! - Healing: a stdio child that exits, or an HTTP server a call or a probe finds gone, is
//!   reconnected (HTTP) or respawned (stdio) after [`Backoff`] delays, at most
//!   [`Backoff::attempts`] times; then [`Health::Failed`]. A call cut off by the death is
//!   never re-run: an at-most-once call reads [`ErrorCode::OutcomeUnknown`].
//! - Routing: [`Hub::call`] by the model's name, [`Hub::read_resource`] by URI, and
//!   [`Hub::list_resources`], [`Hub::list_resource_templates`], [`Hub::list_prompts`]
//!   across servers. Two servers offering one name: [`Collisions`].
//! - Gate: [`HubOptions::gate`] decides each call; no gate, or one that abstains or panics,
//!   denies (fail closed).
//! - `uvx` and `uv` servers get `UV_CACHE_DIR=<project>/.uv_cache` unless their declaration
//!   sets one (seed 004).
//!
//! Decisions the issue left open: a lazy server is started by a call routed to it (its
//! tools are named `<server>__…`, so the name says which) or by any listing across servers
//! ([`Hub::tools`], the resource and prompt lists); a call made while its server heals fails
//! at once ([`ErrorCode::Network`]) rather than waiting; a start that failed is tried again
//! by the next use once the backoff delay has passed; a server that is down keeps its
//! tools' names (they fail as unavailable), so a call never falls through to another
//! server's tool of the same name; names are given in declaration order of the servers
//! adopted so far, so a rename (`_2`) is stable once every server has been connected once.

pub mod call;
pub mod declare;
pub mod health;
mod options;
mod slot;

use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{Notify, broadcast, watch};

use crate::ToolOutput;
use crate::registry::sanitise_tool_name;
use crate::tool::Tool;

use super::{Client, ListedPrompt, ListedResource, ListedResourceTemplate, RemoteTool, ResourceContent};
pub use call::{
    CallError, ErrorCode, Gate, GateRequest, HubCall, IDEMPOTENCY_KEY_META, RUN_ID_META, Verdict, allow_all,
};
pub use declare::{ConnectMode, Declaration, DeclareError, MCP_CONNECT_MODE_ENV, Origin, ServerDeclarations};
pub use health::{Backoff, Health, HubEvent};
pub use options::{ClientOptionsFn, Collisions, HubOptions};
use slot::{Inner, Live, Slot, close_slot, ensure, supervise};

/// Many declared servers behind one API. Cheap to clone; clones share the servers.
/// Dropping the last clone drops every client (a child is killed on drop);
/// [`close_all`](Hub::close_all) shuts them down gracefully.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").field("servers", &self.names()).finish_non_exhaustive()
    }
}

/// A tool the model sees, and where it goes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HubTool {
    /// The name the model sees (renamed `_2`… under [`Collisions::Rename`]).
    pub name: String,
    /// The server serving it.
    pub server: String,
    /// The adopted tool (its `info().name()` is the adoption's name, before any rename).
    pub tool: Arc<RemoteTool>,
}

/// A tool withheld because another server already serves its name.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Withheld {
    /// The contested name.
    pub name: String,
    /// The server whose tool was withheld.
    pub server: String,
    /// Why, in a sentence.
    pub reason: String,
}

/// The tools across servers, and what is missing.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ToolView {
    /// The tools, in declaration order of their servers.
    pub tools: Vec<HubTool>,
    /// `(server, reason)` for each server whose tools cannot be offered now.
    pub unavailable: Vec<(String, String)>,
    /// The tools withheld by [`Collisions::Withhold`].
    pub withheld: Vec<Withheld>,
}

impl ToolView {
    /// The names the model sees.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }
}

/// Items listed across servers, each with its server, and the servers that could not list.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Listing<T> {
    /// `(server, item)`, in declaration order of the servers.
    pub items: Vec<(String, T)>,
    /// `(server, reason)` for each server that could not be listed.
    pub unavailable: Vec<(String, String)>,
}

impl Hub {
    /// Resolve `declarations` and start: [`new`](Self::new), then
    /// [`connect_startup`](Self::connect_startup). Fails only when the declarations cannot
    /// be resolved.
    pub async fn start(declarations: ServerDeclarations, options: HubOptions) -> Result<Hub, DeclareError> {
        let hub = Hub::new(declarations, options)?;
        hub.connect_startup().await;
        Ok(hub)
    }

    /// Connect every `startup` server, concurrently: one that fails is reported, as
    /// `(server, reason)`, and the others proceed. Lazy servers stay idle, disabled ones
    /// alone.
    pub async fn connect_startup(&self) -> Vec<(String, String)> {
        let startup: Vec<_> =
            self.inner.slots.iter().filter(|s| s.mode == ConnectMode::Startup).cloned().collect();
        self.ensure_each(&startup).await
    }

    /// Resolve `declarations` and watch each server, connecting none: subscribe to
    /// [`events`](Self::events) here to see the start-up connections of
    /// [`connect_startup`](Self::connect_startup). Must be called inside a Tokio runtime.
    pub fn new(declarations: ServerDeclarations, options: HubOptions) -> Result<Hub, DeclareError> {
        let resolved = declarations.resolve()?;
        let (events, _) = broadcast::channel(options.events);
        let slots = resolved
            .into_iter()
            .map(|decl| {
                let mode = decl.connect.unwrap_or_default();
                let initial = if mode == ConnectMode::Disabled { Health::Disabled } else { Health::Idle };
                Arc::new(Slot {
                    prefix: sanitise_tool_name(
                        &decl.prefix.clone().unwrap_or_else(|| format!("{}__", decl.name)),
                    ),
                    mode,
                    decl,
                    health: watch::channel(initial).0,
                    live: Mutex::new(None),
                    known: Mutex::new(None),
                    connecting: tokio::sync::Mutex::new(()),
                    trouble: Notify::new(),
                    retry_at: Mutex::new(None),
                    failures: AtomicU32::new(0),
                    closed: AtomicBool::new(false),
                })
            })
            .collect();
        let hub = Hub { inner: Arc::new(Inner { slots, options, events }) };
        for slot in &hub.inner.slots {
            if slot.mode != ConnectMode::Disabled {
                tokio::spawn(supervise(Arc::downgrade(&hub.inner), slot.clone()));
            }
        }
        Ok(hub)
    }

    /// The declared names, in declaration order.
    pub fn names(&self) -> Vec<&str> {
        self.inner.slots.iter().map(|s| s.name()).collect()
    }

    fn slot(&self, name: &str) -> Result<&Arc<Slot>, DeclareError> {
        self.inner
            .slots
            .iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| declare::undeclared(self.inner.slots.iter().map(|s| &s.decl.name), name))
    }

    /// The declaration of `name` as resolved (`connect` settled), or the error naming the
    /// declared servers.
    pub fn declaration(&self, name: &str) -> Result<&Declaration, DeclareError> {
        self.slot(name).map(|s| &s.decl)
    }

    /// The state of `name` now.
    pub fn health(&self, name: &str) -> Result<Health, DeclareError> {
        Ok(self.slot(name)?.health.borrow().clone())
    }

    /// Follow the state of `name`.
    pub fn watch(&self, name: &str) -> Result<watch::Receiver<Health>, DeclareError> {
        Ok(self.slot(name)?.health.subscribe())
    }

    /// Every event from now on.
    pub fn events(&self) -> broadcast::Receiver<HubEvent> {
        self.inner.events.subscribe()
    }

    /// The live client of `name`, if it is connected.
    pub fn client(&self, name: &str) -> Result<Option<Client>, DeclareError> {
        Ok(self.slot(name)?.current().map(|l| l.client))
    }

    /// Connect `name` now if it is not (whatever its mode but `disabled`), and return its
    /// client, or the reason it is unavailable.
    pub async fn connect(&self, name: &str) -> Result<Client, CallError> {
        let slot =
            self.slot(name).map_err(|e| CallError::new(ErrorCode::UnknownTool, None, e.to_string()))?;
        ensure(&self.inner, slot).await.map(|l| l.client).map_err(|reason| {
            CallError::new(
                ErrorCode::Network,
                Some(name),
                format!("server '{name}' is unavailable: {reason}"),
            )
        })
    }

    async fn ensure_each(&self, slots: &[Arc<Slot>]) -> Vec<(String, String)> {
        let tasks: Vec<_> = slots
            .iter()
            .map(|s| {
                let (inner, slot) = (self.inner.clone(), s.clone());
                (s.decl.name.clone(), tokio::spawn(async move { ensure(&inner, &slot).await.err() }))
            })
            .collect();
        let mut unavailable = Vec::new();
        for (name, task) in tasks {
            match task.await {
                Ok(None) => {}
                Ok(Some(reason)) => unavailable.push((name, reason)),
                Err(_) => unavailable.push((name, "the connecting task failed".into())),
            }
        }
        unavailable
    }

    /// Every server's tools as the model sees them, connecting the lazy ones first (a
    /// listing is a use). Servers that cannot serve are in [`ToolView::unavailable`].
    pub async fn tools(&self) -> ToolView {
        let unavailable = self.ensure_each(&self.inner.slots).await;
        let (routes, withheld) = self.routes();
        let tools = routes.into_iter().filter(|(_, live)| *live).map(|(t, _)| t).collect();
        ToolView { tools, unavailable, withheld }
    }

    /// The routing table: every tool a server has adopted, named in declaration order of
    /// the servers, each with whether its server is connected now. A server that is
    /// healing, failed or closed keeps its names: they route to it (and fail as
    /// unavailable), never to another server's tool.
    fn routes(&self) -> (Vec<(HubTool, bool)>, Vec<Withheld>) {
        let mut routes: Vec<(HubTool, bool)> = Vec::new();
        let mut withheld = Vec::new();
        for slot in &self.inner.slots {
            let Some(known) = slot::lock(&slot.known).clone() else { continue };
            let live = slot.current().is_some_and(|l| Arc::ptr_eq(&l.discovery, &known));
            for tool in known.tools() {
                let tools: Vec<&HubTool> = routes.iter().map(|(t, _)| t).collect();
                let name = tool.info().name().to_owned();
                let reserved = &self.inner.options.reserved;
                let taken = |n: &str| tools.iter().any(|t| t.name == n) || reserved.iter().any(|r| r == n);
                let owner = if reserved.contains(&name) {
                    Some("a local tool has that name".to_owned())
                } else {
                    tools
                        .iter()
                        .find(|t| t.name == name)
                        .map(|t| format!("server '{}' already serves a tool of that name", t.server))
                };
                let name = match (owner, self.inner.options.collisions) {
                    (None, _) => name,
                    (Some(owner), Collisions::Withhold) => {
                        withheld.push(Withheld {
                            reason: format!("tool '{name}' of server '{}' is withheld: {owner}", slot.name()),
                            name,
                            server: slot.name().to_owned(),
                        });
                        continue;
                    }
                    (Some(_), Collisions::Rename) => (2..)
                        .map(|n| format!("{name}_{n}"))
                        .find(|candidate| !taken(candidate))
                        .unwrap_or(name),
                };
                routes.push((HubTool { name, server: slot.name().to_owned(), tool: tool.clone() }, live));
            }
        }
        (routes, withheld)
    }

    fn route(&self, name: &str) -> Option<(HubTool, bool)> {
        self.routes().0.into_iter().find(|(t, _)| t.name == name)
    }

    /// Call the tool the model names `tool`, on whichever server serves it: starting a
    /// lazy server first, asking the gate, sending the run id and idempotency key as
    /// `_meta`. Never retried. Every failure carries an [`ErrorCode`].
    pub async fn call(&self, tool: &str, arguments: Value, call: HubCall) -> Result<ToolOutput, CallError> {
        let result = self.call_inner(tool, &arguments, &call).await;
        let event = match &result {
            Ok((server, _, elapsed)) => {
                HubEvent::ToolCalled { server: server.clone(), tool: tool.to_owned(), elapsed: *elapsed }
            }
            Err(e) => HubEvent::CallFailed {
                server: e.server.clone(),
                tool: tool.to_owned(),
                code: e.code,
                message: e.message.clone(),
            },
        };
        self.inner.emit(event);
        result.map(|(_, out, _)| out)
    }

    async fn call_inner(
        &self,
        name: &str,
        arguments: &Value,
        call: &HubCall,
    ) -> Result<(String, ToolOutput, Duration), CallError> {
        let mut found = self.route(name);
        if let Some((route, false)) = &found {
            // Its server is healing, failed or closed: connect it again if it may be, and
            // take the tool from the new adoption.
            let slot = self.slot(&route.server).expect("a route's server is declared");
            ensure(&self.inner, slot).await.map_err(|reason| {
                CallError::new(
                    ErrorCode::Network,
                    Some(slot.name()),
                    format!("tool '{name}' is unavailable: {reason}"),
                )
            })?;
            found = self.route(name);
        }
        let mut found = found.filter(|(_, live)| *live).map(|(t, _)| t);
        if found.is_none() {
            found = self.route_lazily(name).await?;
        }
        let Some(route) = found else {
            return Err(CallError::new(
                ErrorCode::UnknownTool,
                None,
                format!("no declared server serves a tool named '{name}'"),
            ));
        };
        let server = route.server.clone();
        let slot = self.slot(&server).expect("a route's server is declared");
        let request = GateRequest {
            tool: name,
            server: &server,
            remote_name: route.tool.remote_name(),
            arguments,
            run_id: call.run_id.as_deref(),
        };
        let verdict = match &self.inner.options.gate {
            None => Verdict::Deny("no gate is set (fail closed)".into()),
            Some(gate) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| gate(&request)))
                .unwrap_or(Verdict::Deny("the gate panicked (fail closed)".into())),
        };
        match verdict {
            Verdict::Allow => {}
            Verdict::Deny(reason) => {
                return Err(CallError::new(
                    ErrorCode::Denied,
                    Some(&server),
                    format!("tool '{name}' of server '{server}' was denied: {reason}"),
                ));
            }
            Verdict::Abstain => {
                return Err(CallError::new(
                    ErrorCode::Denied,
                    Some(&server),
                    format!(
                        "tool '{name}' of server '{server}' was denied: the gate could not decide (fail closed)"
                    ),
                ));
            }
        }
        let raw = serde_json::value::to_raw_value(arguments).map_err(|e| {
            CallError::new(ErrorCode::Parameters, Some(&server), format!("tool '{name}': {e}"))
        })?;
        let started = Instant::now();
        match route.tool.run_with_meta(&raw, &call.context, call.meta()).await {
            Ok(out) => Ok((server, out, started.elapsed())),
            Err(e) => {
                let error = CallError::from_tool(&server, e);
                if matches!(error.code, ErrorCode::Network | ErrorCode::OutcomeUnknown | ErrorCode::Timeout) {
                    // The supervisor looks at the connection (a ping for HTTP).
                    slot.trouble.notify_one();
                }
                Err(error)
            }
        }
    }

    /// Start the servers that may serve `name` (those whose prefix begins it, then those
    /// with no prefix) until one does. An error when the one server whose prefix names it
    /// is unavailable, or has no such tool.
    async fn route_lazily(&self, name: &str) -> Result<Option<HubTool>, CallError> {
        let named = self.inner.slots.iter().filter(|s| !s.prefix.is_empty() && name.starts_with(&s.prefix));
        let bare = self.inner.slots.iter().filter(|s| s.prefix.is_empty());
        for slot in named.clone().chain(bare) {
            match ensure(&self.inner, slot).await {
                Ok(live) => {
                    if let Some((found, true)) = self.route(name) {
                        return Ok(Some(found));
                    }
                    if !slot.prefix.is_empty() {
                        let mut why =
                            format!("server '{}' has not adopted a tool named '{name}'", slot.name());
                        let rejected = live
                            .discovery
                            .rejected()
                            .iter()
                            .find(|r| format!("{}{}", slot.prefix, r.name) == name);
                        if let Some(r) = rejected {
                            why = format!("{why}: {}", r.reason);
                        }
                        return Err(CallError::new(ErrorCode::UnknownTool, Some(slot.name()), why));
                    }
                }
                Err(reason) if !slot.prefix.is_empty() => {
                    return Err(CallError::new(
                        ErrorCode::Network,
                        Some(slot.name()),
                        format!("tool '{name}' is unavailable: {reason}"),
                    ));
                }
                Err(_) => {}
            }
        }
        Ok(None)
    }

    async fn each_live(&self) -> (Vec<(String, Live)>, Vec<(String, String)>) {
        let unavailable = self.ensure_each(&self.inner.slots).await;
        let live =
            self.inner.slots.iter().filter_map(|s| s.current().map(|l| (s.name().to_owned(), l))).collect();
        (live, unavailable)
    }

    async fn across<T, F, Fut>(&self, list: F) -> Listing<T>
    where
        F: Fn(Client) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<T>, super::ClientError>>,
    {
        let (live, mut unavailable) = self.each_live().await;
        let mut items = Vec::new();
        for (server, l) in live {
            match list(l.client).await {
                Ok(found) => items.extend(found.into_iter().map(|t| (server.clone(), t))),
                Err(e) => unavailable.push((server, e.to_string())),
            }
        }
        Listing { items, unavailable }
    }

    /// Every server's resources (connecting the lazy ones).
    pub async fn list_resources(&self) -> Listing<ListedResource> {
        self.across(|c| async move { c.list_resources(false).await.map(|r| r.to_vec()) }).await
    }

    /// Every server's resource templates (connecting the lazy ones).
    pub async fn list_resource_templates(&self) -> Listing<ListedResourceTemplate> {
        self.across(|c| async move { c.list_resource_templates(false).await.map(|r| r.to_vec()) }).await
    }

    /// Every server's prompts (connecting the lazy ones).
    pub async fn list_prompts(&self) -> Listing<ListedPrompt> {
        self.across(|c| async move { c.list_prompts().await }).await
    }

    /// Read `uri` from the server that lists it, else from the first whose template's
    /// literal start (before its first `{`) begins it. Returns the server's name and the
    /// contents (the server's, unsealed: see [`untrusted`](super::untrusted)).
    pub async fn read_resource(&self, uri: &str) -> Result<(String, Vec<ResourceContent>), CallError> {
        let resources = self.list_resources().await;
        let templates = self.list_resource_templates().await;
        let listed = resources.items.iter().find(|(_, r)| r.uri == uri).map(|(s, _)| s.clone());
        let templated = templates
            .items
            .iter()
            .find(|(_, t)| {
                let literal = t.uri_template.split('{').next().unwrap_or_default();
                !literal.is_empty() && uri.starts_with(literal)
            })
            .map(|(s, _)| s.clone());
        let Some(server) = listed.or(templated) else {
            return Err(CallError::new(
                ErrorCode::UnknownTool,
                None,
                format!("no connected server serves resource '{uri}'"),
            ));
        };
        let client = self.slot(&server).ok().and_then(|s| s.current()).map(|l| l.client);
        let client = client.ok_or_else(|| {
            CallError::new(ErrorCode::Network, Some(&server), format!("server '{server}' went away"))
        })?;
        match client.read_resource(uri).await {
            Ok(contents) => Ok((server, contents)),
            Err(e) => {
                let code = if e.is_retryable() { ErrorCode::Network } else { ErrorCode::Execution };
                Err(CallError::new(code, Some(&server), e.to_string()))
            }
        }
    }

    /// Close `name`: its client is shut down gracefully (a child gets EOF, SIGTERM, then
    /// SIGKILL; an HTTP session is ended) and it stays [`Health::Closed`]: no lazy start,
    /// no healing.
    pub async fn close(&self, name: &str) -> Result<(), DeclareError> {
        let slot = self.slot(name)?;
        close_slot(&self.inner, slot).await;
        Ok(())
    }

    /// Close every server, concurrently.
    pub async fn close_all(&self) {
        let tasks: Vec<_> = self
            .inner
            .slots
            .iter()
            .map(|s| {
                let (inner, slot) = (self.inner.clone(), s.clone());
                tokio::spawn(async move { close_slot(&inner, &slot).await })
            })
            .collect();
        for t in tasks {
            let _ = t.await;
        }
    }
}
