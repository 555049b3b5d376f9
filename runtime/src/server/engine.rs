//! [`Server`], the built engine every transport serves, and [`ServerBuilder`], which builds
//! it: everything a server advertises is serialised once, in [`ServerBuilder::build`] (the
//! capabilities, the list pages, copied out as bytes, and the lifecycle answers), so no
//! schema work happens per request.

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
#[cfg(feature = "http")]
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::Semaphore;

use crate::principal::Principal;
use crate::prompt::PromptRegistry;
use crate::protocol::lifecycle::{EmptyCapability, ServerCapabilities, discover_result};
use crate::protocol::meta::{EmptyResult, ModernResult, ResultMeta};
use crate::registry::ToolRegistry;
use crate::resource::ResourceRegistry;
use crate::skills::SkillCatalog;

use super::access::exposure::Exposure;
use super::access::policy::{Access, MissingScopes};
use super::access::rate::{self, RateLimit};
use super::capability::completion::CompletionTable;
use super::capability::prompts::Prompts;
use super::capability::resources::Resources;
use super::capability::skills::Skills;
use super::capability::tools::Tools;
use super::dispatch::session::Session;
#[cfg(feature = "http")]
use super::dispatch::state::Settled;
use super::intercept::{Interceptor, Interceptors};
use super::notify::fanout::{Delivery, Fanout, Notice};
use super::notify::subscriptions::Subscriptions;
use super::options::ServerOptions;
use super::serving::Serving;
use super::shared::Shared;
use super::task::store::TaskStore;
use super::task::tasks::Tasks;
use crate::protocol::wire::TASKS_EXTENSION;
use crate::tool::TaskSupport;

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
    pub(crate) serving: Arc<Serving>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools = self.serving.tools.as_ref().map(|t| t.set.load().names.clone()).unwrap_or_default();
        f.debug_struct("Server")
            .field("name", &self.serving.shared.options.name())
            .field("version", &self.serving.shared.options.version())
            .field("tools", &tools)
            .field("live", &self.serving.shared.live)
            .field("calls_seen", &self.calls_seen())
            .finish_non_exhaustive()
    }
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
    skills: Option<SkillCatalog>,
    live: bool,
    host_principal: Option<Arc<Principal>>,
    access: Option<Arc<Access>>,
    rate_limit: Option<RateLimit>,
    exposure: Option<Exposure>,
    fanout: Option<FanoutHandle>,
    interceptors: Interceptors,
    #[cfg(feature = "tower")]
    layers: Option<super::layer::Stack>,
    missing_scopes: MissingScopes,
    task_store: Option<TaskStoreHandle>,
}

/// The [`TaskStore`] a builder was given (its `Debug` names no contents).
#[derive(Clone)]
struct TaskStoreHandle(Arc<dyn TaskStore>);

impl std::fmt::Debug for TaskStoreHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TaskStore")
    }
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

    /// Serve `catalog`'s skills (the Skills extension, SEP-2640): `skills/list`, `skills/get`
    /// and `resources/directory/read`, and each skill's files as resources (each `SKILL.md`
    /// listed, every file read through the template `skill://{+path}`), beside any given to
    /// [`resources`](Self::resources). Declares
    /// `extensions["io.modelcontextprotocol/skills"]` with `directoryRead: true`, and
    /// `resources`.
    ///
    /// # Panics
    ///
    /// [`build`](Self::build) panics if the server's own resources already hold a skill's
    /// `SKILL.md` URI or the template `skill://{+path}`.
    ///
    /// ```
    /// use toolwire::skills::SkillCatalog;
    /// use toolwire::{Server, ServerOptions};
    ///
    /// let mut catalog = SkillCatalog::new();
    /// catalog
    ///     .add("greet", [("SKILL.md", "---\nname: greet\ndescription: Greet people\n---\nSay hello.\n")])
    ///     .unwrap();
    /// let server = Server::builder(ServerOptions::new("demo", "0.1.0")).skills(catalog).build();
    /// # drop(server);
    /// ```
    pub fn skills(mut self, catalog: SkillCatalog) -> ServerBuilder {
        self.skills = Some(catalog);
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
    /// the JSON-RPC error [`RATE_LIMITED`](crate::server::RATE_LIMITED) with `data.retryAfterMs`). See module `rate`.
    pub fn rate_limit(mut self, limit: RateLimit) -> ServerBuilder {
        self.rate_limit = Some(limit);
        self
    }

    /// Who the callers are. Said once, here: every way of serving the built server (stdio,
    /// the HTTP endpoint and its router, the agent-CLI spec, the `serve_registry!` main)
    /// serves it with this one.
    ///
    /// Unsaid, it is [`Exposure::TrustedHost`] (the program's own agent) everywhere but on
    /// a listener others can reach: [`http::serve`](crate::http::serve), the spec and the
    /// `--http` main bound to an address that is not loopback serve
    /// [`Exposure::untrusted_callers`] until this says otherwise. A router mounted in an app
    /// of one's own ([`mcp_router`](crate::http::mcp_router)) cannot know its address: it
    /// serves the trusted host unless this says otherwise, so an app reached over a network
    /// says `.exposure(Exposure::untrusted_callers())`.
    pub fn exposure(mut self, exposure: Exposure) -> ServerBuilder {
        self.exposure = Some(exposure);
        self
    }

    /// What a caller reads of a tool it lacks a scope for: [`MissingScopes::Hide`] (the
    /// default: the tool does not exist for it, right for untrusted callers) or
    /// [`MissingScopes::StepUp`] (listed, and a call is refused with the scopes it needs:
    /// over HTTP a 403 `insufficient_scope` challenge an OAuth client steps up on). See
    /// module `policy`.
    pub fn missing_scopes(mut self, choice: MissingScopes) -> ServerBuilder {
        self.missing_scopes = choice;
        self
    }

    /// See every request before it is served, with `interceptor`: it may answer it, refuse
    /// it, or pass it on and watch how it ends (module [`intercept`](crate::server::Interceptor)).
    /// Called again, the interceptors run in the order they were installed. A server with
    /// none pays one branch per request.
    pub fn intercept(mut self, interceptor: impl Interceptor) -> ServerBuilder {
        self.interceptors.push(Arc::new(interceptor));
        self
    }

    /// Serve every request through `layer`, a [`tower::Layer`] (feature `tower`): the tower
    /// middleware a Rust program puts around its axum handlers (`TimeoutLayer`,
    /// `ConcurrencyLimitLayer`, `LoadShedLayer`, its own) put around MCP requests, over every
    /// transport: one [`McpRequest`](super::McpRequest) per JSON-RPC request (a stdio server
    /// has no HTTP requests, and a batch is several), answered with an
    /// [`McpResponse`](super::McpResponse).
    ///
    /// # Where it sits
    ///
    /// After the rate limit (a request over it is refused before any layer sees it) and
    /// outside the interceptors: the layer wraps [`Next`](super::Next), which serves the
    /// request as the server would without layers, the interceptors' rulings first, then the
    /// method table. An interceptor's [`Watch`](super::Watch) is told the engine's outcome,
    /// not what a layer made of it: a call a timeout ended is [`Outcome::Unanswered`](super::Outcome::Unanswered)
    /// to it. Called again, the new layer wraps the ones before it (the last installed is
    /// the outermost, as with axum's `Router::layer`); `tower::ServiceBuilder` stacks several
    /// in reading order.
    ///
    /// # Errors
    ///
    /// The layer's service may fail with any error that is `Into<tower::BoxError>`; the
    /// client reads a JSON-RPC error naming the request:
    ///
    /// | the layer's error | code | message |
    /// | --- | --- | --- |
    /// | tower's `Elapsed` (`TimeoutLayer`) | [`TIMED_OUT`](super::TIMED_OUT) | `tools/call of 'slow' timed out: the server's time limit for a request passed before it was answered` |
    /// | tower's `Overloaded` (`LoadShedLayer`) | [`OVERLOADED`](super::OVERLOADED) | `tools/call of 'slow' was not served: the server is at capacity; try again later` |
    /// | a [`RpcError`](crate::protocol::RpcError) | its own | its own |
    /// | anything else | -32603 | `internal error: tools/call of 'slow' failed in a server layer: <the error>` |
    ///
    /// (tower 0.5's types; a layer of another tower major version fails with types of its
    /// own, and reads as the last row.)
    ///
    /// # Cancellation
    ///
    /// Dropping `Next`'s future before it completes (a timeout does) cancels the request in
    /// the engine as a client's `notifications/cancelled` would: the tool's
    /// [`Context`](crate::Context) token is cancelled and its body dropped. A client's
    /// cancellation of a request the engine serves ends it with no answer
    /// ([`McpResponse::is_unanswered`](super::McpResponse::is_unanswered)), and nothing is
    /// sent. A request a layer still holds (waiting for a `ConcurrencyLimit` permit) is not
    /// in flight yet: a `notifications/cancelled` does not reach it, but a session draining
    /// (stdin closed) waits for it, within its grace, as for a call in flight. Every request
    /// goes through, `subscriptions/listen` too: a timeout ends that stream as well.
    ///
    /// # Cost
    ///
    /// A server with no layer pays nothing for this: the one branch every request pays for
    /// the seam, shared with the interceptors. With one, each request is copied into an
    /// owned `McpRequest` and served through a clone of the layered service, polled once in
    /// place and spawned only if it waits; a `tools/call` is read the general way (as with
    /// an interceptor). A request no layer holds up is answered in that poll, before the
    /// next message is read, as without layers; one a layer holds up (a permit it waits for)
    /// may be answered after later ones, and a notification behind it (a
    /// `notifications/initialized` pipelined behind its `initialize`) handled first.
    ///
    /// ```
    /// # use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    ///
    /// use tower::{Service, ServiceExt, layer::layer_fn, service_fn, timeout::TimeoutLayer};
    /// use toolwire::server::{McpRequest, McpResponse, Next, Server};
    /// use toolwire::{ServerOptions, tool, tools};
    /// # use toolwire::{protocol::Outbound, server::Sink};
    ///
    /// /// Take a long time.
    /// #[tool(read_only)]
    /// async fn slow() -> String {
    ///     tokio::time::sleep(Duration::from_secs(60)).await;
    ///     "done".into()
    /// }
    ///
    /// // A layer of the program's own: no `deploy` through this server, whatever the tool list says.
    /// let frozen = layer_fn(|next: Next| {
    ///     service_fn(move |request: McpRequest| {
    ///         let next = next.clone();
    ///         async move {
    ///             if request.method() == "tools/call" && request.name() == Some("deploy") {
    ///                 return Ok(McpResponse::error(request.refusal("deploys are frozen")));
    ///             }
    ///             next.oneshot(request).await
    ///         }
    ///     })
    /// });
    /// let server = Server::builder(ServerOptions::new("demo", "1.0.0"))
    ///     .tools(tools![slow].unwrap())
    ///     .layer(frozen)
    ///     .layer(TimeoutLayer::new(Duration::from_millis(50)))
    ///     .build();
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// # let session = server.session();
    /// # let seen = Arc::new(Mutex::new(Vec::new()));
    /// # let sink: Arc<dyn Sink> = { let seen = seen.clone(); Arc::new(move |m: Outbound| seen.lock().unwrap().push(m.into_string())) };
    /// # session.handle(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#, &sink);
    /// # session.handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &sink);
    /// # session.handle(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{}}}"#, &sink);
    /// # session.handle(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#, &sink);
    /// # while seen.lock().unwrap().len() < 3 { tokio::time::sleep(Duration::from_millis(10)).await; }
    /// # let seen = seen.lock().unwrap();
    /// // A call of `deploy` reads:
    /// # assert_eq!(seen[1],
    /// r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32030,"message":"tools/call of 'deploy' refused: deploys are frozen"}}"#
    /// # );
    /// // and one of `slow`, 50 ms later (its body dropped):
    /// # assert_eq!(seen[2],
    /// r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32033,"message":"tools/call of 'slow' timed out: the server's time limit for a request passed before it was answered"}}"#
    /// # );
    /// # });
    /// ```
    #[cfg(feature = "tower")]
    pub fn layer<L>(mut self, layer: L) -> ServerBuilder
    where
        L: tower::Layer<super::Next>,
        L::Service: tower::Service<super::McpRequest, Response = super::McpResponse> + Clone + Send + 'static,
        <L::Service as tower::Service<super::McpRequest>>::Error: Into<tower::BoxError>,
        <L::Service as tower::Service<super::McpRequest>>::Future: Send + 'static,
    {
        self.layers = Some(super::layer::Stack::new(layer, self.layers.take()));
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

    /// Keep the tasks of the tasks extension (`io.modelcontextprotocol/tasks`) in `store`
    /// instead of this process's memory: with a store the replicas share
    /// (`toolwire::redis::Redis::task_store`), a task started on one replica is read,
    /// answered and cancelled on any, and one whose replica died reads as failed.
    ///
    /// A server serves the extension (advertises it, answers `tasks/get`, `tasks/update`
    /// and `tasks/cancel`, and runs calls as tasks) when a tool it was built with allows
    /// tasks ([`TaskSupport`](crate::tool::TaskSupport)), or when it is given a store here;
    /// by default in a [`MemoryTaskStore`](super::MemoryTaskStore).
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> ServerBuilder {
        self.task_store = Some(TaskStoreHandle(store));
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
            skills,
            live,
            host_principal,
            access,
            rate_limit,
            exposure,
            fanout,
            interceptors,
            #[cfg(feature = "tower")]
            layers,
            missing_scopes,
            task_store,
        } = self;
        #[cfg(feature = "tower")]
        let seam = !interceptors.is_empty() || layers.is_some();
        #[cfg(not(feature = "tower"))]
        let seam = !interceptors.is_empty();
        // Tasks are served when a tool allows them, or when the builder was given a store.
        let allows_tasks = tools
            .as_ref()
            .is_some_and(|t| t.iter().any(|tool| tool.info().task_support() != TaskSupport::Forbidden));
        let task_store = task_store.map(|s| s.0).or_else(|| {
            allows_tasks.then(|| Arc::new(super::task::store::MemoryTaskStore::new()) as Arc<dyn TaskStore>)
        });
        let tasks = task_store.map(|store| Arc::new(Tasks::new(store, &options)));
        // Scopes a tool declares are enforced by an `Access`: a server given none gets an
        // empty one, so a declaration is never silently ignored. A live server may be given
        // a tool that declares scopes later, so it always gets one.
        let declares_scopes = tools
            .as_ref()
            .is_some_and(|t| t.iter().any(|tool| !tool.info().declarations().scopes.is_empty()));
        let mut access = access.or_else(|| (declares_scopes || live).then(|| Arc::new(Access::new())));
        if let (Some(access), MissingScopes::StepUp) = (&mut access, missing_scopes) {
            Arc::make_mut(access).set_step_up(true);
        }
        let modern_meta = raw(&ResultMeta { server_info: options.info.wire() });
        let (page_size, ttl) = (options.page_size, options.list_ttl);
        let tools = tools.map(|registry| Tools::new(registry, page_size, &modern_meta, ttl, live));

        // A skill catalog's files are resources: added to the server's own, or served alone.
        let mut resources = resources;
        if let Some(catalog) = &skills {
            let registry = resources.get_or_insert_with(ResourceRegistry::new);
            if let Err(e) = crate::skills::add_resources(catalog, registry) {
                panic!("the skill catalog's resources clash with the server's own: {e}");
            }
        }
        let skills = skills.map(|catalog| Skills::new(&catalog, page_size, &modern_meta, ttl));

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
        if let Some(skills) = &skills {
            skills.advertise(&mut capabilities);
        }
        if tasks.is_some() {
            capabilities.extensions.insert(TASKS_EXTENSION, serde_json::json!({}));
        }
        let capabilities = raw(&capabilities);

        let discover = discover_result(&capabilities, options.instructions.as_deref(), options.list_ttl);
        let discover_body = text(&ModernResult::complete(&modern_meta, &discover));
        let modern_empty = text(&ModernResult::complete(&modern_meta, &EmptyResult {}));
        let permits = Semaphore::new(options.max_in_flight.min(Semaphore::MAX_PERMITS));
        let fanout = fanout.map(|f| f.0);
        let shared = Arc::new(Shared {
            options,
            capabilities,
            modern_meta,
            discover_body,
            modern_empty,
            live,
            serves_resources: resources.is_some(),
            subscriptions: Subscriptions::default(),
            permits,
            forward: OnceLock::new(),
            host_principal: host_principal.unwrap_or_else(Principal::shared_host),
            access,
            limiter: rate_limit.map(rate::Limiter::new),
            #[cfg(feature = "http")]
            exposure_said: exposure.is_some(),
            exposure: Arc::new(exposure.unwrap_or(Exposure::TrustedHost)),
            interceptors,
            #[cfg(feature = "tower")]
            layers,
            seam,
            tasks,
        });
        if let Some(fanout) = &fanout {
            fanout.attach(Delivery::new(&shared));
        }
        Server {
            serving: Arc::new(Serving { shared, tools, resources, prompts, completion, skills, fanout }),
        }
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
            skills: None,
            live: false,
            host_principal: None,
            access: None,
            rate_limit: None,
            exposure: None,
            fanout: None,
            interceptors: Interceptors::default(),
            #[cfg(feature = "tower")]
            layers: None,
            missing_scopes: MissingScopes::Hide,
            task_store: None,
        }
    }

    /// A server for `registry`: `Server::builder(options).tools(registry).build()`.
    pub fn new(registry: ToolRegistry, options: ServerOptions) -> Server {
        Server::builder(options).tools(registry).build()
    }

    /// A new session: one connection's state (its handshake, its calls in flight).
    pub fn session(&self) -> Session {
        Session::new(self.serving.clone())
    }

    /// A legacy session already through its handshake at `version`, for a request that
    /// arrives without one (stateless HTTP): what `initialize` and
    /// `notifications/initialized` would have settled, without building and discarding
    /// their answers. The client is unknown (no `clientInfo` was sent).
    #[cfg(feature = "http")]
    pub(crate) fn session_without_handshake(&self, version: crate::protocol::ProtocolVersion) -> Session {
        Session::already_initialized(self.serving.clone(), version)
    }

    /// A legacy session re-made from the state a shared session store kept for it.
    #[cfg(feature = "http")]
    pub(crate) fn restore_session(&self, settled: Settled) -> Session {
        Session::restored(self.serving.clone(), settled)
    }

    /// How many `tools/call` requests this server has seen, whatever became of them. A
    /// count of zero means no call ever reached the server, which is a different bug from
    /// calls that failed.
    pub fn calls_seen(&self) -> u64 {
        self.serving.tools.as_ref().map_or(0, |t| t.calls_seen.load(Ordering::Relaxed))
    }

    /// End every 2026-07-28 `subscriptions/listen` of this server, those open now and any
    /// opened later, gracefully: each is answered with its completion result (the spec's
    /// graceful closure, `{"resultType":"complete"}` with its subscription id), so its stream
    /// ends and the client knows to listen again (on HTTP, on another replica). For a
    /// shutdown: a [`Drain`](crate::http::Drain) calls it when it begins, since a listen
    /// never ends by itself and would otherwise hold the drain for its whole grace.
    pub fn end_listens(&self) {
        self.serving.shared.subscriptions.end_listens();
    }

    /// Tell every subscriber of `uri` that it changed: `notifications/resources/updated` to
    /// each legacy session that sent `resources/subscribe` for it, and on each open
    /// 2026-07-28 `subscriptions/listen` that named it. Returns how many were sent from this
    /// process (0 when the server serves no resources). A server given a
    /// [`fanout`](ServerBuilder::fanout) publishes the update on it too, for the other
    /// replicas' subscribers.
    pub fn notify_resource_updated(&self, uri: &str) -> usize {
        if self.serving.resources.is_none() {
            return 0;
        }
        self.serving.raise(Notice::ResourceUpdated { uri: uri.to_owned() })
    }

    /// Take a cell of `principal`'s rate limit, or say how long until one is free (a
    /// transport that answers the refusal itself, as HTTP's 429 does).
    #[cfg(feature = "http")]
    pub(crate) fn admit(&self, principal: &Principal) -> Result<(), Duration> {
        match &self.serving.shared.limiter {
            Some(limiter) => limiter.check(principal),
            None => Ok(()),
        }
    }

    /// Who the callers of an HTTP endpoint are: what the builder said
    /// ([`ServerBuilder::exposure`]); unsaid, [`Exposure::TrustedHost`] on a loopback
    /// listener (or a router whose address is not known here) and
    /// [`Exposure::untrusted_callers`] on a listener others can reach (`network`).
    #[cfg(feature = "http")]
    pub(crate) fn exposure_on(&self, network: bool) -> Arc<Exposure> {
        let shared = &self.serving.shared;
        if network && !shared.exposure_said {
            return Arc::new(Exposure::untrusted_callers());
        }
        Arc::clone(&shared.exposure)
    }

    /// Whether the builder said who the callers are.
    #[cfg(feature = "http")]
    pub(crate) fn exposure_said(&self) -> bool {
        self.serving.shared.exposure_said
    }

    /// The principal a request is served for when its transport names none.
    #[cfg(feature = "http")]
    pub(crate) fn host_principal(&self) -> Arc<Principal> {
        Arc::clone(&self.serving.shared.host_principal)
    }

    /// The options the server runs under.
    pub fn options(&self) -> &ServerOptions {
        &self.serving.shared.options
    }

    /// The tools served now (empty when the server serves none). A live server's may
    /// change after this returns; the registry returned does not.
    pub fn registry(&self) -> Arc<ToolRegistry> {
        static NONE: OnceLock<Arc<ToolRegistry>> = OnceLock::new();
        match &self.serving.tools {
            Some(tools) => Arc::clone(&tools.set.load().registry),
            None => Arc::clone(NONE.get_or_init(|| Arc::new(ToolRegistry::new()))),
        }
    }
}
