//! A call run as a task: when it becomes one ([`until_first_wait`]), how the task is made
//! ([`start`]) and how its body is run to the end on this replica (the driver), talking to the
//! client through the task's `inputRequests` ([`TaskTalk`]).
//!
//! # When a call becomes a task
//!
//! A call that may become a task (its tool allows it, and the 2026-07-28 request declared the
//! extension) starts as any modern call does, in `input_required` rounds (module `rounds`).
//! The first time its body waits on something that is not an answer from the client, the
//! call becomes a task: that attempt is dropped, the task is made (and stored, before the
//! client hears of it), and the body runs again from the start in the task, on this replica,
//! with the answers the rounds gathered. So the asks a body makes before its first wait are
//! rounds of the call itself (the spec's "multi round-trip requests, then a task"), and the
//! asks it makes after are the task's `inputRequests`, answered with `tasks/update`. A body
//! that finishes without waiting is answered with its result, as an ordinary call is.
//!
//! A body runs again from the start exactly as it does in each round: the rounds already
//! require a body to be safe to run again up to its asks.
//!
//! # The driver
//!
//! The body runs in a task of its own (a tokio task, not bounded by `max_in_flight` or the
//! deadline; bounded by the task's TTL, and counted among the `max_tasks` this replica runs
//! at once until it ends), beside the driver that
//! saves the record when the body asks or reports progress, renews the lease every third of
//! it, and looks in the store's inbox every poll interval (and at once when a `tasks/update`
//! or `tasks/cancel` is served here) for the answers and cancellations clients left on any
//! replica. A cancellation drops the body's future (cancelling its context first), and the
//! task ends `cancelled`.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;

use crate::context::{AskError, Asked, CallParts, Context, PeerInfo, Progress, RequestParts, Talkback};
use crate::principal::Principal;
use crate::protocol::wire::{InputRequest, Task, TaskStatus};
use crate::protocol::{ClientCapabilities, LoggingLevel, RpcError, code};
use crate::race::{Either, first};
use crate::state::StateMap;
use crate::sync::lock;

use super::store::TaskRecord;
use super::tasks::{Local, Tasks, error_json, iso, now_ms, random_id};

/// How a task's body ended.
pub(crate) enum TaskEnd {
    /// With a result (a `CallToolResult`, `isError: true` included), as JSON text.
    Completed(String),
    /// With a JSON-RPC error.
    Failed(RpcError),
}

/// A task's body: given its context, the future that runs it to its end.
pub(crate) type TaskBody =
    Box<dyn for<'c> FnOnce(&'c Context) -> Pin<Box<dyn Future<Output = TaskEnd> + Send + 'c>> + Send>;

/// Run `body` until it finishes (`Some`) or first waits on anything but the client with
/// nothing asked of it in `stopped`'s round (`None`: the call becomes a task). A wait with
/// something asked is the round's to end (module `rounds`): it is passed on as a wait.
///
/// A `#[tool(local)]` body runs on a local thread, where its call cannot see it wait: until
/// its first poll there is over, its call's pending is passed on as a wait
/// ([`poll_judging_waits`](crate::tool::poll_judging_waits)); then a body that waits makes the call a
/// task, and one that finished in that poll answers it, as an async body polled in place does.
pub(crate) async fn until_first_wait<T>(
    stopped: impl Fn() -> bool,
    body: impl Future<Output = T>,
) -> Option<T> {
    let mut body = pin!(body);
    std::future::poll_fn(|cx| match crate::tool::poll_judging_waits(body.as_mut(), cx) {
        (Poll::Ready(done), _) => Poll::Ready(Some(done)),
        (Poll::Pending, handing_over) if handing_over || stopped() => Poll::Pending,
        (Poll::Pending, _) => Poll::Ready(None),
    })
    .await
}

/// Who a task runs for, as the request that made it said.
pub(crate) struct TaskCaller {
    pub(crate) peer: Arc<PeerInfo>,
    pub(crate) principal: Arc<Principal>,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) states: Option<Arc<StateMap>>,
    /// The answers the call's rounds gathered, by key: the body's asks before its first wait
    /// find them again.
    pub(crate) answers: BTreeMap<String, Box<RawValue>>,
    /// The host's cancellation, the parent of the task's.
    pub(crate) parent: Option<tokio_util::sync::CancellationToken>,
    /// The request that started the task: what its body reads as its request.
    pub(crate) request: Option<Box<RequestParts>>,
    /// Its place among the tasks this replica runs at once (`ServerOptions::max_tasks`),
    /// held until its body ends.
    pub(crate) place: Option<tokio::sync::OwnedSemaphorePermit>,
}

/// Make a task for `body` and start it: the record is stored before this returns (a
/// `tasks/get` finds it at once), then the body runs in a task of its own. The task as the
/// `CreateTaskResult` shows it.
pub(crate) async fn start(tasks: &Arc<Tasks>, caller: TaskCaller, body: TaskBody) -> Result<Task, RpcError> {
    let now = now_ms();
    let mut task = Task::new(random_id(), TaskStatus::Working, iso(now), Some(tasks.ttl.as_millis() as u64));
    task.poll_interval_ms = Some(tasks.poll_interval.as_millis().max(1) as u64);
    let record = TaskRecord {
        task,
        subject: caller.principal.subject().to_owned(),
        owner: tasks.replica.clone(),
        lease_until_ms: now + tasks.lease.as_millis() as u64,
    };
    tasks.store.create(&record, tasks.ttl).await.map_err(super::tasks::unavailable)?;
    let handle = record.task.handle();
    let id = handle.task_id.clone();
    let local = tasks.enter(record, caller.parent.as_ref());
    let talk = Arc::new(TaskTalk {
        capabilities: caller.capabilities,
        given: Mutex::new(caller.answers),
        auto: AtomicU32::new(0),
        local: local.clone(),
    });
    let progress_to = local.clone();
    let ctx = Context::for_call(CallParts {
        parent: Some(local.cancel.clone()),
        peer: caller.peer,
        principal: caller.principal,
        progress: Some(Arc::new(move |p: Progress| progress_to.progress(&p))),
        talk: Some(talk),
        states: caller.states,
        cannot_ask: None,
        request: caller.request,
    });
    tracing::debug!(task = %id, "task started");
    tokio::spawn(drive(tasks.clone(), id, local, ctx, body, caller.place));
    Ok(handle)
}

impl Local {
    /// A progress report, as the task's status message: `3/10: copying` (or `3: copying`).
    fn progress(&self, p: &Progress) {
        let number = |n: f64| if n.fract() == 0.0 { format!("{n:.0}") } else { n.to_string() };
        let mut text = match p.total {
            Some(total) => format!("{}/{}", number(p.progress), number(total)),
            None => number(p.progress),
        };
        if let Some(message) = &p.message {
            text.push_str(": ");
            text.push_str(message);
        }
        let mut live = lock(&self.live);
        live.record.task.status_message = Some(text);
        live.settle();
        drop(live);
        self.changed.notify_one();
    }
}

/// Run a task's body to its end, keeping its record in the store up to date.
async fn drive(
    tasks: Arc<Tasks>,
    id: String,
    local: Arc<Local>,
    ctx: Context,
    body: TaskBody,
    _place: Option<tokio::sync::OwnedSemaphorePermit>,
) {
    let started = Instant::now();
    let ends_at = started + tasks.ttl;
    let look_every = tasks.poll_interval.min(tasks.lease / 3);
    let renew_every = tasks.lease / 3;
    let mut renewed = started;
    let mut run = body(&ctx);
    let end = loop {
        let cancelled = local.cancel.cancelled();
        let tick = tokio::time::sleep(look_every);
        let expired = tokio::time::sleep_until(ends_at.into());
        let events = first(
            cancelled,
            first(local.changed.notified(), first(local.wake.notified(), first(tick, expired))),
        );
        match first(run.as_mut(), events).await {
            Either::Left(end) => break end,
            Either::Right(Either::Left(())) => {
                break TaskEnd::Failed(RpcError::new(code::INTERNAL_ERROR, "cancelled"));
            }
            Either::Right(Either::Right(Either::Left(()))) => save(&tasks, &local).await,
            Either::Right(Either::Right(Either::Right(Either::Left(())))) => look(&tasks, &id, &local).await,
            Either::Right(Either::Right(Either::Right(Either::Right(Either::Left(()))))) => {
                look(&tasks, &id, &local).await;
                if renewed.elapsed() >= renew_every {
                    renewed = Instant::now();
                    save(&tasks, &local).await;
                }
            }
            Either::Right(Either::Right(Either::Right(Either::Right(Either::Right(()))))) => {
                ctx.cancel();
                let ttl = tasks.ttl.as_secs_f64();
                break TaskEnd::Failed(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!(
                        "internal error: the task did not finish within its TTL of {ttl}s and was stopped"
                    ),
                ));
            }
        }
    };
    // The body's future goes first (a cancelled body stops here), then its context.
    drop(run);
    let cancelled = local.cancel.is_cancelled();
    ctx.cancel();
    {
        let mut live = lock(&local.live);
        live.waiters.clear();
        let task = &mut live.record.task;
        task.input_requests = None;
        task.last_updated_at = iso(now_ms());
        match end {
            _ if cancelled => {
                task.status = TaskStatus::Cancelled;
                task.status_message = Some("cancelled by the client (tasks/cancel)".to_owned());
            }
            TaskEnd::Completed(result) => {
                task.status = TaskStatus::Completed;
                task.result = RawValue::from_string(result).ok();
            }
            TaskEnd::Failed(error) => {
                task.status = TaskStatus::Failed;
                task.status_message = Some(error.message.clone());
                task.error = error_json(&error);
            }
        }
    }
    // Kept for what is left of its TTL (a second at least, so a finished task can be read).
    let left = ends_at.saturating_duration_since(Instant::now()).max(Duration::from_secs(1));
    let record = local.snapshot();
    if let Err(e) = tasks.store.save(&record, left).await {
        tracing::warn!(task = %id, error = %e, "the task's end could not be saved");
    }
    tasks.announce(&record);
    tasks.leave(&id);
    tracing::debug!(task = %id, status = record.task.status.as_str(), "task ended");
}

/// Save the record as it is now, with the lease renewed.
async fn save(tasks: &Tasks, local: &Local) {
    let record = {
        let mut live = lock(&local.live);
        live.record.lease_until_ms = now_ms() + tasks.lease.as_millis() as u64;
        live.record.clone()
    };
    if let Err(e) = tasks.store.save(&record, tasks.ttl).await {
        tracing::warn!(task = %record.task.task_id, error = %e, "the task's state could not be saved");
    }
    tasks.announce(&record);
}

/// Take the inbox: a cancellation cancels the body, answers go to it.
async fn look(tasks: &Tasks, id: &str, local: &Local) {
    match tasks.store.take(id).await {
        Ok(inbox) => {
            if inbox.cancel {
                local.cancel.cancel();
            }
            if !inbox.answers.is_empty() && local.answer(inbox.answers) {
                save(tasks, local).await;
            }
        }
        Err(e) => tracing::warn!(task = %id, error = %e, "the task's inbox could not be read"),
    }
}

/// A task's way back to its client: each ask is an entry of the task's `inputRequests`,
/// answered by `tasks/update`; an ask the call's rounds already had an answer for is
/// answered with it at once.
struct TaskTalk {
    capabilities: ClientCapabilities,
    given: Mutex<BTreeMap<String, Box<RawValue>>>,
    /// How many asks without a key of their own were made (`ask-N`, as in the rounds).
    auto: AtomicU32,
    local: Arc<Local>,
}

impl Talkback for TaskTalk {
    fn capabilities(&self) -> ClientCapabilities {
        self.capabilities
    }

    // A task has no stream to log on: the spec sends no `notifications/message` for it.
    fn log_level(&self) -> Option<LoggingLevel> {
        None
    }

    fn notify(&self, _method: &str, _params: String) {}

    fn request(&self, method: &'static str, params: String) -> Asked {
        self.request_as(None, method, params)
    }

    fn request_as(&self, key: Option<&str>, method: &'static str, params: String) -> Asked {
        let key = match key {
            Some(key) => key.to_owned(),
            None => format!("ask-{}", self.auto.fetch_add(1, Ordering::Relaxed) + 1),
        };
        if let Some(answer) = lock(&self.given).remove(&key) {
            return Box::pin(std::future::ready(Ok(answer)));
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        {
            let mut live = lock(&self.local.live);
            let params = RawValue::from_string(params).ok();
            live.record
                .task
                .input_requests
                .get_or_insert_with(Default::default)
                .insert(key.clone(), InputRequest::new(method, params));
            live.waiters.insert(key, tx);
            live.settle();
        }
        self.local.changed.notify_one();
        Box::pin(async move {
            rx.await.map_err(|_| AskError::Unavailable {
                what: method,
                why: "the task ended before the client answered".to_owned(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_body_that_waits_becomes_a_task_and_one_that_asks_stays_a_round() {
        assert_eq!(until_first_wait(|| false, async { 7 }).await, Some(7));
        let waits = until_first_wait(|| false, tokio::time::sleep(Duration::from_millis(1))).await;
        assert!(waits.is_none());
        // A body stopped for input keeps waiting: the round ends it.
        let asked = until_first_wait(|| true, std::future::pending::<()>());
        let timed = tokio::time::timeout(Duration::from_millis(20), asked).await;
        assert!(timed.is_err());
    }
}
