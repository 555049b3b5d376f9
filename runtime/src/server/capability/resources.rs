//! The resources capability: `resources/list` and `resources/templates/list` from
//! pre-serialised [`Listing`]s, `resources/read` through the one request path, and
//! subscriptions: `resources/subscribe`/`unsubscribe` (up to 2025-11-25; the 2026-07-28
//! `subscriptions/listen` is module `live`'s, since it also carries list changes).
//!
//! | what happened | the answer |
//! | --- | --- |
//! | a URI nothing serves | legacy: -32002 `resource 'x' not found`; modern: -32602, the same text; `data: {"uri": …}` in both |
//! | a template variable that does not parse as its parameter | -32602 `resource 'x' does not fit template 't': argument 'id' must be an integer, got a string` |
//! | the read returned `Err(e)` | -32603 `resource 'x' could not be read: <e>` |
//! | the read panicked, was cancelled by the host, or hit the deadline | -32603 naming the URI and what happened |
//! | `resources/subscribe` of a URI nothing serves | -32002, as for a read |
//! | a read or a subscribe of a resource the caller may not read ([`Access`](crate::server::Access)) | the same bytes as for a URI nothing serves |
//! | a 2026-07-28 read asks the client something it has no answer for | `resultType: "input_required"` with the asks and a sealed `requestState` (module `rounds`); a bad state on the retry is -32602 |

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::args::PyStr;
use crate::context::Context;
use crate::json::json_string;
use crate::protocol::lifecycle::{ResourcesCapability, ServerCapabilities};
use crate::protocol::meta::{MetaParams, ModernResult};
use crate::protocol::methods;
use crate::protocol::resources::UriParams;
use crate::protocol::{RpcError, code};
use crate::resource::{
    Resolved, Resource, ResourceContents, ResourceError, ResourceInfo, ResourceRegistry, ResourceTemplate,
    TemplateInfo,
};

use super::listing::{Listed, Listing};
use super::swap::Swap;
use crate::server::access::caller::Caller;
use crate::server::access::policy::{Gate, Views, mask};
use crate::server::dispatch::era::{Served, decode_params, method_not_found};
use crate::server::dispatch::sink::Reply;
use crate::server::dispatch::state::SessionInner;
use crate::server::run::request::{Handler, Started, Stop};
use crate::server::run::rounds::{Retry, Round, RoundCall};

/// What a server serving resources holds: the current [`ResourceSet`] (fixed, or swapped
/// whole when a live server's resources change), and what rebuilt listings need.
pub(crate) struct Resources {
    pub(crate) set: Swap<ResourceSet>,
    page_size: usize,
    modern_meta: Box<RawValue>,
    ttl: std::time::Duration,
}

/// The resources and templates served at one moment, and their two listings.
pub(crate) struct ResourceSet {
    pub(crate) registry: ResourceRegistry,
    resources: Listing,
    templates: Listing,
    /// The listings of the subsets some principals may see (module `policy`).
    resource_views: Views<Listing>,
    template_views: Views<Listing>,
}

impl Resources {
    /// Serialise `registry`'s listings into pages of `page_size` (see [`Listing::build`]);
    /// replaceable while serving when `live`.
    pub(crate) fn new(
        registry: ResourceRegistry,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: std::time::Duration,
        live: bool,
    ) -> Resources {
        let set = ResourceSet::new(registry, page_size, modern_meta, ttl, None);
        Resources { set: Swap::new(set, live), page_size, modern_meta: modern_meta.to_owned(), ttl }
    }

    /// The set serving `registry` from now on, replacing `old`.
    pub(crate) fn next(&self, registry: ResourceRegistry, old: &ResourceSet) -> ResourceSet {
        ResourceSet::new(registry, self.page_size, &self.modern_meta, self.ttl, Some(old))
    }

    /// `resources`, with subscriptions, and with `listChanged` when the server is live (see
    /// [`ServerBuilder::live`](crate::server::ServerBuilder::live)); otherwise the set is fixed for
    /// the life of the process.
    pub(crate) fn advertise(&self, capabilities: &mut ServerCapabilities) {
        capabilities.resources =
            Some(ResourcesCapability { subscribe: true, list_changed: self.set.is_live() });
    }
}

impl ResourceSet {
    fn new(
        registry: ResourceRegistry,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: std::time::Duration,
        old: Option<&ResourceSet>,
    ) -> ResourceSet {
        let mut resources =
            Listing::build(registry.resources().map(|r| r.info()), page_size, modern_meta, ttl);
        let mut templates =
            Listing::build(registry.templates().map(|t| t.info()), page_size, modern_meta, ttl);
        if let Some(old) = old {
            resources = resources.replacing(&old.resources);
            templates = templates.replacing(&old.templates);
        }
        ResourceSet {
            registry,
            resources,
            templates,
            resource_views: Views::default(),
            template_views: Views::default(),
        }
    }
}

impl Listed for ResourceInfo {
    const KEY: &'static str = "resources";

    fn name(&self) -> &str {
        self.uri()
    }

    fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

impl Listed for TemplateInfo {
    const KEY: &'static str = "resourceTemplates";

    fn name(&self) -> &str {
        self.template().as_str()
    }

    fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

/// Answer one request for a resources method.
pub(crate) fn request(
    session: &SessionInner,
    resources: &Resources,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    let set = resources.set.load();
    let gate = caller.gate(session.shared.access.as_ref());
    let view = |kind: bool| -> Option<Arc<Listing>> {
        if gate.open() {
            return None;
        }
        let (page_size, meta, ttl) = (resources.page_size, &resources.modern_meta, resources.ttl);
        if kind {
            let m = mask(set.registry.resources(), |r| gate.resource(r.info().uri()))?;
            Some(set.resource_views.get(m, || {
                let visible = set.registry.resources().map(|r| r.info()).filter(|i| gate.resource(i.uri()));
                Listing::build(visible, page_size, meta, ttl)
            }))
        } else {
            let m = mask(set.registry.templates(), |t| gate.resource(t.info().template().as_str()))?;
            Some(set.template_views.get(m, || {
                let visible = set
                    .registry
                    .templates()
                    .map(|t| t.info())
                    .filter(|i| gate.resource(i.template().as_str()));
                Listing::build(visible, page_size, meta, ttl)
            }))
        }
    };
    let outcome = match method {
        methods::RESOURCES_LIST | methods::RESOURCES_TEMPLATES_LIST => {
            let kind = method == methods::RESOURCES_LIST;
            let listing = if kind { &set.resources } else { &set.templates };
            // The page is borrowed (from the caller's view, held here, or the whole listing):
            // it is copied once, into the response envelope.
            let view = view(kind);
            return match view.as_deref().unwrap_or(listing).answer(session, method, params) {
                Ok(page) => reply.result(page),
                Err(error) => reply.error(error),
            };
        }
        methods::RESOURCES_READ => return read(session, &set, reply, params, &gate, caller),
        methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
            return match subscribe(session, &set, method, params, &gate) {
                Ok(()) => reply.result("{}"),
                Err(e) => reply.error(e),
            };
        }
        other => Err(method_not_found(other)),
    };
    match outcome {
        Ok(page) => reply.result(page),
        Err(error) => reply.error(error),
    }
}

/// The not-found error for `uri`, in the era's code.
fn not_found(uri: &str, modern: bool) -> RpcError {
    let code = if modern { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND };
    RpcError::new(code, ResourceError::NotFound { uri: uri.to_owned() }.to_string())
        .with_data(format!("{{\"uri\":{}}}", json_string(uri)))
}

fn read(
    session: &SessionInner,
    resources: &ResourceSet,
    reply: Reply,
    params: Option<&RawValue>,
    gate: &Gate,
    caller: Caller<'_>,
) {
    let p: UriParams<'_> = match decode_params(methods::RESOURCES_READ, params) {
        Ok(p) => p,
        Err(e) => return reply.error(e),
    };
    let (peer, modern) = match session.served(p.meta.as_ref()).and_then(Served::peer) {
        Ok(served) => served,
        Err(e) => return reply.error(e),
    };
    // A resource the caller may not read is answered as one that does not exist (its rule
    // is the one `readable` applies).
    let target = match resources.registry.resolve(&p.uri) {
        Some(Resolved::Fixed(r)) if gate.open() || gate.resource(r.info().uri()) => Target::Fixed(r.clone()),
        Some(Resolved::Template(t, vars)) if gate.open() || gate.resource(t.info().template().as_str()) => {
            Target::Template(t.clone(), vars)
        }
        _ => return reply.error(not_found(&p.uri, modern)),
    };
    // A modern read runs in `input_required` rounds (module `rounds`), bound to its URI.
    let round = match modern {
        true => {
            let retry = Retry { input_responses: p.input_responses, request_state: p.request_state };
            let round = Round::for_request(p.meta.as_ref(), reply.route().sink());
            let no_arguments = serde_json::Value::Object(Default::default());
            match RoundCall::begin(
                &session.shared.options,
                methods::RESOURCES_READ,
                &p.uri,
                no_arguments,
                retry,
                round,
            ) {
                Ok(round) => Some(round),
                Err(e) => return reply.error(e),
            }
        }
        false => None,
    };
    session.run(
        reply,
        p.meta.as_ref(),
        peer,
        modern,
        ReadCall { uri: p.uri.into_owned(), target, round },
        caller,
    );
}

/// What serves one read.
enum Target {
    Fixed(Arc<dyn Resource>),
    Template(Arc<dyn ResourceTemplate>, Vec<(String, String)>),
}

/// One `resources/read`.
struct ReadCall {
    uri: String,
    target: Target,
    /// A modern read's round.
    round: Option<RoundCall>,
}

/// A `resources/read` result body. A modern one must carry caching hints: a read runs user
/// code whose answer may change at any time and may differ per caller, so it is never to be
/// reused (`ttlMs: 0`, `cacheScope: "private"`).
#[derive(Serialize)]
struct ReadResult<'a> {
    contents: &'a [ResourceContents],
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    cache_scope: Option<&'static str>,
}

impl Handler for ReadCall {
    type Output = Result<Vec<ResourceContents>, ResourceError>;

    fn start<'a>(&'a self, ctx: &'a Context) -> Started<'a, Self::Output> {
        match &self.target {
            Target::Fixed(r) => r.read(ctx),
            Target::Template(t, vars) => t.read(&self.uri, vars, ctx),
        }
    }

    fn round(&self) -> Option<&RoundCall> {
        self.round.as_ref()
    }

    fn over_rounds(&self, limit: String, _modern: &RawValue) -> Result<String, RpcError> {
        let uri = PyStr(&self.uri);
        Err(RpcError::new(code::INTERNAL_ERROR, format!("resource {uri} could not be read: {limit}")))
    }

    fn finish(
        &self,
        outcome: Result<Self::Output, Stop>,
        modern: Option<&RawValue>,
    ) -> Result<String, RpcError> {
        let uri = PyStr(&self.uri);
        let contents = match outcome {
            Ok(Ok(contents)) => contents,
            Ok(Err(e @ ResourceError::NotFound { .. })) => {
                let _ = e;
                return Err(not_found(&self.uri, modern.is_some()));
            }
            Ok(Err(e @ ResourceError::BadVariable { .. })) => {
                return Err(RpcError::invalid_params(e.to_string()));
            }
            Ok(Err(e)) => return Err(RpcError::new(code::INTERNAL_ERROR, e.to_string())),
            Err(stop) => {
                let what = match stop {
                    Stop::CancelledBeforeDispatch => "the run was cancelled before it was read".to_owned(),
                    Stop::CancelledWhileRunning => "the run was cancelled while it was being read".to_owned(),
                    Stop::DeadlineExceeded(d) => {
                        format!("it did not return within {}s and was abandoned", d.as_secs_f64())
                    }
                    Stop::Panicked(m) => format!("panicked: {m}"),
                };
                return Err(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!("resource {uri} could not be read: {what}"),
                ));
            }
        };
        let body = ReadResult {
            contents: &contents,
            ttl_ms: modern.map(|_| 0),
            cache_scope: modern.map(|_| "private"),
        };
        let json = match modern {
            None => serde_json::to_string(&body),
            Some(meta) => serde_json::to_string(&ModernResult::complete(meta, &body)),
        };
        json.map_err(|e| {
            RpcError::new(
                code::INTERNAL_ERROR,
                format!("internal error: the contents of resource {uri} could not be serialised: {e}"),
            )
        })
    }
}

/// Whether something serves `uri` and the caller may read it: a fixed resource by its URI,
/// one read through a template by the template's rule. What is not readable is answered as
/// not served, for `resources/read`, `resources/subscribe` and `subscriptions/listen` alike.
pub(crate) fn readable(registry: &ResourceRegistry, uri: &str, gate: &Gate) -> bool {
    match registry.resolve(uri) {
        Some(Resolved::Fixed(r)) => gate.open() || gate.resource(r.info().uri()),
        Some(Resolved::Template(t, _)) => gate.open() || gate.resource(t.info().template().as_str()),
        None => false,
    }
}

fn subscribe(
    session: &SessionInner,
    resources: &ResourceSet,
    method: &str,
    params: Option<&RawValue>,
    gate: &Gate,
) -> Result<(), RpcError> {
    // The era first: on 2026-07-28 the method does not exist, whatever its params say.
    let envelope: MetaParams<'_> = decode_params(method, params)?;
    let (_, modern) = session.served(envelope.meta.as_ref())?.peer()?;
    if modern {
        return Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            format!(
                "method {} is not in protocol 2026-07-28: send subscriptions/listen with notifications.resourceSubscriptions",
                PyStr(method)
            ),
        ));
    }
    let p: UriParams<'_> = decode_params(method, params)?;
    if method == methods::RESOURCES_UNSUBSCRIBE {
        if let Some(s) = session.subscriber.get() {
            s.unsubscribe(&p.uri);
        }
        return Ok(());
    }
    // A resource the caller may not read is answered as one that does not exist.
    if !readable(&resources.registry, &p.uri, gate) {
        return Err(not_found(&p.uri, false));
    }
    let Some(subscriber) = session.legacy_subscriber() else {
        return Err(RpcError::invalid_request(format!(
            "invalid request: this session has no channel for notifications outside a call, so {} cannot be delivered",
            PyStr(methods::NOTIFICATIONS_RESOURCES_UPDATED)
        )));
    };
    subscriber.subscribe(&p.uri);
    Ok(())
}
