//! Registries that change while serving: adding and removing tools, resources (and
//! templates) and prompts on a running [`Server`], and telling every session so
//! (`notifications/*/list_changed`); and `subscriptions/listen`, the 2026-07-28 channel that
//! carries those changes and resource updates.
//!
//! A server is live only when built so ([`ServerBuilder::live`](super::ServerBuilder::live)):
//! it then advertises `listChanged: true` for each capability it serves, and the sets behind
//! them are held in a [`Swap`](super::swap::Swap). A server that never changes keeps
//! `listChanged: false`, its byte-exact answers, and reads its sets with no synchronisation.
//!
//! A change rebuilds that capability's set whole (registry and pre-serialised pages) outside
//! any lock, swaps it in, and only then notifies: a client that lists on hearing of the
//! change sees the new list. The notifications go
//!
//! - on stdio, on stdout;
//! - for a legacy HTTP session, on its GET stream (dropped when none is open);
//! - in 2026-07-28, on each open `subscriptions/listen` whose filter asked for that list
//!   (`toolsListChanged`, `resourcesListChanged`, `promptsListChanged`), with its
//!   subscription id.
//!
//! | `subscriptions/listen` | the answer |
//! | --- | --- |
//! | a modern request | `notifications/subscriptions/acknowledged` first, naming what is granted (the list-changed flags of the lists that can change, the `resourceSubscriptions` this server serves), then each notification for them, all with its `subscriptionId`; the request stays open until the client cancels it |
//! | a legacy request | -32602, as for any modern-only method without its envelope |

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::context::Context;
use crate::prompt::{Prompt, PromptRegistryError};
use crate::protocol::RpcError;
use crate::protocol::methods;
use crate::protocol::resources::ListenParams;
use crate::registry::{RegistryError, ToolRegistry};
use crate::resource::{Resource, ResourceRegistryError, ResourceTemplate};
use crate::tool::Tool;

use super::era::{Served, decode_params, missing_envelope};
use super::request::{Handler, Started, Stop};
use super::session::SessionInner;
use super::sink::Reply;
use super::subscriptions::{ListFlags, ListKind, Subscriber};
use super::{Server, Shared};

/// Why a live change was refused. Nothing changed, and nothing was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LiveError {
    /// The server was not built with [`ServerBuilder::live`](super::ServerBuilder::live).
    #[error(
        "the server's {capability} cannot change while it serves: it was not built with ServerBuilder::live()"
    )]
    NotLive {
        /// `"tools"`, `"resources"` or `"prompts"`.
        capability: &'static str,
    },
    /// The server serves no such capability: give the builder a registry for it (an empty
    /// one will do) to add to it later.
    #[error(
        "the server serves no {capability}: give the builder a registry of them (it may be empty) to add to later"
    )]
    NotServed {
        /// `"tools"`, `"resources"` or `"prompts"`.
        capability: &'static str,
    },
    /// The tool registry refused the tool (a duplicate or invalid name, missing state).
    #[error(transparent)]
    Tool(#[from] RegistryError),
    /// The resource registry refused it (a URI or template already registered).
    #[error(transparent)]
    Resource(#[from] ResourceRegistryError),
    /// The prompt registry refused it (a duplicate name, a prompt that cannot be served).
    #[error(transparent)]
    Prompt(#[from] PromptRegistryError),
}

/// Apply `change` to a capability's set through its swap; on a change, notify `kind`.
macro_rules! change {
    ($server:expr, $field:ident, $capability:literal, $kind:expr, |$cap:ident, $old:ident| $body:expr) => {{
        let shared: &Shared = &$server.shared;
        let Some($cap) = &shared.$field else {
            return Err(LiveError::NotServed { capability: $capability });
        };
        match $cap.set.update(|$old| $body) {
            None => Err(LiveError::NotLive { capability: $capability }),
            Some(Err(e)) => Err(e),
            Some(Ok(changed)) => {
                if changed {
                    let sent = super::fanout::raise(
                        shared,
                        super::Notice::ListChanged(super::ChangedList::of($kind)),
                    );
                    tracing::debug!(capability = $capability, sessions = sent, "list changed; notified");
                }
                Ok(changed)
            }
        }
    }};
}

/// Changing what a live server serves. Each change is applied whole, then announced to every
/// session; see the module `live` docs for where the notifications go.
///
/// ```
/// use toolwire::{Server, ServerOptions, ToolRegistry, tool};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let server = Server::builder(ServerOptions::new("demo", "0.1.0")).tools(ToolRegistry::new()).live().build();
/// server.add_tool(hello {}).unwrap();
/// assert_eq!(server.registry().names().collect::<Vec<_>>(), ["hello"]);
/// assert!(server.remove_tool("hello").unwrap());
/// assert!(server.registry().is_empty());
///
/// // A server not built live refuses, saying why.
/// let fixed = Server::new(ToolRegistry::new(), ServerOptions::new("demo", "0.1.0"));
/// assert_eq!(
///     fixed.add_tool(hello {}).unwrap_err().to_string(),
///     "the server's tools cannot change while it serves: it was not built with ServerBuilder::live()"
/// );
/// ```
impl Server {
    /// Serve `tool` from now on, and send every session `notifications/tools/list_changed`.
    /// A call already in flight is not affected.
    pub fn add_tool<T: Tool>(&self, tool: T) -> Result<(), LiveError> {
        self.add_tool_shared(Arc::new(tool))
    }

    /// [`add_tool`](Self::add_tool) for a tool already behind an `Arc` (an adopted
    /// [`RemoteTool`](crate::client::RemoteTool), say).
    pub fn add_tool_shared(&self, tool: Arc<dyn Tool>) -> Result<(), LiveError> {
        change!(self, tools, "tools", ListKind::Tools, |tools, old| {
            let mut registry = ToolRegistry::clone(&old.registry);
            registry.insert(tool)?;
            Ok(Some(tools.next(registry, old)))
        })
        .map(drop)
    }

    /// Stop serving the tool called `name`: from now on a call to it is the unknown-tool
    /// error, and every session is sent `notifications/tools/list_changed`. A call to it
    /// already in flight finishes on it. Whether there was such a tool (when there was not,
    /// nothing is sent).
    pub fn remove_tool(&self, name: &str) -> Result<bool, LiveError> {
        change!(self, tools, "tools", ListKind::Tools, |tools, old| {
            let mut registry = ToolRegistry::clone(&old.registry);
            Ok::<_, LiveError>(registry.remove(name).map(|_| tools.next(registry, old)))
        })
    }

    /// Serve the fixed resource `resource` from now on, and send every session
    /// `notifications/resources/list_changed`.
    pub fn add_resource<R: Resource>(&self, resource: R) -> Result<(), LiveError> {
        let type_name = std::any::type_name::<R>();
        change!(self, resources, "resources", ListKind::Resources, |resources, old| {
            let mut registry = old.registry.clone();
            registry.add_shared(Arc::new(resource), type_name)?;
            Ok(Some(resources.next(registry, old)))
        })
        .map(drop)
    }

    /// Serve the resource template `template` from now on (tried after those already
    /// registered), and send every session `notifications/resources/list_changed`.
    pub fn add_resource_template<T: ResourceTemplate>(&self, template: T) -> Result<(), LiveError> {
        let type_name = std::any::type_name::<T>();
        change!(self, resources, "resources", ListKind::Resources, |resources, old| {
            let mut registry = old.registry.clone();
            registry.add_template_shared(Arc::new(template), type_name)?;
            Ok(Some(resources.next(registry, old)))
        })
        .map(drop)
    }

    /// Stop serving the fixed resource at `uri`, or else the template whose text
    /// `uri` is, and send every session `notifications/resources/list_changed`. A read
    /// already in flight finishes. Whether there was one.
    pub fn remove_resource(&self, uri: &str) -> Result<bool, LiveError> {
        change!(self, resources, "resources", ListKind::Resources, |resources, old| {
            let mut registry = old.registry.clone();
            Ok::<_, LiveError>(registry.remove(uri).then(|| resources.next(registry, old)))
        })
    }

    /// Serve `prompt` from now on, and send every session
    /// `notifications/prompts/list_changed`. (Its arguments' completers are not served:
    /// `completion/complete` knows the prompts the server was built with.)
    pub fn add_prompt<P: Prompt>(&self, prompt: P) -> Result<(), LiveError> {
        self.add_prompt_shared(Arc::new(prompt))
    }

    /// [`add_prompt`](Self::add_prompt) for a prompt already behind an `Arc`.
    pub fn add_prompt_shared(&self, prompt: Arc<dyn Prompt>) -> Result<(), LiveError> {
        change!(self, prompts, "prompts", ListKind::Prompts, |prompts, old| {
            let mut registry = old.registry.clone();
            registry.insert(prompt)?;
            Ok(Some(prompts.next(registry, old)))
        })
        .map(drop)
    }

    /// Stop serving the prompt called `name`, and send every session
    /// `notifications/prompts/list_changed`. Whether there was one.
    pub fn remove_prompt(&self, name: &str) -> Result<bool, LiveError> {
        change!(self, prompts, "prompts", ListKind::Prompts, |prompts, old| {
            let mut registry = old.registry.clone();
            Ok::<_, LiveError>(registry.remove(name).map(|_| prompts.next(registry, old)))
        })
    }
}

/// Whether `subscriptions/listen` is served: when resources are (their updates), or when a
/// list can change.
pub(crate) fn listens(shared: &Shared) -> bool {
    shared.resources.is_some() || shared.live
}

/// Answer `subscriptions/listen`.
pub(crate) fn listen(session: &SessionInner, reply: Reply, params: Option<&RawValue>) {
    let p: ListenParams<'_> = match decode_params(methods::SUBSCRIPTIONS_LISTEN, params) {
        Ok(p) => p,
        Err(e) => return reply.error(e),
    };
    let (peer, modern) = match session.served(p.meta.as_ref()).and_then(Served::peer) {
        Ok(served) => served,
        Err(e) => return reply.error(e),
    };
    if !modern {
        return reply.error(missing_envelope(methods::SUBSCRIPTIONS_LISTEN));
    }
    let Some(id) = reply.id().map(|id| id.to_json()) else {
        return reply.error(missing_envelope(methods::SUBSCRIPTIONS_LISTEN));
    };
    let shared = &session.shared;
    let filter = p.notifications;
    // Only a list that can change is granted, and only URIs this server serves and the
    // caller may read are acknowledged (and so watched).
    let can_change = |served: bool| served && shared.live;
    let mut lists = ListFlags::default();
    let mut ack = Vec::new();
    for (asked, served, kind, key) in [
        (filter.tools_list_changed, shared.tools.is_some(), ListKind::Tools, "toolsListChanged"),
        (filter.prompts_list_changed, shared.prompts.is_some(), ListKind::Prompts, "promptsListChanged"),
        (
            filter.resources_list_changed,
            shared.resources.is_some(),
            ListKind::Resources,
            "resourcesListChanged",
        ),
    ] {
        if asked && can_change(served) {
            lists = lists.with(kind);
            ack.push(format!("\"{key}\":true"));
        }
    }
    let uris: Vec<String> = match &shared.resources {
        Some(resources) => {
            let set = resources.set.load();
            // What the caller may not read is not granted, as if nothing served it.
            let gate = super::caller::gate(shared);
            filter
                .resource_subscriptions
                .into_iter()
                .filter(|u| super::resources::readable(&set.registry, u, &gate))
                .collect()
        }
        None => Vec::new(),
    };
    if shared.resources.is_some() {
        ack.push(format!("\"resourceSubscriptions\":{}", serde_json::to_string(&uris).unwrap_or_default()));
    }
    let subscriber = Subscriber::new(reply.route().sink().clone(), Some(id.clone()), lists, true);
    for uri in &uris {
        subscriber.subscribe(uri);
    }
    let ack = format!("\"notifications\":{{{}}}", ack.join(","));
    let call = ListenCall { subscriber, ack, id, shared: shared.clone() };
    session.run(reply, p.meta.as_ref(), peer, modern, call);
}

/// One open `subscriptions/listen`: its subscriber lives as long as the request.
struct ListenCall {
    subscriber: Arc<Subscriber>,
    /// The acknowledged filter, as members of the acknowledgment's params.
    ack: String,
    /// The request id, raw JSON.
    id: String,
    shared: Arc<Shared>,
}

impl Handler for ListenCall {
    type Output = ();

    /// A listen lives until the client ends it: no slot, no deadline.
    fn bounded(&self) -> bool {
        false
    }

    fn start<'a>(&'a self, _ctx: &'a Context) -> Started<'a, ()> {
        Box::pin(async move {
            // Tracked first, then acknowledged: the acknowledgment is the first message, and
            // every change after it is announced (`Subscriber::acknowledge`).
            self.shared.subscriptions.add(&self.subscriber);
            self.subscriber.acknowledge(&self.ack);
            // Until the client ends it, or the server ends every listen (a drain).
            self.shared.subscriptions.listens_ended().await;
        })
    }

    /// The server ended the subscription (shutdown, deadline): a graceful closure.
    fn finish(&self, _outcome: Result<(), Stop>, _modern: Option<&RawValue>) -> Result<String, RpcError> {
        Ok(format!(
            "{{\"resultType\":\"complete\",\"_meta\":{{\"io.modelcontextprotocol/subscriptionId\":{}}}}}",
            self.id
        ))
    }
}
