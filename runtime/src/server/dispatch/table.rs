//! The methods this server answers, and the era each request is served in.
//!
//! A request is served in the era its `_meta` puts it in (see module `era`): modern
//! requests statelessly from their own `_meta`, legacy ones under the session's `initialize`
//! (else -32602, except `ping`, which the legacy spec allows before the handshake). Both eras
//! are served side by side by one session.
//!
//! | method | answer |
//! | --- | --- |
//! | `initialize` | legacy handshake: echo a supported version, else counter-offer 2025-11-25 |
//! | `ping` | an empty result, in either era (2026-07-28 dropped `ping`; answering costs nothing and a keepalive that got -32601 would tear a session down for nothing) |
//! | `server/discover` | modern: supported versions, capabilities, instructions, caching hints |
//! | `tools/list`, `tools/call` | the tools capability, when tools were registered (module `tools`): `tools/list` serves one pre-serialised page, with `nextCursor` while more remain; `tools/call` runs the tool through the one request path (module `request`) |
//! | `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`, `resources/unsubscribe` | the resources capability, when resources were registered (module `resources`) |
//! | `subscriptions/listen` | 2026-07-28: resource updates and list changes, when resources were registered or the server is live (module `listen`) |
//! | `prompts/list`, `prompts/get` | the prompts capability, when prompts were registered (module `prompts`) |
//! | `skills/list`, `skills/get`, `resources/directory/read` | the Skills extension (SEP-2640), when a skill catalog was given (module `skills`) |
//! | `completion/complete` | the completions capability, when something completes (module `completion`) |
//! | `tasks/get`, `tasks/update`, `tasks/cancel` | the tasks extension, when the server serves it (module `task::methods`) |
//! | `logging/setLevel` | legacy: the session's log level for [`Context::log`](crate::Context::log) (module `logging`); modern: -32601 (2026-07-28 has no session to hold a level) |
//! | anything else | -32601 |
//!
//! One arm per capability: the lifecycle methods are answered here, and a capability's
//! methods go to that capability's module, or are -32601 when it was not registered. (The
//! arm names the methods rather than matching a prefix: `tools/call` is the hot path, and
//! an exact match is a length check and one compare.)

use crate::protocol::methods;
use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::protocol::lifecycle::{InitializeParams, initialize_result, negotiate_legacy};
use crate::protocol::meta::MetaParams;
use crate::protocol::tools::CallToolParams;
use crate::protocol::{ClientCapabilities, Era, RpcError};
use crate::sync::lock;

use super::era::{Served, decode_params, method_not_found, missing_envelope, peer};
use super::sink::Reply;
use super::state::{LegacyState, SessionInner};
use crate::server::access::caller::Caller;
use crate::server::capability::resources;
use crate::server::capability::skills;
use crate::server::capability::{completion, logging, prompts, tools};
use crate::server::intercept::{Decision, Interceptors, completed};
use crate::server::notify::listen;
use crate::server::serving::Serving;
use crate::server::task;

/// Answer one request of `session` for `caller`, from what `serving` serves.
pub(crate) fn request(
    session: &Arc<SessionInner>,
    serving: &Arc<Serving>,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    // Each request takes a cell of its principal's rate limit first (module `rate`).
    if let Err(refused) = caller.admit(session.shared.limiter.as_ref()) {
        return reply.error(refused);
    }
    if session.shared.seam {
        return seam(session, serving, reply, method, params, caller);
    }
    route(session, serving, reply, method, params, caller)
}

/// A request on a server with something on its seam: through its tower layers (module
/// `layered`), else through its interceptors, then routed.
#[cold]
#[inline(never)]
fn seam(
    session: &Arc<SessionInner>,
    serving: &Arc<Serving>,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    #[cfg(feature = "tower")]
    if let Some(stack) = &session.shared.layers {
        return super::layered::layered(
            session,
            serving,
            stack,
            reply,
            (method, params),
            caller,
            intercepted,
        );
    }
    intercepted(session, serving, reply, method, params, caller)
}

/// A request past the rate limit (and the tower layers, when there are any): seen by the
/// interceptors, then routed.
fn intercepted(
    session: &Arc<SessionInner>,
    serving: &Arc<Serving>,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    let interceptors = &session.shared.interceptors;
    let reply = if interceptors.is_empty() {
        reply
    } else {
        match intercept(session, interceptors, reply, method, params, caller) {
            Some(reply) => reply,
            None => return,
        }
    };
    route(session, serving, reply, method, params, caller)
}

/// Route a request to the method that answers it.
#[inline]
fn route(
    session: &SessionInner,
    serving: &Serving,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    let outcome = match method {
        methods::INITIALIZE => initialize(session, params).map(Cow::Owned),
        methods::PING => ping(session, params),
        methods::SERVER_DISCOVER => discover(session, params),
        methods::LOGGING_SET_LEVEL => logging::set_level(session, params).map(Cow::Borrowed),
        methods::TOOLS_LIST | methods::TOOLS_CALL => match &serving.tools {
            Some(served) => return tools::request(session, served, reply, method, params, caller),
            None => Err(method_not_found(method)),
        },
        methods::SUBSCRIPTIONS_LISTEN if listen::listens(serving) => {
            return listen::listen(session, serving, reply, params, caller);
        }
        methods::RESOURCES_LIST
        | methods::RESOURCES_TEMPLATES_LIST
        | methods::RESOURCES_READ
        | methods::RESOURCES_SUBSCRIBE
        | methods::RESOURCES_UNSUBSCRIBE
        | methods::SUBSCRIPTIONS_LISTEN => match &serving.resources {
            Some(served) => return resources::request(session, served, reply, method, params, caller),
            None => Err(method_not_found(method)),
        },
        methods::PROMPTS_LIST | methods::PROMPTS_GET => match &serving.prompts {
            Some(served) => return prompts::request(session, served, reply, method, params, caller),
            None => Err(method_not_found(method)),
        },
        methods::SKILLS_LIST | methods::SKILLS_GET | methods::RESOURCES_DIRECTORY_READ => {
            match &serving.skills {
                Some(served) => return skills::request(session, served, reply, method, params, caller),
                None => Err(method_not_found(method)),
            }
        }
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => match &session.shared.tasks {
            Some(tasks) => {
                let subject = caller.principal.subject();
                return task::methods::request(session, tasks, reply, method, params, subject);
            }
            None => Err(method_not_found(method)),
        },
        methods::COMPLETION_COMPLETE => match &serving.completion {
            Some(table) => return completion::request(session, table, reply, params, caller),
            None => Err(method_not_found(method)),
        },
        other => Err(method_not_found(other)),
    };
    match outcome {
        Ok(body) => reply.result(&body),
        Err(error) => reply.error(error),
    }
}

/// Run the interceptors over a request: `Some` reply (watched, when one watches) to serve
/// it with, or `None` when an interceptor answered it.
#[cold]
fn intercept(
    session: &SessionInner,
    interceptors: &Interceptors,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) -> Option<Reply> {
    let Some(id) = reply.id().cloned() else { return Some(reply) };
    let request = session.intercepted(method, &id, params, &caller);
    match interceptors.decide(&request) {
        Decision::Serve(watch) => Some(reply.watched(watch)),
        Decision::Answered(answer, watch) => {
            let reply = reply.watched(watch);
            match answer {
                Ok(body) if request.era() == Era::Modern => {
                    reply.result(&completed(&session.shared.modern_meta, &body));
                }
                Ok(body) => reply.result(body.get()),
                Err(error) => reply.error(error),
            }
            None
        }
    }
}

/// A `tools/call` the session decoded in one pass (`envelope::decode_call`): served as
/// [`request`] serves one, without decoding its params again.
#[inline]
pub(crate) fn call(
    session: &SessionInner,
    serving: &Serving,
    reply: Reply,
    params: CallToolParams<'_>,
    caller: Caller<'_>,
) {
    if let Err(refused) = caller.admit(session.shared.limiter.as_ref()) {
        return reply.error(refused);
    }
    match &serving.tools {
        Some(served) => tools::call_decoded(session, served, reply, params, caller),
        None => reply.error(method_not_found(methods::TOOLS_CALL)),
    }
}

fn initialize(session: &SessionInner, params: Option<&RawValue>) -> Result<String, RpcError> {
    let p: InitializeParams<'_> = decode_params(methods::INITIALIZE, params)?;
    let mut legacy = lock(&session.legacy);
    if let Some(state) = &*legacy {
        return Err(RpcError::invalid_request(format!(
            "invalid request: the session is already initialized (protocol version {})",
            state.version
        )));
    }
    let version = negotiate_legacy(&p.protocol_version);
    let client = p.client();
    tracing::info!(
        client = client.name.as_deref().unwrap_or("?"),
        requested = %p.protocol_version,
        serving = %version,
        "initialize"
    );
    let capabilities = ClientCapabilities::read(p.capabilities);
    *legacy = Some(LegacyState {
        version,
        client: Arc::new(peer(&client, version)),
        capabilities,
        initialized: false,
    });
    let shared = &session.shared;
    let options = &shared.options;
    Ok(initialize_result(version, &shared.capabilities, &options.info, options.instructions.as_deref()))
}

fn ping<'s>(session: &'s SessionInner, params: Option<&RawValue>) -> Result<Cow<'s, str>, RpcError> {
    let p: MetaParams<'_> = decode_params(methods::PING, params)?;
    Ok(match session.served(p.meta.as_ref())? {
        Served::Legacy(_) => Cow::Borrowed("{}"),
        Served::Modern { .. } => Cow::Borrowed(&session.shared.modern_empty),
    })
}

fn discover<'s>(session: &'s SessionInner, params: Option<&RawValue>) -> Result<Cow<'s, str>, RpcError> {
    let p: MetaParams<'_> = decode_params(methods::SERVER_DISCOVER, params)?;
    match session.served(p.meta.as_ref())? {
        Served::Modern { .. } => Ok(Cow::Borrowed(&session.shared.discover_body)),
        Served::Legacy(_) => Err(missing_envelope(methods::SERVER_DISCOVER)),
    }
}
