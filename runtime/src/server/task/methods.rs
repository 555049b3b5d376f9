//! `tasks/get`, `tasks/update` and `tasks/cancel`: a task read, answered and cancelled by its
//! id, on whichever replica the request lands (the record is in the shared store).
//!
//! | request | answer |
//! | --- | --- |
//! | a legacy request (the extension is 2026-07-28's) | -32601 |
//! | a 2026-07-28 request whose `_meta` does not declare `io.modelcontextprotocol/tasks` | -32021, `data.requiredCapabilities` naming it |
//! | an id no task has, or another principal's task | -32602 `task not found: 'x' (it never existed, or expired)` |
//! | `tasks/get` | the task, `resultType: "complete"`: `inputRequests` while `input_required`, `result` once `completed`, `error` once `failed` |
//! | `tasks/update` | `{resultType: "complete"}`; answers to keys not outstanding are ignored; `inputResponses` not an object is -32602 |
//! | `tasks/cancel` | `{resultType: "complete"}`, whatever the task's status (cancelling a finished task changes nothing) |
//!
//! An update or cancellation served on the replica running the task takes effect before it
//! is acknowledged; served elsewhere, it is left in the task's inbox in the store and taken
//! by the owner within one poll interval (the spec allows both: the acknowledgement is
//! eventually consistent).
//!
//! `tasks/result` and `tasks/list` (the 2025-11-25 experimental tasks) are not methods of the
//! extension: -32601, like any unknown method.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::args::PyStr;
use crate::protocol::envelope::kind;
use crate::protocol::meta::{EmptyResult, ModernResult, RequestMeta};
use crate::protocol::methods;
use crate::protocol::wire::{COMPLETE, TASKS_EXTENSION, TaskIdParams, UpdateTaskParams};
use crate::protocol::{ClientCapabilities, RpcError, code};

use super::tasks::{Tasks, unavailable};
use crate::server::dispatch::era::{Served, decode_params, method_not_found};
use crate::server::dispatch::sink::Reply;
use crate::server::dispatch::state::SessionInner;

/// `data` of the -32021 a client that did not declare the extension gets.
pub(crate) const REQUIRED_TASKS: &str =
    r#"{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

/// -32021 for `what`, which needs the extension the client did not declare.
pub(crate) fn missing_extension(what: &str) -> RpcError {
    RpcError::new(
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "{what} needs the tasks extension ({TASKS_EXTENSION}), which this request did not declare (a 2026-07-28 request declares it under `extensions` in its `_meta` client capabilities)"
        ),
    )
    .with_data(REQUIRED_TASKS.to_owned())
}

/// Answer one `tasks/` request.
pub(crate) fn request(
    session: &SessionInner,
    tasks: &Arc<Tasks>,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    subject: &str,
) {
    let decoded = match method {
        methods::TASKS_UPDATE => decode_params::<UpdateTaskParams<'_>>(method, params).and_then(|p| {
            let answers = match p.input_responses {
                None => BTreeMap::new(),
                Some(raw) => serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(raw.get()).map_err(|_| {
                    RpcError::invalid_params(format!(
                        "invalid params: inputResponses must be an object of the client's results by key, got {}",
                        kind(raw.get())
                    ))
                })?,
            };
            Ok((p.task_id.into_owned(), p.meta, answers))
        }),
        _ => decode_params::<TaskIdParams<'_>>(method, params).map(|p| (p.task_id.into_owned(), p.meta, BTreeMap::new())),
    };
    let (id, meta, answers) = match decoded {
        Ok(d) => d,
        Err(e) => return reply.error(e),
    };
    if let Err(e) = admitted(session, method, meta.as_ref()) {
        return reply.error(e);
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return reply.error(RpcError::new(
            code::INTERNAL_ERROR,
            "internal error: the server is not running on a tokio runtime",
        ));
    };
    let tasks = tasks.clone();
    let meta = session.shared.modern_meta.clone();
    let subject = subject.to_owned();
    let method: &'static str = match method {
        methods::TASKS_GET => methods::TASKS_GET,
        methods::TASKS_UPDATE => methods::TASKS_UPDATE,
        _ => methods::TASKS_CANCEL,
    };
    runtime.spawn(async move {
        match answer(&tasks, method, &id, &subject, answers, &meta).await {
            Ok(body) => reply.result(&body),
            Err(e) => reply.error(e),
        }
    });
}

/// The request is 2026-07-28's and declares the extension.
fn admitted(session: &SessionInner, method: &str, meta: Option<&RequestMeta<'_>>) -> Result<(), RpcError> {
    match session.served(meta)? {
        Served::Legacy(_) => Err(method_not_found(method)),
        Served::Modern { .. } => {
            let declared = ClientCapabilities::read(meta.and_then(|m| m.client_capabilities));
            if declared.tasks { Ok(()) } else { Err(missing_extension(&format!("`{method}`"))) }
        }
    }
}

async fn answer(
    tasks: &Tasks,
    method: &'static str,
    id: &str,
    subject: &str,
    answers: BTreeMap<String, Box<RawValue>>,
    meta: &RawValue,
) -> Result<String, RpcError> {
    let text = |e: serde_json::Error| RpcError::new(code::INTERNAL_ERROR, format!("internal error: {e}"));
    let Some(task) = tasks.read(id, subject).await? else {
        return Err(RpcError::invalid_params(format!(
            "task not found: {} (it never existed, or expired)",
            PyStr(id)
        )));
    };
    let ack = || serde_json::to_string(&ModernResult::complete(meta, &EmptyResult {})).map_err(text);
    match method {
        methods::TASKS_GET => {
            serde_json::to_string(&ModernResult { meta, result_type: COMPLETE, body: &task }).map_err(text)
        }
        _ if task.status.is_terminal() => ack(),
        methods::TASKS_UPDATE => {
            match tasks.local(id) {
                // Here: the body has its answers, and the record says so, before the ack.
                Some(local) => {
                    if local.answer(answers) {
                        let record = local.snapshot();
                        tasks.store.save(&record, tasks.ttl).await.map_err(unavailable)?;
                        tasks.announce(&record);
                    }
                }
                None => {
                    if !answers.is_empty() {
                        tasks.store.post(id, false, &answers).await.map_err(unavailable)?;
                    }
                }
            }
            ack()
        }
        _ => {
            match tasks.local(id) {
                Some(local) => local.cancel.cancel(),
                None => {
                    tasks.store.post(id, true, &BTreeMap::new()).await.map_err(unavailable)?;
                }
            }
            ack()
        }
    }
}
