//! `subscriptions/listen`, the 2026-07-28 channel that carries a live server's list changes
//! (module `live`) and resource updates: one request that stays open, its subscriber
//! tracked as long as it runs.
//!
//! | `subscriptions/listen` | the answer |
//! | --- | --- |
//! | a modern request | `notifications/subscriptions/acknowledged` first, naming what is granted (the list-changed flags of the lists that can change, the `resourceSubscriptions` this server serves), then each notification for them, all with its `subscriptionId`; the request stays open until the client cancels it |
//! | `notifications.taskIds` (the tasks extension) | granted when the request declares the extension (else -32021): each listed task's `notifications/tasks`, its whole state as `tasks/get` shows it, each time it changes, from the replica running it, for the principal that started it |
//! | a legacy request | -32602, as for any modern-only method without its envelope |

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::context::Context;
use crate::protocol::resources::ListenParams;
use crate::protocol::{ClientCapabilities, RpcError};

use super::subscriptions::{ListFlags, ListKind, Subscriber};
use crate::server::access::caller::Caller;
use crate::server::capability::resources::readable;
use crate::server::dispatch::era::{Served, decode_params, missing_envelope};
use crate::server::dispatch::sink::Reply;
use crate::server::dispatch::state::SessionInner;
use crate::server::run::request::{Handler, Started, Stop};
use crate::server::serving::Serving;
use crate::server::shared::Shared;
use crate::server::task::methods::missing_extension;

/// Whether `subscriptions/listen` is served: when resources are (their updates), or when a
/// list can change.
pub(crate) fn listens(serving: &Serving) -> bool {
    serving.resources.is_some() || serving.shared.live || serving.shared.tasks.is_some()
}

/// Answer `subscriptions/listen`.
pub(crate) fn listen(
    session: &SessionInner,
    serving: &Serving,
    reply: Reply,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
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
    let shared = &session.shared;
    let filter = p.notifications;
    // Only a list that can change is granted, and only URIs this server serves and the
    // caller may read are acknowledged (and so watched).
    let can_change = |served: bool| served && shared.live;
    let mut lists = ListFlags::default();
    let mut ack = Vec::new();
    for (asked, served, kind, key) in [
        (filter.tools_list_changed, serving.tools.is_some(), ListKind::Tools, "toolsListChanged"),
        (filter.prompts_list_changed, serving.prompts.is_some(), ListKind::Prompts, "promptsListChanged"),
        (
            filter.resources_list_changed,
            serving.resources.is_some(),
            ListKind::Resources,
            "resourcesListChanged",
        ),
    ] {
        if asked && can_change(served) {
            lists = lists.with(kind);
            ack.push(format!("\"{key}\":true"));
        }
    }
    let uris: Vec<String> = match &serving.resources {
        Some(resources) => {
            let set = resources.set.load();
            // What the caller may not read is not granted, as if nothing served it.
            let gate = caller.gate(shared.access.as_ref());
            filter.resource_subscriptions.into_iter().filter(|u| readable(&set.registry, u, &gate)).collect()
        }
        None => Vec::new(),
    };
    if serving.resources.is_some() {
        ack.push(format!("\"resourceSubscriptions\":{}", serde_json::to_string(&uris).unwrap_or_default()));
    }
    // Tasks (the tasks extension): granted to a request that declares the extension; each
    // task's `notifications/tasks` come from the replica running it, for its principal only.
    let task_ids = match &shared.tasks {
        Some(_) if !filter.task_ids.is_empty() => {
            let declared = ClientCapabilities::read(p.meta.as_ref().and_then(|m| m.client_capabilities));
            if !declared.tasks {
                return reply.error(missing_extension("`subscriptions/listen` for task notifications"));
            }
            ack.push(format!("\"taskIds\":{}", serde_json::to_string(&filter.task_ids).unwrap_or_default()));
            filter.task_ids
        }
        _ => Vec::new(),
    };
    let subscriber = Subscriber::new(reply.route().sink().clone(), Some(id.clone()), lists, true);
    for uri in &uris {
        subscriber.subscribe(uri);
    }
    if let Some(tasks) = &shared.tasks {
        for task in &task_ids {
            tasks.watch(task, &subscriber, caller.principal.subject());
        }
    }
    let ack = format!("\"notifications\":{{{}}}", ack.join(","));
    let call = ListenCall { subscriber, ack, id, shared: shared.clone() };
    session.run(reply, p.meta.as_ref(), peer, modern, call, caller);
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
