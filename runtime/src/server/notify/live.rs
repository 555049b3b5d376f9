//! Registries that change while serving: adding and removing tools, resources (and
//! templates) and prompts on a running [`Server`], and telling every session so
//! (`notifications/*/list_changed`). Module `listen` serves `subscriptions/listen`, the
//! 2026-07-28 channel that carries those changes and resource updates.
//!
//! A server is live only when built so ([`ServerBuilder::live`](crate::server::ServerBuilder::live)):
//! it then advertises `listChanged: true` for each capability it serves, and the sets behind
//! them are held in a [`Swap`](crate::server::capability::swap::Swap). A server that never changes keeps
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

use std::sync::Arc;

use crate::prompt::{Prompt, PromptRegistryError};
use crate::registry::{RegistryError, ToolRegistry};
use crate::resource::{Resource, ResourceRegistryError, ResourceTemplate};
use crate::tool::Tool;

use super::fanout::{ChangedList, Notice};
use super::subscriptions::ListKind;
use crate::server::engine::Server;
use crate::server::serving::Serving;

/// Why a live change was refused. Nothing changed, and nothing was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LiveError {
    /// The server was not built with [`ServerBuilder::live`](crate::server::ServerBuilder::live).
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
        let serving: &Serving = &$server.serving;
        let Some($cap) = &serving.$field else {
            return Err(LiveError::NotServed { capability: $capability });
        };
        match $cap.set.update(|$old| $body) {
            None => Err(LiveError::NotLive { capability: $capability }),
            Some(Err(e)) => Err(e),
            Some(Ok(changed)) => {
                if changed {
                    let sent = serving.raise(Notice::ListChanged(ChangedList::of($kind)));
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
