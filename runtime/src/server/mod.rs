//! The dispatch engine: a [`Server`] serving what was registered (today: a [`ToolRegistry`])
//! over MCP, in both protocol eras, independent of any transport.
//!
//! A transport creates a [`Session`] per connection and feeds it one message at a time with
//! [`Session::handle`]; answers come back through a [`Sink`], zero or more per message. The
//! engine owns the protocol (lifecycle, version negotiation, routing), the error contract of
//! `tools/call`, concurrency, cancellation and progress; a transport owns only framing.
//!
//! Everything the server advertises is serialised once, in [`ServerBuilder::build`]: the
//! capabilities, the list pages (copied out as bytes), the lifecycle answers. No schema work
//! happens per request.
//!
//! # Fixed or live
//!
//! What a server serves is fixed unless it is built with [`ServerBuilder::live`]. The
//! decision is the program's, made once, because it changes what the server promises: only
//! a live server advertises `listChanged: true` (on `tools`, `resources` and `prompts`,
//! whichever it serves), and only a live one accepts [`Server::add_tool`],
//! [`Server::remove_tool`] and their resource and prompt twins (a fixed one refuses with
//! [`LiveError::NotLive`]). A server that never changes keeps `listChanged: false`, its
//! byte-exact answers, and borrows its sets with no synchronisation at all; a live one
//! holds each capability's set (registry and pages) in a `swap::Swap`, rebuilt whole on a
//! change and swapped in, so `tools/call` pays one `Arc` clone under a read lock, and a call
//! in flight finishes on the tool it started with. The change is then announced
//! (`notifications/*/list_changed`) to every initialized session that has a channel
//! outside calls (stdout; an HTTP session's GET stream) and to every 2026-07-28
//! `subscriptions/listen` that asked (module `live`).
//!
//! - `options`: [`ServerOptions`].
//! - `policy`: [`Access`] and [`Require`], who may see and call what; enforced by `tools`,
//!   `prompts` and `resources` at list time and at call time.
//! - `exposure`: [`Exposure`], the two profiles (trusted host, untrusted callers) and the
//!   approval callback that fails closed.
//! - `rate`: [`RateLimit`], a token bucket per principal, checked before each request.
//! - `session`: [`Session`], the per-connection entry point; `caller`: who the request
//!   being dispatched is served for (its [`Principal`]).
//! - `methods`: the method table: the lifecycle methods, and one arm per capability.
//! - `era`: which era a request is served in; the params and errors every method shares.
//! - `tools`: the tools capability (`tools/list`, `tools/call` and its error contract).
//! - `prompts`: the prompts capability (`prompts/list`, `prompts/get`).
//! - `completion`: the completions capability (`completion/complete`), for prompts and
//!   resource templates.
//! - `request`: the one request path that runs user code (in-flight table, spawning, slot,
//!   deadline, cancellation, panics, progress).
//! - `listing`: pre-serialised list pages and their cursors, for any list method; a cursor
//!   from a listing since replaced gets its own -32602.
//! - `swap`: a capability's set, fixed or swapped whole when a live server changes.
//! - `live`: [`Server::add_tool`] and the other changes, their notifications, and
//!   `subscriptions/listen` (2026-07-28 resource updates and list changes).
//! - `subscriptions`: who takes which notification sent outside any call.
//! - `running`: the table of requests in flight.
//! - `sink`: [`Sink`], replies and batches.
//! - `talk`: what a legacy call sends the client and awaits (elicitation, sampling, roots,
//!   pings), the session's log level and roots cache; `logging`: `logging/setLevel`;
//! - `rounds`: a 2026-07-28 call's asks as `input_required` rounds, the body run again
//!   with the answers; `request_state`: the sealed `requestState` those rounds carry;
//!   `forward`: `tracing` events of a call forwarded to its client (opt-in).
//!
//! Imports between these run one way, `methods → live → tools → request → era → session →
//! sink → running`, with `listing` and `swap` beside `running` at the bottom; this module
//! holds what they all share ([`Server`], `Shared`).
//!
//! # Adding a capability (resources, prompts, …)
//!
//! 1. **Wire types** in `crate::protocol`: its params (`ListParams` serves every list) and
//!    its result structs, `#[derive(Serialize)]` with borrowed fields.
//! 2. **One module** beside `tools.rs`, say `resources.rs`, holding:
//!    - a struct built once from what the user registered (its registry and its
//!      `Listing`s), with an `advertise` that fills its member of
//!      `ServerCapabilities` (add the field in `protocol::lifecycle`);
//!    - `impl Listed` for its items: the result key (`"resources"`,
//!      `"resourceTemplates"`, `"prompts"`) and how one item is written;
//!    - for a method that runs user code (`resources/read`, `prompts/get`), an
//!      `impl Handler`: start the code with the `Context`, and turn its outcome (or the
//!      `Stop` that interrupted it) into the result body. Then
//!      `session.run(reply, meta, peer, modern, handler)` gives it the in-flight table,
//!      cancellation, the deadline, panic catching and progress;
//!    - `fn request(session, &Self, reply, method, params)`, answering its methods; each
//!      starts with `decode_params` and `session.served(..)` (see `era`).
//! 3. **One setter** on [`ServerBuilder`] and one `Option` field in `Shared`; `build`
//!    constructs it and calls its `advertise`.
//! 4. **One arm** in `methods.rs`: `"resources/list" | "resources/read" | …`, delegating to
//!    the module, or -32601 when nothing was registered.
//! 5. **Tests** in `tests.rs`, and the method table in `methods.rs`.
//!
//! Transports need nothing: they frame messages and never look at methods.

mod caller;
mod completion;
mod era;
mod exposure;
mod fanout;
mod forward;
mod listing;
mod live;
mod logging;
mod methods;
mod options;
mod output_check;
mod policy;
mod prompts;
mod rate;
mod request;
mod request_state;
mod resources;
mod rounds;
mod running;
mod session;
mod sink;
mod subscriptions;
mod swap;
mod talk;
#[cfg(test)]
mod tests;
mod tools;

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::Semaphore;

use crate::principal::Principal;
use crate::prompt::PromptRegistry;
use crate::protocol::lifecycle::{EmptyCapability, ServerCapabilities, discover_result};
use crate::protocol::meta::{EmptyResult, ModernResult, ResultMeta};
use crate::registry::ToolRegistry;
use crate::resource::ResourceRegistry;

pub use exposure::{
    Approval, Approve, DEFAULT_APPROVAL_TIMEOUT, DEFAULT_UNTRUSTED_RESULT_BYTES, Exposure, GatedCall,
    Untrusted,
};
pub use fanout::{ChangedList, Delivery, Fanout, Notice};
pub use live::LiveError;
pub use options::{
    DEFAULT_CLIENT_REQUEST_TIMEOUT, DEFAULT_LIST_TTL, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_INPUT_ROUNDS,
    DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE, DEFAULT_REQUEST_STATE_TTL, DEFAULT_SHUTDOWN_GRACE,
    ServerOptions,
};
pub use policy::{Access, Require};
#[cfg(feature = "http")]
pub(crate) use rate::refusal_message as rate_refusal_message;
pub use rate::{RATE_LIMITED, RateLimit};
#[cfg(feature = "http")]
pub(crate) use request::polling_in_handler;
pub(crate) use request::polling_inline;
pub use session::Session;
#[cfg(feature = "http")]
pub(crate) use session::Settled;
pub use sink::Sink;
#[cfg(feature = "http")]
pub(crate) use subscriptions::{Recheck, Reread};

use completion::CompletionTable;
use prompts::Prompts;
use resources::Resources;
use subscriptions::Subscriptions;
use tools::Tools;

/// Serves tools over MCP, in both protocol eras. Build one with [`Server::builder`] (or
/// [`Server::new`], for tools only).
///
/// Cheap to clone: clones share the registry, the pre-serialised listing, the in-flight
/// bound and the call counter.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolwire::protocol::Outbound;
/// use toolwire::server::Sink;
/// use toolwire::{Server, ServerOptions, tool, tools};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let server = Server::new(tools![hello].unwrap(), ServerOptions::new("demo", "0.1.0"));
/// let session = server.session();
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink: Arc<dyn Sink> = { let seen = seen.clone(); Arc::new(move |m: Outbound| seen.lock().unwrap().push(m.into_string())) };
/// session.handle(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &sink);
/// assert_eq!(seen.lock().unwrap()[0], r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
/// # });
/// ```
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools = self.shared.tools.as_ref().map(|t| t.set.load().names.clone()).unwrap_or_default();
        f.debug_struct("Server")
            .field("name", &self.shared.options.name())
            .field("version", &self.shared.options.version())
            .field("tools", &tools)
            .field("live", &self.shared.live)
            .field("calls_seen", &self.calls_seen())
            .finish_non_exhaustive()
    }
}

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
    /// The tools capability, when tools were registered.
    pub(crate) tools: Option<Tools>,
    /// The resources capability, when resources were registered.
    pub(crate) resources: Option<Resources>,
    /// The prompts capability, when prompts were registered.
    pub(crate) prompts: Option<Prompts>,
    /// The completions capability, when something completes.
    pub(crate) completion: Option<CompletionTable>,
    /// Whether what is served can change while serving ([`ServerBuilder::live`]).
    pub(crate) live: bool,
    /// Who takes which notifications sent outside any call: resource updates, list changes.
    pub(crate) subscriptions: Subscriptions,
    pub(crate) permits: Semaphore,
    /// The dispatcher calls are polled under when `forward_tracing` is on (made at the first
    /// forwarded call; see `forward`).
    pub(crate) forward: OnceLock<tracing::Dispatch>,
    /// Who a request is served for when the transport names no one (stdio): the host.
    pub(crate) host_principal: Arc<Principal>,
    /// Who may see and call what ([`ServerBuilder::authorize`]).
    pub(crate) access: Option<Arc<Access>>,
    /// Requests per principal ([`ServerBuilder::rate_limit`]).
    pub(crate) limiter: Option<rate::Limiter>,
    /// Who the callers are when the transport does not say ([`ServerBuilder::exposure`]).
    pub(crate) exposure: Arc<Exposure>,
    /// Where notices go besides this process's subscribers ([`ServerBuilder::fanout`]).
    pub(crate) fanout: Option<Arc<dyn Fanout>>,
}

/// Builds a [`Server`] from what it serves: [`tools`](Self::tools) now, resources and
/// prompts beside them later. Each registered capability is advertised; a method of one
/// that was not registered is -32601.
///
/// ```
/// use toolwire::{Server, ServerOptions, tool, tools};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// let server = Server::builder(ServerOptions::new("demo", "0.1.0"))
///     .tools(tools![hello].unwrap())
///     .build();
/// assert_eq!(server.registry().len(), 1);
/// ```
#[derive(Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ServerBuilder {
    options: ServerOptions,
    tools: Option<ToolRegistry>,
    resources: Option<ResourceRegistry>,
    prompts: Option<PromptRegistry>,
    live: bool,
    host_principal: Option<Arc<Principal>>,
    access: Option<Arc<Access>>,
    rate_limit: Option<RateLimit>,
    exposure: Option<Exposure>,
    fanout: Option<FanoutHandle>,
}

/// The [`Fanout`] a builder was given (its `Debug` names no contents).
#[derive(Clone)]
struct FanoutHandle(Arc<dyn Fanout>);

impl std::fmt::Debug for FanoutHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Fanout")
    }
}

impl ServerBuilder {
    /// Let what the server serves change while it serves: tools, resources (and templates)
    /// and prompts can then be added and removed on the running [`Server`]
    /// ([`Server::add_tool`], [`Server::remove_tool`], [`Server::add_resource`],
    /// [`Server::add_prompt`], …), each change announced to every session with its
    /// `notifications/*/list_changed`.
    ///
    /// Opt-in, so that a server whose set is fixed says so: only a live server advertises
    /// `listChanged: true` (for each capability it serves), and only a live one pays for it
    /// (an `Arc` cloned under a read lock per request, instead of a plain borrow). Register
    /// an empty registry for a capability that starts empty and fills later.
    pub fn live(mut self) -> ServerBuilder {
        self.live = true;
        self
    }

    /// Serve `registry`'s tools (`tools/list`, `tools/call`), and advertise `tools`. An empty
    /// registry is still advertised: the server serves tools, none yet.
    pub fn tools(mut self, registry: ToolRegistry) -> ServerBuilder {
        self.tools = Some(registry);
        self
    }

    /// Serve `registry`'s resources and templates (`resources/list`,
    /// `resources/templates/list`, `resources/read`, subscriptions), and advertise
    /// `resources` with `subscribe: true`.
    pub fn resources(mut self, registry: ResourceRegistry) -> ServerBuilder {
        self.resources = Some(registry);
        self
    }

    /// Serve `registry`'s prompts (`prompts/list`, `prompts/get`), and advertise `prompts`;
    /// their arguments' completers (`completion/complete`) are served too, and
    /// `completions` advertised, when any prompt has one.
    pub fn prompts(mut self, registry: PromptRegistry) -> ServerBuilder {
        self.prompts = Some(registry);
        self
    }

    /// Who calls when the transport does not say (stdio, and [`Session::handle`]): the
    /// principal every tool then reads from [`Context::principal`](crate::Context::principal).
    /// The host fixes it; a client never can. Without this it is [`Principal::host`], which
    /// no authorization rule refuses. An HTTP endpoint sets each request's own, from its
    /// authenticator.
    pub fn host_principal(mut self, principal: Principal) -> ServerBuilder {
        self.host_principal = Some(Arc::new(principal));
        self
    }

    /// Enforce `access`: each tool, prompt and resource is listed to, and callable by, only
    /// the principals its rule allows; to every other it does not exist (module `policy`).
    pub fn authorize(mut self, access: Access) -> ServerBuilder {
        self.access = Some(Arc::new(access));
        self
    }

    /// Limit each principal (by subject) to `limit`: a request over it is refused before it
    /// runs, with the delay until the next is allowed (HTTP: 429 and `Retry-After`; stdio:
    /// the JSON-RPC error [`RATE_LIMITED`] with `data.retryAfterMs`). See module `rate`.
    pub fn rate_limit(mut self, limit: RateLimit) -> ServerBuilder {
        self.rate_limit = Some(limit);
        self
    }

    /// Who the callers of a session are when its transport does not say (stdio, and
    /// [`Session::handle`]): [`Exposure::TrustedHost`] unless set. A router a user mounts
    /// names its own ([`mcp_router`](crate::http::mcp_router)).
    pub fn exposure(mut self, exposure: Exposure) -> ServerBuilder {
        self.exposure = Some(exposure);
        self
    }

    /// Publish the notifications sent outside any call (`notifications/resources/updated`
    /// from [`Server::notify_resource_updated`], and a live server's
    /// `notifications/*/list_changed`) on `fanout` too, and deliver what other replicas
    /// publish on it to this server's subscribers (module `fanout`). Without it they reach
    /// this process's subscribers only.
    pub fn fanout(mut self, fanout: Arc<dyn Fanout>) -> ServerBuilder {
        self.fanout = Some(FanoutHandle(fanout));
        self
    }

    /// The server. Serialises the capabilities, the listings and the lifecycle answers now,
    /// once.
    pub fn build(self) -> Server {
        let ServerBuilder {
            options,
            tools,
            resources,
            prompts,
            live,
            host_principal,
            access,
            rate_limit,
            exposure,
            fanout,
        } = self;
        // Scopes a tool declares are enforced by an `Access`: a server given none gets an
        // empty one, so a declaration is never silently ignored. A live server may be given
        // a tool that declares scopes later, so it always gets one.
        let declares_scopes = tools
            .as_ref()
            .is_some_and(|t| t.iter().any(|tool| !tool.info().declarations().scopes.is_empty()));
        let access = access.or_else(|| (declares_scopes || live).then(|| Arc::new(Access::new())));
        let modern_meta = raw(&ResultMeta { server_info: options.info.wire() });
        let (page_size, ttl) = (options.page_size, options.list_ttl);
        let tools = tools.map(|registry| Tools::new(registry, page_size, &modern_meta, ttl, live));

        let mut completion = CompletionTable::default();
        if let Some(registry) = &prompts {
            completion.add_prompts(registry);
        }
        // Resource templates add their variables' completers: what was registered at build
        // time. A template or prompt added to a live server later has no completers: its
        // completion/complete is the unknown-reference error (the table is built once, here).
        if let Some(registry) = &resources {
            for (target, variables, completers) in registry.completion_targets() {
                completion.add(target, variables, completers);
            }
        }
        let resources =
            resources.map(|registry| Resources::new(registry, page_size, &modern_meta, ttl, live));
        let completion = completion.completes().then_some(completion);
        let prompts = prompts.map(|registry| Prompts::new(registry, page_size, &modern_meta, ttl, live));

        // Any tool may log through its `Context`, so every server serves `logging/setLevel`.
        let mut capabilities =
            ServerCapabilities { logging: Some(EmptyCapability {}), ..ServerCapabilities::default() };
        if let Some(tools) = &tools {
            tools.advertise(&mut capabilities);
        }
        if let Some(resources) = &resources {
            resources.advertise(&mut capabilities);
        }
        if let Some(prompts) = &prompts {
            prompts.advertise(&mut capabilities);
        }
        if let Some(completion) = &completion {
            completion.advertise(&mut capabilities);
        }
        let capabilities = raw(&capabilities);

        let discover = discover_result(&capabilities, options.instructions.as_deref(), options.list_ttl);
        let discover_body = text(&ModernResult::complete(&modern_meta, &discover));
        let modern_empty = text(&ModernResult::complete(&modern_meta, &EmptyResult {}));
        let permits = Semaphore::new(options.max_in_flight.min(Semaphore::MAX_PERMITS));
        let fanout = fanout.map(|f| f.0);
        let server = Server {
            shared: Arc::new(Shared {
                options,
                capabilities,
                modern_meta,
                discover_body,
                modern_empty,
                tools,
                resources,
                prompts,
                completion,
                live,
                subscriptions: Subscriptions::default(),
                permits,
                forward: OnceLock::new(),
                host_principal: host_principal.unwrap_or_else(Principal::shared_host),
                access,
                limiter: rate_limit.map(rate::Limiter::new),
                exposure: Arc::new(exposure.unwrap_or(Exposure::TrustedHost)),
                fanout,
            }),
        };
        if let Some(fanout) = &server.shared.fanout {
            fanout.attach(Delivery::new(&server.shared));
        }
        server
    }
}

/// Serialise one of the engine's own bodies: plain structs of strings, numbers and valid raw
/// JSON, which always serialise.
fn text<T: serde::Serialize>(body: &T) -> String {
    serde_json::to_string(body).expect("the engine's own bodies always serialise")
}

/// [`text`], kept as raw JSON for embedding.
fn raw<T: serde::Serialize>(body: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(body).expect("the engine's own bodies always serialise")
}

impl Server {
    /// Start building a server that runs under `options`; say what it serves with the
    /// builder's setters.
    pub fn builder(options: ServerOptions) -> ServerBuilder {
        ServerBuilder {
            options,
            tools: None,
            resources: None,
            prompts: None,
            live: false,
            host_principal: None,
            access: None,
            rate_limit: None,
            exposure: None,
            fanout: None,
        }
    }

    /// A server for `registry`: `Server::builder(options).tools(registry).build()`.
    pub fn new(registry: ToolRegistry, options: ServerOptions) -> Server {
        Server::builder(options).tools(registry).build()
    }

    /// A new session: one connection's state (its handshake, its calls in flight).
    pub fn session(&self) -> Session {
        Session::new(self.shared.clone())
    }

    /// A legacy session already through its handshake at `version`, for a request that
    /// arrives without one (stateless HTTP): what `initialize` and
    /// `notifications/initialized` would have settled, without building and discarding
    /// their answers. The client is unknown (no `clientInfo` was sent).
    #[cfg(feature = "http")]
    pub(crate) fn session_without_handshake(&self, version: crate::protocol::ProtocolVersion) -> Session {
        Session::already_initialized(self.shared.clone(), version)
    }

    /// A legacy session re-made from the state a shared session store kept for it.
    #[cfg(feature = "http")]
    pub(crate) fn restore_session(&self, settled: Settled) -> Session {
        Session::restored(self.shared.clone(), settled)
    }

    /// How many `tools/call` requests this server has seen, whatever became of them. A
    /// count of zero means no call ever reached the server, which is a different bug from
    /// calls that failed.
    pub fn calls_seen(&self) -> u64 {
        self.shared.tools.as_ref().map_or(0, |t| t.calls_seen.load(Ordering::Relaxed))
    }

    /// End every 2026-07-28 `subscriptions/listen` of this server, those open now and any
    /// opened later, gracefully: each is answered with its completion result (the spec's
    /// graceful closure, `{"resultType":"complete"}` with its subscription id), so its stream
    /// ends and the client knows to listen again (on HTTP, on another replica). For a
    /// shutdown: a [`Drain`](crate::http::Drain) calls it when it begins, since a listen
    /// never ends by itself and would otherwise hold the drain for its whole grace.
    pub fn end_listens(&self) {
        self.shared.subscriptions.end_listens();
    }

    /// Tell every subscriber of `uri` that it changed: `notifications/resources/updated` to
    /// each legacy session that sent `resources/subscribe` for it, and on each open
    /// 2026-07-28 `subscriptions/listen` that named it. Returns how many were sent from this
    /// process (0 when the server serves no resources). A server given a
    /// [`fanout`](ServerBuilder::fanout) publishes the update on it too, for the other
    /// replicas' subscribers.
    pub fn notify_resource_updated(&self, uri: &str) -> usize {
        if self.shared.resources.is_none() {
            return 0;
        }
        fanout::raise(&self.shared, Notice::ResourceUpdated { uri: uri.to_owned() })
    }

    /// Take a cell of `principal`'s rate limit, or say how long until one is free (a
    /// transport that answers the refusal itself, as HTTP's 429 does).
    #[cfg(feature = "http")]
    pub(crate) fn admit(&self, principal: &Principal) -> Result<(), Duration> {
        match &self.shared.limiter {
            Some(limiter) => limiter.check(principal),
            None => Ok(()),
        }
    }

    /// The principal a request is served for when its transport names none.
    #[cfg(feature = "http")]
    pub(crate) fn host_principal(&self) -> Arc<Principal> {
        Arc::clone(&self.shared.host_principal)
    }

    /// The options the server runs under.
    pub fn options(&self) -> &ServerOptions {
        &self.shared.options
    }

    /// The tools served now (empty when the server serves none). A live server's may
    /// change after this returns; the registry returned does not.
    pub fn registry(&self) -> Arc<ToolRegistry> {
        static NONE: OnceLock<Arc<ToolRegistry>> = OnceLock::new();
        match &self.shared.tools {
            Some(tools) => Arc::clone(&tools.set.load().registry),
            None => Arc::clone(NONE.get_or_init(|| Arc::new(ToolRegistry::new()))),
        }
    }
}

/// Why a server-to-client `ping` got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PingError {
    /// The session has not completed the legacy handshake; a modern server sends no requests.
    #[error("the client cannot be pinged: no legacy session is initialized")]
    NotInitialized,
    /// No answer within the timeout.
    #[error("the client did not answer a ping within {0:?}")]
    TimedOut(Duration),
    /// The client answered with an error.
    #[error("the client answered a ping with error {code:?}: {message}")]
    Refused {
        /// The error code, when it sent an integer.
        code: Option<i64>,
        /// The error message.
        message: String,
    },
}
