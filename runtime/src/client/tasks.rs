//! The tasks extension (`io.modelcontextprotocol/tasks`), the client's half: a request the
//! server answered with a task (`resultType: "task"`) driven to its end ([`drive`]), and a
//! task read and cancelled by its id (`Client::get_task`, `Client::cancel_task`, in module
//! `task_calls`).
//!
//! Declared with [`ClientOptions::tasks`](super::ClientOptions::tasks). The driver polls
//! `tasks/get` at the server's `pollIntervalMs` (kept between 10 ms and 5 s), answers each new
//! input request key once through the client's handlers (as a round of `input_required`
//! does) and sends the answers with `tasks/update`, reports each new status message as
//! progress, and sends `tasks/cancel` when the call is cancelled or its timeout runs out. The
//! task's end is the request's: `completed` its `result`, `failed` its JSON-RPC `error`,
//! `cancelled` the call cancelled.
//!
//! A `failed` task ran: the server accepted the request before it failed. A `tools/call`
//! (`Client::call_tool`, an adopted tool, a typed handle) reports it as the tool having failed
//! (`RemoteError::Failed`: the server's message sealed as untrusted data, unsealed for code by
//! `ToolError::reported`), never as declined, the word for a JSON-RPC error answered at once:
//! a model told "declined" would think nothing ran and might run it again. Other requests
//! report it as `ClientError::Rpc`, with the code and the server's message.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::conn::{Conn, Failure, RequestOpts};
use super::rounds::{RoundFailure, answer_all};
use crate::context::Progress;
use crate::protocol::methods;
use crate::protocol::wire::{TASK, TASKS_EXTENSION, Task, TaskStatus};
use crate::race::{Either, first};

/// The shortest and longest wait between two polls, whatever the server suggests.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(5));

/// Whether a JSON-RPC error (`code`, `data`) is a server's -32021 naming the tasks extension
/// among the capabilities it requires (`data.requiredCapabilities.extensions`), as toolwire's
/// server and rmcp's send for a tool that runs only as a task.
pub(crate) fn requires_tasks(code: i64, data: Option<&Value>) -> bool {
    code == crate::protocol::code::MISSING_REQUIRED_CLIENT_CAPABILITY
        && data
            .and_then(|d| d.pointer("/requiredCapabilities/extensions"))
            .and_then(Value::as_object)
            .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION))
}

/// What to change on the client behind `conn` so that its requests declare the tasks
/// extension, for the error of a server that requires it ([`requires_tasks`]).
pub(crate) fn tasks_fix(conn: &Conn) -> &'static str {
    match (conn.options().tasks, conn.is_modern()) {
        (false, true) => "this client does not take tasks: set `ClientOptions::tasks(true)`",
        (false, false) => {
            "this client does not take tasks: set `ClientOptions::tasks(true)`, on a 2026-07-28 connection (`EraMode::Modern`)"
        }
        (true, false) => {
            "this client declares tasks only on a 2026-07-28 connection, which this one is not: connect with `EraMode::Modern`"
        }
        (true, true) => "this client declared the extension, yet the server did not take the declaration",
    }
}

/// Whether a result is a task's handle (its `resultType`).
pub(crate) fn is_task(result: &RawValue) -> bool {
    let text = result.get();
    if !text.contains("resultType") {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "resultType", default, borrow)]
        result_type: Option<Cow<'a, str>>,
    }
    serde_json::from_str::<Kind<'_>>(text).is_ok_and(|k| k.result_type.as_deref() == Some(TASK))
}

/// [`rounds::request`](super::rounds::request) for a request a server may answer with a
/// task (`tools/call`): its `input_required` rounds answered, then, when the answer is a task,
/// the task driven to its end within what is left of the request's timeout.
pub(crate) async fn request(
    conn: &Arc<Conn>,
    method: &str,
    params: Map<String, Value>,
    opts: RequestOpts,
    max_rounds: u32,
) -> Result<Box<RawValue>, RoundFailure> {
    let deadline = opts.timeout.map(|t| (Instant::now() + t, t));
    let result = super::rounds::request(conn, method, params, opts.clone(), max_rounds).await?;
    if !is_task(&result) {
        return Ok(result);
    }
    drive(conn, &result, &opts, deadline).await
}

/// Drive the task `created` is the handle of to its end; its result, as the request's own.
/// `deadline` (when, and the call's whole timeout) bounds it.
async fn drive(
    conn: &Arc<Conn>,
    created: &RawValue,
    opts: &RequestOpts,
    deadline: Option<(Instant, Duration)>,
) -> Result<Box<RawValue>, RoundFailure> {
    let task: Task = serde_json::from_str(created.get()).map_err(|e| {
        RoundFailure::Input(format!("its task handle (resultType \"task\") is malformed: {e}"))
    })?;
    let id = task.task_id.clone();
    let mut interval = poll_interval(&task);
    let mut message = task.status_message.clone();
    let mut reported = 0.0;
    let mut answered: BTreeSet<String> = BTreeSet::new();
    let cancel = opts.cancel.clone();
    loop {
        // Wait for the next poll, or for the caller's cancellation or the deadline.
        let wait = tokio::time::sleep(interval);
        let cancelled = async {
            match &cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let expired = async {
            match deadline {
                Some((at, _)) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        match first(wait, first(cancelled, expired)).await {
            Either::Left(()) => {}
            Either::Right(Either::Left(())) => {
                cancel_quietly(conn, &id).await;
                return Err(RoundFailure::Request(Failure::Cancelled));
            }
            Either::Right(Either::Right(())) => {
                cancel_quietly(conn, &id).await;
                let total = deadline.map_or(Duration::ZERO, |(_, total)| total);
                return Err(RoundFailure::Request(Failure::Timeout(total)));
            }
        }
        let got =
            conn.request_with(methods::TASKS_GET, Cow::Owned(task_params(&id)), poll_opts(opts)).await?;
        let task: Task = serde_json::from_str(got.get())
            .map_err(|e| RoundFailure::Input(format!("its tasks/get result is malformed: {e}")))?;
        interval = poll_interval(&task);
        if task.status_message.is_some() && task.status_message != message {
            message = task.status_message.clone();
            if let Some(progress) = &opts.progress {
                reported += 1.0;
                progress(Progress { progress: reported, total: None, message: message.clone() });
            }
        }
        match task.status {
            TaskStatus::Completed => {
                return task
                    .result
                    .ok_or_else(|| RoundFailure::Input(format!("its task {id} completed without a result")));
            }
            TaskStatus::Failed => {
                let error =
                    task.error.and_then(|e| serde_json::from_str::<Value>(e.get()).ok()).unwrap_or_default();
                // The server ran the request and it failed: not a refusal (module docs).
                return Err(RoundFailure::Request(Failure::TaskFailed {
                    code: error["code"].as_i64().unwrap_or(crate::protocol::code::INTERNAL_ERROR),
                    message: error["message"]
                        .as_str()
                        .or(task.status_message.as_deref())
                        .unwrap_or("")
                        .to_owned(),
                }));
            }
            TaskStatus::Cancelled => return Err(RoundFailure::Request(Failure::Cancelled)),
            TaskStatus::InputRequired => {
                // Each key is answered once: a later poll shows it until the server took it.
                let mut asked = task.input_requests.unwrap_or_default();
                asked.retain(|key, _| !answered.contains(key));
                if asked.is_empty() {
                    continue;
                }
                answered.extend(asked.keys().cloned());
                let responses = answer_all(conn, asked, cancel.as_ref()).await?;
                let mut params = task_params(&id);
                params.insert("inputResponses".into(), serde_json::to_value(&responses).unwrap_or_default());
                conn.request_with(methods::TASKS_UPDATE, Cow::Owned(params), poll_opts(opts)).await?;
                interval = Duration::ZERO;
            }
            // `working`, or a status this build does not know: poll on.
            _ => {}
        }
    }
}

/// `{"taskId": id}`.
fn task_params(id: &str) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("taskId".into(), id.into());
    params
}

/// The options of one poll: the call's cancellation is watched by the driver, not here.
fn poll_opts(opts: &RequestOpts) -> RequestOpts {
    RequestOpts {
        timeout: Some(POLL_BOUNDS.1 * 2),
        cancel: None,
        progress: None,
        id_out: None,
        headers: opts.headers.clone(),
    }
}

/// The wait the server suggests, within [`POLL_BOUNDS`].
fn poll_interval(task: &Task) -> Duration {
    let suggested = Duration::from_millis(task.poll_interval_ms.unwrap_or(500));
    suggested.clamp(POLL_BOUNDS.0, POLL_BOUNDS.1)
}

/// Send `tasks/cancel`, best effort (the call is ending whatever the answer).
async fn cancel_quietly(conn: &Arc<Conn>, id: &str) {
    let opts = RequestOpts {
        timeout: Some(Duration::from_secs(5)),
        cancel: None,
        progress: None,
        id_out: None,
        headers: Vec::new(),
    };
    if let Err(e) = conn.request_with(methods::TASKS_CANCEL, Cow::Owned(task_params(id)), opts).await {
        tracing::debug!(task = id, failure = ?e, "tasks/cancel was not acknowledged");
    }
}
