//! The tools capability: `tools/list` from a pre-serialised [`Listing`], and `tools/call`
//! through the one request path, under the error contract. The registry and its listing are
//! one [`ToolSet`], fixed, or swapped whole when a live server's tools change (module
//! `swap`); a call takes an `Arc` of its tool before it runs.
//!
//! | what happened | the result (`isError: true` unless noted) |
//! | --- | --- |
//! | arguments rejected | the `ToolArgumentError` message verbatim |
//! | the tool returned `Err(e)` | `tool 'x' failed: <e>` |
//! | a remote (adopted) tool's server reported a failure | `tool 'x' failed on server 's'; …`, then the server's report in its untrusted-data envelope, as a second text block |
//! | the tool panicked | `tool 'x' failed: panicked: <message>`; the server serves on |
//! | the host cancelled before dispatch | `the run was cancelled; 'x' was not run` |
//! | the host cancelled mid-call | `the run was cancelled while 'x' was running` |
//! | a hand-written tool's structured output fails its `outputSchema` | `tool 'x' returned output that does not match its outputSchema: at /count: "3" is not of type "integer"` |
//! | the server's deadline fired | `tool 'x' did not return within 0.05s and was abandoned` |
//! | the client sent `notifications/cancelled` | the future is dropped; no response at all |
//! | a 2026-07-28 call asks the client something it has no answer for | not an error: `resultType: "input_required"` with the asks and a sealed `requestState` (module `rounds`) |
//! | past `max_input_rounds` rounds of that | `tool 'x' failed: still asked the client for input after 8 rounds of input_required, …` |
//! | a tool that allows tasks, called by a 2026-07-28 request that declares the tasks extension, whose body waits | not an error: `resultType: "task"`, the task's handle; the body runs on in the task (module `task::run`) |
//! | a tool that runs only as a task (`task = "required"`), called by a client that did not declare the extension | JSON-RPC -32021, `data.requiredCapabilities.extensions` naming it; the tool is not run |
//!
//! Before the tool runs, a bad `requestState` or `inputResponses` is JSON-RPC -32602 (module
//! `request_state` has the texts), and a client without a capability the tool requires
//! ([`ToolInfo::requires_client`]) is -32021 with `data.requiredCapabilities`.
//!
//! (An unknown tool never gets here: it is JSON-RPC -32602, answered before dispatch; so is a
//! tool the caller may not use, with the same bytes: module `policy`.) Untrusted callers
//! (module `exposure`) read `tool 'x' failed` for a failure or a panic, `tool 'x' was not
//! approved` for a refused approval, and a tool error for a result over the cap.
//!
//! The deadline clock starts when the call is dispatched, after it got its in-flight slot.
//!
//! This module is the model for every capability: a struct built once from what was
//! registered ([`Tools`]), what it adds to `capabilities`, its [`Listed`] items, its
//! [`Handler`], and one `request` fn that answers its methods.

use std::borrow::Cow;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;

use crate::args::{PyList, PyStr};
use crate::by_name::ByName;
use crate::context::Context;
use crate::json::{canonical_json, push_json_string};
use crate::protocol::code;
use crate::protocol::lifecycle::{ListChangedCapability, ServerCapabilities};
use crate::protocol::meta::ModernResult;
use crate::protocol::methods;
use crate::protocol::outbound::RESULT_ROOM;
use crate::protocol::tools::CallToolParams;
use crate::protocol::wire::TASK;
use crate::protocol::{ClientCapabilities, ClientCapability, RpcError};
use crate::registry::ToolRegistry;
use crate::state::StateMap;
use crate::sync::lock;
use crate::tool::{
    Content, Declarations, META_KEY, TaskSupport, Tool, ToolError, ToolFuture, ToolInfo, ToolOutput,
};

use super::listing::{Listed, Listing};
use super::output_check::OutputCheck;
use super::swap::Swap;
use crate::server::access::caller::Caller;
use crate::server::access::exposure::{Approval, Exposure, GatedCall, approved};
use crate::server::access::policy::{Views, insufficient_scope, mask};
use crate::server::dispatch::era::{decode_params, method_not_found};
use crate::server::dispatch::sink::Reply;
use crate::server::dispatch::state::SessionInner;
use crate::server::run::request::{Handler, Stop};
use crate::server::run::rounds::{Retry, Round, RoundCall};
use crate::server::task::methods::missing_extension;
use crate::server::task::run::{self as task_run, TaskBody, TaskCaller, TaskEnd, until_first_wait};
use crate::server::task::tasks::{Tasks, too_many_tasks};

/// What a server serving tools holds: the current [`ToolSet`] (fixed, or swapped whole when
/// a live server's tools change), and what a rebuilt listing needs.
pub(crate) struct Tools {
    pub(crate) set: Swap<ToolSet>,
    /// Every `tools/call` seen, whatever became of it.
    pub(crate) calls_seen: AtomicU64,
    page_size: usize,
    modern_meta: Box<RawValue>,
    ttl: std::time::Duration,
}

/// The tools served at one moment: the registry, its names and its listing serialised once.
///
/// The listing is serialised on the first `tools/list` (or when a live server replaces the
/// set), not when the server is built: a server's start-up and its `initialize` answer do not
/// pay for it (15k instructions for one tool, bench/results.md). A tool whose listing entry
/// does not serialise is therefore logged at the first `tools/list`; duplicates and bad
/// names are still refused when the registry is built, before serving.
pub(crate) struct ToolSet {
    pub(crate) registry: Arc<ToolRegistry>,
    pub(crate) names: Vec<String>,
    listing: OnceLock<Listing>,
    /// What the listing remembers as replaced ([`Listing::history`] of the set this one
    /// replaced), applied when it is built.
    replaced: Vec<String>,
    /// The output checks of the tools whose output is checked ([`ToolInfo::output_checked`]).
    output_checks: ByName<Arc<OutputCheck>>,
    /// The listings of the subsets some principals may see (module `policy`).
    views: Views<Listing>,
}

impl Tools {
    /// Serialise `registry`'s listing into pages of `page_size` (see [`Listing::build`]);
    /// replaceable while serving when `live`.
    pub(crate) fn new(
        registry: ToolRegistry,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: std::time::Duration,
        live: bool,
    ) -> Tools {
        let set = ToolSet::new(registry, None);
        Tools {
            set: Swap::new(set, live),
            calls_seen: AtomicU64::new(0),
            page_size,
            modern_meta: modern_meta.to_owned(),
            ttl,
        }
    }

    /// The set serving `registry` from now on, replacing `old` (its output checks are kept
    /// for the tools that stay).
    pub(crate) fn next(&self, registry: ToolRegistry, old: &ToolSet) -> ToolSet {
        // Built now if no client listed it yet, so that a cursor from it that a client is
        // given from here on is still known for one of a replaced listing.
        let replaced = old.listing(self).history();
        let mut set = ToolSet::new(registry, Some(old));
        set.replaced = replaced;
        set
    }

    /// `tools`, with `listChanged` when the server is live (see
    /// [`ServerBuilder::live`](crate::server::ServerBuilder::live)); otherwise the tool set is fixed
    /// for the life of the process.
    pub(crate) fn advertise(&self, capabilities: &mut ServerCapabilities) {
        capabilities.tools = Some(ListChangedCapability { list_changed: self.set.is_live() });
    }
}

impl ToolSet {
    fn new(registry: ToolRegistry, old: Option<&ToolSet>) -> ToolSet {
        let names = registry.names().map(str::to_owned).collect();
        let output_checks = registry
            .iter()
            .filter(|tool| tool.info().output_checked())
            .map(|tool| {
                let name = tool.info().name();
                let kept = old.and_then(|o| o.output_checks.get(name)).cloned();
                (name.to_owned(), kept.unwrap_or_default())
            })
            .collect();
        ToolSet {
            registry: Arc::new(registry),
            names,
            listing: OnceLock::new(),
            replaced: Vec::new(),
            output_checks,
            views: Views::default(),
        }
    }

    /// The listing of every tool, serialised the first time it is asked for.
    fn listing(&self, tools: &Tools) -> &Listing {
        self.listing.get_or_init(|| {
            let listing = Listing::build(
                self.registry.iter().map(|tool| tool.info()),
                tools.page_size,
                &tools.modern_meta,
                tools.ttl,
            );
            if self.replaced.is_empty() { listing } else { listing.remembering(self.replaced.clone()) }
        })
    }
}

/// Answer one request for a `tools/` method.
pub(crate) fn request(
    session: &SessionInner,
    tools: &Tools,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    match method {
        methods::TOOLS_LIST => {
            let set = tools.set.load();
            // The page is borrowed (from the caller's view, held here, or the whole listing):
            // it is copied once, into the response envelope.
            let view = view(session, tools, &set, caller);
            match view.as_deref().unwrap_or_else(|| set.listing(tools)).answer(session, method, params) {
                Ok(page) => reply.result(page),
                Err(error) => reply.error(error),
            }
        }
        methods::TOOLS_CALL => call(session, tools, reply, params, caller),
        other => reply.error(method_not_found(other)),
    }
}

/// The listing of the tools the session's caller may see, when a policy hides some of them
/// (module `policy`); `None` when it sees them all.
fn view(session: &SessionInner, tools: &Tools, set: &ToolSet, caller: Caller<'_>) -> Option<Arc<Listing>> {
    let access = session.shared.access.as_ref();
    if caller.sees_everything(access) {
        return None;
    }
    let gate = caller.gate(access);
    let mask = mask(set.registry.iter(), |t| gate.tool(t.info()))?;
    Some(set.views.get(mask, || {
        let visible = set.registry.iter().map(|t| t.info()).filter(|i| gate.tool(i));
        Listing::build(visible, tools.page_size, &tools.modern_meta, tools.ttl)
    }))
}

fn call(session: &SessionInner, tools: &Tools, reply: Reply, params: Option<&RawValue>, caller: Caller<'_>) {
    match decode_params(methods::TOOLS_CALL, params) {
        Ok(p) => call_decoded(session, tools, reply, p, caller),
        Err(e) => {
            tools.calls_seen.fetch_add(1, Ordering::Relaxed);
            reply.error(e)
        }
    }
}

/// Answer a `tools/call` whose params are decoded: by [`call`], or straight from the
/// message by the session's one-pass decode of the common shape (`envelope::decode_call`).
pub(crate) fn call_decoded(
    session: &SessionInner,
    tools: &Tools,
    reply: Reply,
    p: CallToolParams<'_>,
    caller: Caller<'_>,
) {
    tools.calls_seen.fetch_add(1, Ordering::Relaxed);
    let (peer, modern) = match session.served(p.meta.as_ref()).and_then(|s| s.peer()) {
        Ok(served) => served,
        Err(e) => return reply.error(e),
    };
    // The call holds an `Arc` of its tool: it finishes on it whatever is swapped in later.
    let set = tools.set.load();
    // A tool the caller may not use is answered as one that does not exist (module `policy`).
    // (The gate is made only for a caller something is hidden from.)
    let access = session.shared.access.as_ref();
    let gate = (!caller.sees_everything(access)).then(|| caller.gate(access));
    let Some(tool) =
        set.registry.get(&p.name).filter(|t| gate.as_ref().is_none_or(|g| g.tool(t.info()))).cloned()
    else {
        let visible: Cow<'_, [String]> = match &gate {
            None => Cow::Borrowed(&set.names),
            Some(gate) => set
                .registry
                .iter()
                .map(|t| t.info())
                .filter(|i| gate.tool(i))
                .map(|i| i.name().to_owned())
                .collect(),
        };
        return reply.error(RpcError::invalid_params(format!(
            "unknown tool {}; available tools: {}",
            PyStr(&p.name),
            PyList(&visible)
        )));
    };
    // Read once: each `info()` is a call through the tool's vtable.
    let info = tool.info();
    // Shown to a caller that lacks only scopes for it, and challenged (module `policy`).
    if let Some(scopes) = gate.as_ref().and_then(|g| g.tool_scopes_needed(info)) {
        drop(set);
        return reply.error(insufficient_scope(&p.name, &scopes));
    }
    if !info.required_client().is_empty() {
        let declared = match modern {
            true => ClientCapabilities::read(p.meta.as_ref().and_then(|m| m.client_capabilities)),
            false => session.legacy_state().map(|s| s.capabilities).unwrap_or_default(),
        };
        if let Err(e) = required_client(info, declared) {
            drop(set);
            return reply.error(e);
        }
    }
    // The tasks extension, on a server that serves tasks (module `task::run`).
    let escalate = match &session.shared.tasks {
        Some(tasks) => match escalation(session, tasks, info, &p, modern, &caller) {
            Ok(escalate) => escalate,
            Err(e) => {
                drop(set);
                return reply.error(e);
            }
        },
        None => None,
    };
    let args = match p.arguments {
        Some(a) => a.to_owned(),
        None => RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| Box::<RawValue>::default()),
    };
    // Only a registry with state hands it on: a stateless call pays nothing for it.
    let states = set.registry.states();
    let states = (!states.is_empty()).then(|| Arc::clone(states));
    // Only a tool not made by `#[tool]` that advertises an output schema is checked.
    let check = if info.output_checked() { set.output_checks.get(&p.name).cloned() } else { None };
    let reads_request = info.reads_request();
    drop(set);
    let untrusted = caller.untrusted().then(|| Arc::clone(caller.exposure));
    // A modern call runs in `input_required` rounds (module `rounds`).
    let round = match modern {
        true => match begin_round(session, &p, &args, reply.route().sink()) {
            Ok(round) => Some(round),
            Err(e) => return reply.error(e),
        },
        false => None,
    };
    let call = ToolCall {
        tool,
        args,
        states,
        check,
        untrusted,
        refused: AtomicBool::new(false),
        reads_request,
        round,
        escalate: ManuallyDrop::new(escalate),
    };
    session.run(reply, p.meta.as_ref(), peer, modern, call, caller);
}

/// -32021 when the client did not declare a capability the tool requires
/// ([`ToolInfo::requires_client`]).
fn required_client(info: &ToolInfo, declared: ClientCapabilities) -> Result<(), RpcError> {
    let missing: Vec<ClientCapability> =
        info.required_client().iter().copied().filter(|c| !declared.has(*c)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = missing.iter().map(|c| format!("`{}`", c.name())).collect();
    let (noun, verb) = if missing.len() == 1 { ("capability", "it") } else { ("capabilities", "them") };
    let message = format!(
        "tool {} needs the client's {} {noun}, and this client did not declare {verb}; the tool was not run",
        PyStr(info.name()),
        names.join(" and "),
    );
    // `elicitation` and `elicitation.url` are one member: both missing is both modes.
    let both = [ClientCapability::Elicitation, ClientCapability::ElicitationUrl];
    let mut members: Vec<&str> = Vec::new();
    for c in &missing {
        match c {
            ClientCapability::ElicitationUrl if both.iter().all(|b| missing.contains(b)) => {}
            ClientCapability::Elicitation if both.iter().all(|b| missing.contains(b)) => {
                members.push(r#""elicitation":{"form":{},"url":{}}"#);
            }
            other => members.push(other.member_json()),
        }
    }
    let data = format!(r#"{{"requiredCapabilities":{{{}}}}}"#, members.join(","));
    Err(RpcError::new(code::MISSING_REQUIRED_CLIENT_CAPABILITY, message).with_data(data))
}

/// The round a modern `tools/call` runs in, from its retry members.
fn begin_round(
    session: &SessionInner,
    p: &CallToolParams<'_>,
    args: &RawValue,
    sink: &Arc<dyn crate::server::dispatch::sink::Sink>,
) -> Result<RoundCall, RpcError> {
    let arguments = serde_json::from_str(args.get()).unwrap_or(serde_json::Value::Null);
    let retry = Retry { input_responses: p.input_responses, request_state: p.request_state };
    let round = Round::for_request(p.meta.as_ref(), sink);
    RoundCall::begin(&session.shared.options, methods::TOOLS_CALL, &p.name, arguments, retry, round)
}

/// One `tools/call`: the tool and its arguments, the bytes as received.
struct ToolCall {
    tool: Arc<dyn Tool>,
    args: Box<RawValue>,
    states: Option<Arc<StateMap>>,
    check: Option<Arc<OutputCheck>>,
    /// Set when the callers are untrusted (module `exposure`).
    untrusted: Option<Arc<Exposure>>,
    /// The approval callback refused the call.
    refused: AtomicBool,
    /// What its tool's [`ToolInfo::reads_request`] says.
    reads_request: bool,
    /// A modern call's round.
    round: Option<RoundCall>,
    /// Set when the call becomes a task once its body waits (module `task::run`). Boxed:
    /// every call carries the field, few use it, and the call is moved whole; and dropped by
    /// hand ([`Drop`] below), so a call without it pays one test, not a call.
    escalate: ManuallyDrop<Option<Box<Escalate>>>,
}

impl Drop for ToolCall {
    fn drop(&mut self) {
        if self.escalate.is_some() {
            drop(std::mem::take(&mut *self.escalate));
        }
    }
}

/// What the tasks extension makes of a call on a server that serves tasks: a tool that runs
/// only as a task refuses a client that cannot take one (-32021); one that may run as a task
/// becomes one once its body waits, when the client declared the extension. Out of line: a
/// server without tasks never comes here.
#[inline(never)]
fn escalation(
    session: &SessionInner,
    tasks: &Arc<Tasks>,
    info: &ToolInfo,
    p: &CallToolParams<'_>,
    modern: bool,
    caller: &Caller<'_>,
) -> Result<Option<Box<Escalate>>, RpcError> {
    let support = info.task_support();
    if support == TaskSupport::Forbidden {
        return Ok(None);
    }
    let capabilities = match modern {
        true => ClientCapabilities::read(p.meta.as_ref().and_then(|m| m.client_capabilities)),
        false => ClientCapabilities::default(),
    };
    if !capabilities.tasks {
        return match support {
            TaskSupport::Required => {
                Err(missing_extension(&format!("tool {} runs only as a task, so it", PyStr(info.name()))))
            }
            _ => Ok(None),
        };
    }
    // A call an approval gates never becomes a task: it is approved once, in the call.
    if caller.untrusted() && info.declarations().requires_approval {
        return Ok(None);
    }
    // It takes a task's place now (`ServerOptions::max_tasks`), kept for the task if it
    // becomes one; with none free, it runs as an ordinary call, or, if it runs only as a
    // task, is refused.
    match Arc::clone(&tasks.places).try_acquire_owned() {
        Ok(place) => Ok(Some(Box::new(Escalate {
            tasks: Arc::clone(tasks),
            capabilities,
            parent: session.shared.options.cancellation.clone(),
            meta: session.shared.modern_meta.clone(),
            created: Mutex::new(None),
            place: Mutex::new(Some(place)),
        }))),
        Err(_) if support == TaskSupport::Required => Err(too_many_tasks(info.name(), tasks.max_tasks)),
        Err(_) => Ok(None),
    }
}

/// What a call that may become a task needs to make one, and the task's handle once made.
struct Escalate {
    tasks: Arc<Tasks>,
    capabilities: ClientCapabilities,
    parent: Option<tokio_util::sync::CancellationToken>,
    /// The modern `_meta` of the `CreateTaskResult`.
    meta: Box<RawValue>,
    /// The call's answer once it became a task: the `CreateTaskResult`, or why no task could
    /// be made.
    created: Mutex<Option<Result<String, RpcError>>>,
    /// The task's place among the `max_tasks` this replica runs, taken when the call
    /// started; handed to the task, or given back with the call.
    place: Mutex<Option<tokio::sync::OwnedSemaphorePermit>>,
}

impl ToolCall {
    /// The body, and for a call that may become a task, the body until its first wait, when
    /// the task is made (the call's answer is then its handle, see [`Handler::finish`]).
    fn body<'a>(&'a self, ctx: &'a Context, call: ToolFuture<'a>) -> ToolFuture<'a> {
        let Some(escalate) = &*self.escalate else { return call };
        Box::pin(async move {
            let stopped = || self.round.as_ref().is_some_and(RoundCall::stopped);
            if let Some(done) = until_first_wait(stopped, call).await {
                return done;
            }
            let answers = self.round.as_ref().map(RoundCall::answers).unwrap_or_default();
            let caller = TaskCaller {
                peer: Arc::new(ctx.peer().clone()),
                principal: Arc::new(ctx.principal().clone()),
                capabilities: escalate.capabilities,
                states: self.states.clone(),
                answers,
                parent: escalate.parent.clone(),
                request: ctx.request_parts(),
                place: lock(&escalate.place).take(),
            };
            let again = Arc::new(ToolCall {
                tool: Arc::clone(&self.tool),
                args: self.args.clone(),
                states: self.states.clone(),
                check: self.check.clone(),
                untrusted: self.untrusted.clone(),
                refused: AtomicBool::new(false),
                reads_request: self.reads_request,
                round: None,
                escalate: ManuallyDrop::new(None),
            });
            let body: TaskBody = Box::new(move |ctx| Box::pin(again.run_task(ctx)));
            let created = match task_run::start(&escalate.tasks, caller, body).await {
                Ok(task) => {
                    let result = ModernResult { meta: &escalate.meta, result_type: TASK, body: &task };
                    serde_json::to_string(&result)
                        .map_err(|e| RpcError::new(code::INTERNAL_ERROR, format!("internal error: {e}")))
                }
                Err(e) => Err(e),
            };
            *lock(&escalate.created) = Some(created);
            Ok(ToolOutput::default())
        })
    }

    /// The body run again in its task, to its end: a result (a tool error included) completes
    /// the task; a panic fails it, as the JSON-RPC internal error it is.
    async fn run_task(self: Arc<Self>, ctx: &Context) -> TaskEnd {
        let name = self.tool.info().name();
        // A panic caught by the tool itself (a `#[tool]`) or around it.
        let outcome = match crate::tool::run_async(name, self.start(ctx)).await {
            Ok(Err(ToolError::Panicked { message, .. })) | Err(ToolError::Panicked { message, .. }) => {
                return TaskEnd::Failed(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!("internal error: tool '{name}' panicked: {message}"),
                ));
            }
            Ok(outcome) => outcome,
            Err(other) => Err(other),
        };
        match self.finish(Ok(outcome), None) {
            Ok(body) => TaskEnd::Completed(body),
            Err(e) => TaskEnd::Failed(e),
        }
    }
}

impl Handler for ToolCall {
    type Output = Result<ToolOutput, ToolError>;

    fn reads_request(&self) -> bool {
        self.reads_request
    }

    fn start<'a>(&'a self, ctx: &'a Context) -> ToolFuture<'a> {
        let untrusted = self.untrusted.as_deref().and_then(Exposure::untrusted);
        let call: ToolFuture<'a> = match untrusted {
            // A gated tool reaches an untrusted caller only with an approval callback.
            Some(u) if self.tool.info().declarations().requires_approval => Box::pin(async move {
                let request = GatedCall {
                    tool: self.tool.info().name().to_owned(),
                    arguments: self.args.get().to_owned(),
                    principal: Arc::new(ctx.principal().clone()),
                    client_name: ctx.peer().name.clone(),
                    client_version: ctx.peer().version.clone(),
                };
                match approved(u, request).await {
                    Approval::Allow => self.tool.call(&self.args, ctx).await,
                    Approval::AllowWith(edited) => match RawValue::from_string(edited) {
                        Ok(edited) => self.tool.call(&edited, ctx).await,
                        Err(e) => {
                            tracing::warn!(tool = self.tool.info().name(), error = %e, "the approver's edited arguments are not JSON; the call is refused");
                            self.refused.store(true, Ordering::Relaxed);
                            Ok(ToolOutput::default())
                        }
                    },
                    // `Approval` is `#[non_exhaustive]`: what this build does not know refuses.
                    _ => {
                        self.refused.store(true, Ordering::Relaxed);
                        Ok(ToolOutput::default())
                    }
                }
            }),
            _ => self.tool.call(&self.args, ctx),
        };
        self.body(ctx, call)
    }

    fn states(&self) -> Option<&Arc<StateMap>> {
        self.states.as_ref()
    }

    fn round(&self) -> Option<&RoundCall> {
        self.round.as_ref()
    }

    fn over_rounds(&self, limit: String, modern: &RawValue) -> Result<String, RpcError> {
        let outcome = Err(ToolError::failed(self.tool.info().name(), limit));
        call_result_json(&outcome, Some(modern))
            .map_err(|e| RpcError::new(code::INTERNAL_ERROR, format!("internal error: {e}")))
    }

    fn finish(
        &self,
        outcome: Result<Result<ToolOutput, ToolError>, Stop>,
        modern: Option<&RawValue>,
    ) -> Result<String, RpcError> {
        if let Some(escalate) = &*self.escalate
            && let Some(created) = lock(&escalate.created).take()
        {
            return created;
        }
        let name = self.tool.info().name();
        let mut outcome = outcome.unwrap_or_else(|stop| Err(tool_error(name, stop)));
        if let (Some(check), Ok(output)) = (&self.check, &outcome)
            && let Err(e) = check.check(self.tool.info(), output)
        {
            outcome = Err(e);
        }
        let serialised = |e: serde_json::Error| {
            RpcError::new(
                code::INTERNAL_ERROR,
                format!("internal error: the result of tool '{name}' could not be serialised: {e}"),
            )
        };
        let Some(untrusted) = self.untrusted.as_deref().and_then(Exposure::untrusted) else {
            return call_result_json(&outcome, modern).map_err(serialised);
        };
        // Untrusted callers (module `exposure`): a refusal, a failure's detail kept in the
        // log, a result within the cap.
        if self.refused.load(Ordering::Relaxed) {
            return error_json(&format!("tool '{name}' was not approved"), modern).map_err(serialised);
        }
        // The tool's own `ToolError::Failed` message is for the caller; any other error's
        // text, and a panic's, are not.
        if let Err(e @ (ToolError::Internal { .. } | ToolError::Panicked { .. })) = &outcome {
            tracing::warn!(tool = name, detail = %e, "tool failed; the detail is logged, not sent to an untrusted caller");
            return error_json(&format!("tool '{name}' failed"), modern).map_err(serialised);
        }
        let body = call_result_json(&outcome, modern).map_err(serialised)?;
        if body.len() > untrusted.max_result_bytes {
            tracing::warn!(
                tool = name,
                bytes = body.len(),
                "result over the cap for untrusted callers; not sent"
            );
            let text =
                format!("tool '{name}' returned a result over the {}-byte limit", untrusted.max_result_bytes);
            return error_json(&text, modern).map_err(serialised);
        }
        Ok(body)
    }
}

/// A tool-error result body with one text block, `text`.
fn error_json(text: &str, modern: Option<&RawValue>) -> Result<String, serde_json::Error> {
    let content = [Content::text(text)];
    let body = CallToolResult { content: &content, structured: None, is_error: true };
    match modern {
        None => body.to_json(),
        Some(meta) => serde_json::to_string(&ModernResult::complete(meta, &body)),
    }
}

/// How an interrupted call reads to the model: a tool error naming the tool.
fn tool_error(tool: &str, stop: Stop) -> ToolError {
    let tool = tool.to_owned();
    match stop {
        Stop::CancelledBeforeDispatch => ToolError::CancelledBeforeDispatch { tool },
        Stop::CancelledWhileRunning => ToolError::CancelledWhileRunning { tool },
        Stop::DeadlineExceeded(deadline) => ToolError::DeadlineExceeded { tool, deadline },
        Stop::Panicked(message) => ToolError::Panicked { tool, message },
    }
}

impl Listed for ToolInfo {
    const KEY: &'static str = "tools";

    fn name(&self) -> &str {
        ToolInfo::name(self)
    }

    fn to_json(&self) -> Result<String, serde_json::Error> {
        tool_json(self)
    }
}

/// `{"toolwire": <declarations>, ..custom}`: the declarations keyed by [`META_KEY`], then
/// the tool's own entries in key order (never `toolwire`; [`ToolInfo::with_meta`] refuses it).
struct ToolMeta<'a>(&'a Declarations, &'a [(Cow<'static, str>, serde_json::Value)]);

impl Serialize for ToolMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1 + self.1.len()))?;
        map.serialize_entry(META_KEY, self.0)?;
        for (key, value) in self.1 {
            map.serialize_entry(key.as_ref(), value)?;
        }
        map.end()
    }
}

/// The advertised JSON object for one tool: `name`, `title` (when given), `description`,
/// `icons` (when any), `inputSchema`, `outputSchema` (when declared), `annotations`, `_meta`.
/// Written by hand so the schemas go in as the canonical text they are held in.
fn tool_json(info: &ToolInfo) -> Result<String, serde_json::Error> {
    let input = info.input_schema().as_str();
    let mut out = String::with_capacity(160 + info.description().len() + input.len());
    out.push_str("{\"name\":");
    push_json_string(&mut out, info.name());
    if let Some(title) = info.title() {
        out.push_str(",\"title\":");
        push_json_string(&mut out, title);
    }
    out.push_str(",\"description\":");
    push_json_string(&mut out, info.description());
    if !info.icons().is_empty() {
        out.push_str(",\"icons\":");
        out.push_str(&serde_json::to_string(info.icons())?);
    }
    out.push_str(",\"inputSchema\":");
    out.push_str(input);
    if let Some(output) = info.output_schema() {
        out.push_str(",\"outputSchema\":");
        out.push_str(output.as_str());
    }
    out.push_str(",\"annotations\":");
    out.push_str(&serde_json::to_string(&info.annotations())?);
    out.push_str(",\"_meta\":");
    out.push_str(&serde_json::to_string(&ToolMeta(info.declarations(), info.meta()))?);
    out.push('}');
    Ok(out)
}

/// A `tools/call` result body, without the modern `_meta`/`resultType` members.
#[derive(Serialize)]
struct CallToolResult<'a> {
    content: &'a [Content],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured: Option<&'a RawValue>,
    #[serde(rename = "isError")]
    is_error: bool,
}

impl CallToolResult<'_> {
    /// How long [`to_json`](Self::to_json)'s text is when no character needs escaping and
    /// every block is text: `{"content":[`, `]` and `,"isError":false}` (30 bytes), then
    /// `{"type":"text","text":""}` (25) around each block's text and a comma between blocks,
    /// then the structured content after `,"structuredContent":` (21). Allocated whole, the
    /// common answer is written without regrowing (and copying) its buffer.
    fn json_len(&self) -> usize {
        let texts: usize =
            self.content.iter().map(|c| if let Content::Text { text } = c { text.len() } else { 0 }).sum();
        let blocks = self.content.len();
        30 + 25 * blocks
            + blocks.saturating_sub(1)
            + texts
            + self.structured.map_or(0, |s| s.get().len() + 21)
    }

    /// The bytes its `Serialize` writes, by hand for text blocks: every legacy call's
    /// answer is written here (bench/findings.md counts what serde's path cost). Other
    /// blocks, rare in answers, go through serde; the unit tests hold the two to the same
    /// bytes.
    fn to_json(&self) -> Result<String, serde_json::Error> {
        // With room for the response's envelope, which is written around it in place.
        let mut out = String::with_capacity(self.json_len() + RESULT_ROOM);
        out.push_str("{\"content\":[");
        for (i, block) in self.content.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match block {
                Content::Text { text } => {
                    out.push_str("{\"type\":\"text\",\"text\":");
                    push_json_string(&mut out, text);
                    out.push('}');
                }
                other => out.push_str(&serde_json::to_string(other)?),
            }
        }
        out.push(']');
        if let Some(structured) = self.structured {
            out.push_str(",\"structuredContent\":");
            out.push_str(structured.get());
        }
        out.push_str(if self.is_error { ",\"isError\":true}" } else { ",\"isError\":false}" });
        Ok(out)
    }
}

/// The result body for a call's outcome, completed with `modern` (the `_meta`) for a modern
/// request. A [`ToolError`] is a tool error, never a protocol error: `isError: true` and one
/// text block holding the error's `Display`.
///
/// Structured content is written in canonical form (RFC 8785), so its bytes do not depend on
/// which `serde_json` map features the build unified.
fn call_result_json(
    outcome: &Result<ToolOutput, ToolError>,
    modern: Option<&RawValue>,
) -> Result<String, serde_json::Error> {
    let error_text;
    let structured;
    let body = match outcome {
        Ok(output) => {
            structured = match &output.structured {
                Some(value) => Some(RawValue::from_string(canonical_json(value))?),
                None => None,
            };
            CallToolResult { content: &output.content, structured: structured.as_deref(), is_error: false }
        }
        Err(error) => {
            error_text = error_content(error);
            CallToolResult { content: &error_text, structured: None, is_error: true }
        }
    };
    match modern {
        None => body.to_json(),
        Some(meta) => serde_json::to_string(&ModernResult::complete(meta, &body)),
    }
}

/// An error's content: its `Display`; for a remote tool served again whose server reported
/// a failure, then that server's report, still sealed in its untrusted-data envelope.
fn error_content(error: &ToolError) -> Vec<Content> {
    let mut blocks = vec![Content::text(error.to_string())];
    if let ToolError::Remote(crate::tool::RemoteError::Failed { envelope, .. }) = error {
        blocks.push(Content::text(envelope.clone()));
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;
    use serde_json::json;

    #[test]
    fn a_tool_advertises_its_bytes_annotations_and_declarations() {
        let info = ToolInfo::new("deploy", "Deploy it.", Schema::empty_object()).with_declarations(
            Declarations { requires_approval: true, ..Declarations::default() }.with_caps(["egress"]),
        );
        assert_eq!(
            tool_json(&info).unwrap(),
            r#"{"name":"deploy","description":"Deploy it.","inputSchema":{"additionalProperties":false,"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false},"_meta":{"toolwire":{"side_effecting":true,"requires_approval":true,"caps":["egress"]}}}"#
        );
    }

    /// Every optional member, in the order a derived `Serialize` of the wire shape wrote
    /// them, with text that needs escaping; the schemas go in as their canonical text.
    #[test]
    fn a_tool_with_every_member_is_written_in_order() {
        let icon = crate::protocol::wire::Icon::new("https://example.com/i.png")
            .with_mime_type("image/png")
            .with_sizes(["48x48"]);
        let output = Schema::from_value(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}));
        let info = ToolInfo::new("say", "Say \"hi\"\n\tthen stop.", Schema::empty_object())
            .with_title("Säy ✓")
            .with_icon(icon)
            .with_output_schema(output)
            .with_meta("example.com/k", json!({"a": [true]}))
            .unwrap();
        assert_eq!(
            tool_json(&info).unwrap(),
            r#"{"name":"say","title":"Säy ✓","description":"Say \"hi\"\n\tthen stop.","icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"]}],"inputSchema":{"additionalProperties":false,"type":"object"},"outputSchema":{"properties":{"ok":{"type":"boolean"}},"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false},"_meta":{"toolwire":{"side_effecting":true,"requires_approval":false,"caps":[]},"example.com/k":{"a":[true]}}}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&tool_json(&info).unwrap()).unwrap();
        assert_eq!(parsed["description"], "Say \"hi\"\n\tthen stop.");
    }

    /// The listing is serialised on the first list, once; replacing a set that was never
    /// listed builds it then, so the new set remembers its fingerprint.
    #[test]
    fn the_listing_is_built_on_the_first_list_and_kept() {
        let meta = RawValue::from_string("{}".to_owned()).unwrap();
        struct Echo(ToolInfo);
        impl Tool for Echo {
            fn info(&self) -> &ToolInfo {
                &self.0
            }
            fn call<'a>(
                &'a self,
                _: &'a RawValue,
                _: &'a crate::context::Context,
            ) -> crate::tool::ToolFuture<'a> {
                Box::pin(async { Ok(ToolOutput::text("x")) })
            }
        }
        let registry = || {
            let mut r = ToolRegistry::new();
            r.register(Echo(ToolInfo::new("echo", "Echo.", Schema::empty_object()))).unwrap();
            r
        };
        let tools = Tools::new(registry(), 100, &meta, std::time::Duration::from_secs(1), true);
        let set = tools.set.load();
        assert!(set.listing.get().is_none(), "built before anyone listed");
        let first: *const Listing = set.listing(&tools);
        assert!(std::ptr::eq(first, set.listing(&tools)));
        let fingerprint = set.listing(&tools).history();

        let unlisted = ToolSet::new(registry(), None);
        let next = tools.next(registry(), &unlisted);
        assert!(unlisted.listing.get().is_some());
        assert_eq!(next.replaced, unlisted.listing(&tools).history());
        assert_eq!(
            next.listing(&tools).history().len(),
            1,
            "{fingerprint:?}: the same tools, one fingerprint"
        );
    }

    #[test]
    fn the_hand_written_result_is_serdes_byte_for_byte() {
        use crate::tool::EmbeddedResource;
        let blocks = [
            Content::text("plain"),
            Content::text("q\"b\\\n\u{1}\u{7f}é€\u{2028}😀"),
            Content::text(""),
            Content::Image { data: "aGk=".into(), mime_type: "image/png".into() },
            Content::Resource {
                resource: EmbeddedResource::text("file:///a", "x\ty").with_mime_type("text/plain"),
            },
            Content::ResourceLink {
                uri: "u".into(),
                name: "n".into(),
                description: None,
                mime_type: Some("m".into()),
            },
        ];
        let structured = RawValue::from_string(r#"{"a":[1,"\u0001"]}"#.to_owned()).unwrap();
        for n in 0..=blocks.len() {
            for first in 0..blocks.len() {
                let content: Vec<Content> = blocks.iter().cycle().skip(first).take(n).cloned().collect();
                for structured in [None, Some(&*structured)] {
                    for is_error in [false, true] {
                        let body = CallToolResult { content: &content, structured, is_error };
                        assert_eq!(body.to_json().unwrap(), serde_json::to_string(&body).unwrap());
                    }
                }
            }
        }
    }

    /// Text blocks with nothing to escape are written into a buffer sized for them at the
    /// start, exactly: the common answer is one allocation, never regrown.
    #[test]
    fn the_hand_written_result_is_sized_before_it_is_written() {
        let structured = RawValue::from_string(r#"{"a":[1,2]}"#.to_owned()).unwrap();
        for content in [vec![], vec![Content::text("hello")], vec![Content::text("a"), Content::text("")]] {
            for structured in [None, Some(&*structured)] {
                for is_error in [false, true] {
                    let body = CallToolResult { content: &content, structured, is_error };
                    let json = body.to_json().unwrap();
                    // `true` is a byte shorter than `false`.
                    assert_eq!(json.len() + usize::from(is_error), body.json_len(), "{json}");
                    assert_eq!(json.capacity(), body.json_len() + RESULT_ROOM, "{json}");
                }
            }
        }
    }

    #[test]
    fn results_and_tool_errors() {
        let ok = ToolOutput::structured(json!({"sum": 5, "a": [1.0]}));
        assert_eq!(
            call_result_json(&Ok(ok), None).unwrap(),
            r#"{"content":[{"type":"text","text":"{\"a\":[1],\"sum\":5}"}],"structuredContent":{"a":[1],"sum":5},"isError":false}"#
        );
        let err = ToolError::failed("fail", "boom");
        assert_eq!(
            call_result_json(&Err(err), None).unwrap(),
            r#"{"content":[{"type":"text","text":"tool 'fail' failed: boom"}],"isError":true}"#
        );
        // A remote tool served again: the remote server's sealed report follows ours.
        let err = ToolError::Remote(crate::tool::RemoteError::Failed {
            tool: "w__boom".into(),
            server: "w".into(),
            envelope: "<untrusted-data source=\"mcp\" server=\"w\" tool=\"w__boom\">\nno\n</untrusted-data>"
                .into(),
            report: "no".into(),
        });
        assert_eq!(
            call_result_json(&Err(err), None).unwrap(),
            r#"{"content":[{"type":"text","text":"tool 'w__boom' failed on server 'w'; its report is in the untrusted-data envelope"},{"type":"text","text":"<untrusted-data source=\"mcp\" server=\"w\" tool=\"w__boom\">\nno\n</untrusted-data>"}],"isError":true}"#
        );
    }
}
