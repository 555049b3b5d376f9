//! The resources capability: `resources/list` and `resources/templates/list` from
//! pre-serialised [`Listing`]s, `resources/read` through the one request path, and
//! subscriptions: `resources/subscribe`/`unsubscribe` (up to 2025-11-25) and
//! `subscriptions/listen` (2026-07-28).
//!
//! | what happened | the answer |
//! | --- | --- |
//! | a URI nothing serves | legacy: -32002 `resource 'x' not found`; modern: -32602, the same text; `data: {"uri": …}` in both |
//! | a template variable that does not parse as its parameter | -32602 `resource 'x' does not fit template 't': argument 'id' must be an integer, got a string` |
//! | the read returned `Err(e)` | -32603 `resource 'x' could not be read: <e>` |
//! | the read panicked, was cancelled by the host, or hit the deadline | -32603 naming the URI and what happened |
//! | `resources/subscribe` of a URI nothing serves | -32002, as for a read |
//! | `subscriptions/listen` | `notifications/subscriptions/acknowledged` first, then each `notifications/resources/updated` for its URIs, all with its `subscriptionId`; the request stays open until the client cancels it |

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::args::PyStr;
use crate::context::Context;
use crate::json::json_string;
use crate::protocol::lifecycle::{ResourcesCapability, ServerCapabilities};
use crate::protocol::meta::{ListParams, MetaParams, ModernResult};
use crate::protocol::resources::{ListenParams, UriParams};
use crate::protocol::{RpcError, code};
use crate::resource::{
    Resolved, Resource, ResourceContents, ResourceError, ResourceInfo, ResourceRegistry, ResourceTemplate,
    TemplateInfo,
};

use super::era::{Served, decode_params, method_not_found, missing_envelope};
use super::listing::{Listed, Listing};
use super::request::{Handler, Started, Stop};
use super::session::SessionInner;
use super::sink::Reply;
use super::subscriptions::{Subscriber, Subscriptions};

/// What a server serving resources holds: the registry, its two listings serialised once,
/// and who subscribed to what.
pub(crate) struct Resources {
    pub(crate) registry: ResourceRegistry,
    resources: Listing,
    templates: Listing,
    pub(crate) subscriptions: Subscriptions,
}

impl Resources {
    /// Serialise `registry`'s listings into pages of `page_size` (see [`Listing::build`]).
    pub(crate) fn new(
        registry: ResourceRegistry,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: std::time::Duration,
    ) -> Resources {
        let resources = Listing::build(registry.resources().map(|r| r.info()), page_size, modern_meta, ttl);
        let templates = Listing::build(registry.templates().map(|t| t.info()), page_size, modern_meta, ttl);
        Resources { registry, resources, templates, subscriptions: Subscriptions::default() }
    }

    /// `resources`, with subscriptions and without list-change notifications (the set is
    /// fixed for the life of the process).
    pub(crate) fn advertise(&self, capabilities: &mut ServerCapabilities) {
        capabilities.resources = Some(ResourcesCapability { subscribe: true, list_changed: false });
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

/// Answer one request for a resources method (or `subscriptions/listen`).
pub(crate) fn request(
    session: &SessionInner,
    resources: &Resources,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
) {
    let outcome = match method {
        "resources/list" => list(session, &resources.resources, method, params),
        "resources/templates/list" => list(session, &resources.templates, method, params),
        "resources/read" => return read(session, resources, reply, params),
        "resources/subscribe" | "resources/unsubscribe" => {
            return match subscribe(session, resources, method, params) {
                Ok(()) => reply.result("{}"),
                Err(e) => reply.error(e),
            };
        }
        "subscriptions/listen" => return listen(session, resources, reply, params),
        other => Err(method_not_found(other)),
    };
    match outcome {
        Ok(page) => reply.result(page),
        Err(error) => reply.error(error),
    }
}

fn list<'l>(
    session: &SessionInner,
    listing: &'l Listing,
    method: &str,
    params: Option<&RawValue>,
) -> Result<&'l str, RpcError> {
    let p: ListParams<'_> = decode_params(method, params)?;
    let (_, modern) = session.served(p.meta.as_ref())?.peer()?;
    listing.page(p.cursor.as_deref(), modern)
}

/// The not-found error for `uri`, in the era's code.
fn not_found(uri: &str, modern: bool) -> RpcError {
    let code = if modern { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND };
    RpcError::new(code, ResourceError::NotFound { uri: uri.to_owned() }.to_string())
        .with_data(format!("{{\"uri\":{}}}", json_string(uri)))
}

fn read(session: &SessionInner, resources: &Resources, reply: Reply, params: Option<&RawValue>) {
    let p: UriParams<'_> = match decode_params("resources/read", params) {
        Ok(p) => p,
        Err(e) => return reply.error(e),
    };
    let (peer, modern) = match session.served(p.meta.as_ref()).and_then(Served::peer) {
        Ok(served) => served,
        Err(e) => return reply.error(e),
    };
    let target = match resources.registry.resolve(&p.uri) {
        Some(Resolved::Fixed(r)) => Target::Fixed(r.clone()),
        Some(Resolved::Template(t, vars)) => Target::Template(t.clone(), vars),
        None => return reply.error(not_found(&p.uri, modern)),
    };
    session.run(reply, p.meta.as_ref(), peer, modern, ReadCall { uri: p.uri.into_owned(), target });
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

fn subscribe(
    session: &SessionInner,
    resources: &Resources,
    method: &str,
    params: Option<&RawValue>,
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
    if method == "resources/unsubscribe" {
        if let Some(s) = session.subscriber.get() {
            s.unsubscribe(&p.uri);
        }
        return Ok(());
    }
    if !resources.registry.serves(&p.uri) {
        return Err(not_found(&p.uri, false));
    }
    let Some(subscriber) = session.legacy_subscriber(&resources.subscriptions) else {
        return Err(RpcError::invalid_request(format!(
            "invalid request: this session has no channel for notifications outside a call, so {} cannot be delivered",
            PyStr("notifications/resources/updated")
        )));
    };
    subscriber.subscribe(&p.uri);
    Ok(())
}

fn listen(session: &SessionInner, resources: &Resources, reply: Reply, params: Option<&RawValue>) {
    let p: ListenParams<'_> = match decode_params("subscriptions/listen", params) {
        Ok(p) => p,
        Err(e) => return reply.error(e),
    };
    let (peer, modern) = match session.served(p.meta.as_ref()).and_then(Served::peer) {
        Ok(served) => served,
        Err(e) => return reply.error(e),
    };
    if !modern {
        return reply.error(missing_envelope("subscriptions/listen"));
    }
    let Some(id) = reply.id().map(|id| id.to_json()) else {
        return reply.error(missing_envelope("subscriptions/listen"));
    };
    // Only URIs this server serves are acknowledged (and so watched).
    let uris: Vec<String> =
        p.notifications.resource_subscriptions.into_iter().filter(|u| resources.registry.serves(u)).collect();
    let subscriber = Subscriber::new(reply.route().sink().clone(), Some(id.clone()));
    for uri in &uris {
        subscriber.subscribe(uri);
    }
    let ack = format!(
        "\"notifications\":{{\"resourceSubscriptions\":{}}}",
        serde_json::to_string(&uris).unwrap_or_default()
    );
    let call = ListenCall { subscriber, ack, id, table: session.shared.clone() };
    session.run(reply, p.meta.as_ref(), peer, modern, call);
}

/// One open `subscriptions/listen`: its subscriber lives as long as the request.
struct ListenCall {
    subscriber: Arc<Subscriber>,
    /// The acknowledged filter, as members of the acknowledgment's params.
    ack: String,
    /// The request id, raw JSON.
    id: String,
    table: Arc<super::Shared>,
}

impl Handler for ListenCall {
    type Output = ();

    fn start<'a>(&'a self, _ctx: &'a Context) -> Started<'a, ()> {
        Box::pin(async move {
            // The acknowledgment goes first; only then can an update reach this subscriber.
            self.subscriber.send("notifications/subscriptions/acknowledged", &self.ack);
            if let Some(resources) = &self.table.resources {
                resources.subscriptions.add(&self.subscriber);
            }
            std::future::pending::<()>().await;
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
