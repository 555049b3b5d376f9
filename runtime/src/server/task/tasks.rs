//! [`Tasks`]: a server's tasks, as every session reads them: the [`TaskStore`] they are kept
//! in, this replica's id, the tasks it runs (to cancel and wake them without waiting for the
//! store), and the settings every task is made with.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::value::RawValue;
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::protocol::RpcError;
use crate::protocol::code;
use crate::protocol::wire::{Task, TaskStatus};
use crate::sync::lock;

use super::store::{TaskRecord, TaskStore, TaskStoreError};
use crate::server::notify::subscriptions::Subscriber;
use crate::server::options::ServerOptions;

/// The message of a task whose replica stopped renewing its lease: what `tasks/get` says of a
/// task that was running on a replica that died.
pub(crate) const LEASE_LOST: &str = "the server replica running this task stopped renewing its lease (it stopped or was killed); the task's result is lost";

/// A server's tasks.
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    /// This replica, as the records it owns name it.
    pub(crate) replica: String,
    running: Mutex<HashMap<String, Arc<Local>>>,
    /// The `subscriptions/listen` streams open here that asked for a task's
    /// `notifications/tasks`, by task id, with the subject of the principal that asked.
    watchers: Mutex<HashMap<String, Vec<Watcher>>>,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    pub(crate) lease: Duration,
    /// A place for each task that may run here at once (`ServerOptions::max_tasks`).
    pub(crate) places: Arc<Semaphore>,
    pub(crate) max_tasks: usize,
}

/// The JSON-RPC code of a call of a tool that runs only as a task, refused because this
/// replica runs as many tasks as it may at once
/// ([`ServerOptions::max_tasks`](crate::ServerOptions::max_tasks)); in the
/// implementation-defined server range, beside [`REFUSED`](crate::server::REFUSED).
pub const TOO_MANY_TASKS: i64 = -32032;

/// The refusal of a call of `tool`, which runs only as a task, when `max` tasks run here.
pub(crate) fn too_many_tasks(tool: &str, max: usize) -> RpcError {
    let tasks = if max == 1 { "task" } else { "tasks" };
    RpcError::new(
        TOO_MANY_TASKS,
        format!(
            "tool '{tool}' runs only as a task, and this server runs {max} {tasks} already, the most it runs at once; try again when one has ended"
        ),
    )
}

/// A `subscriptions/listen` stream watching a task, and the subject of its principal.
type Watcher = (Weak<Subscriber>, String);

/// A task this replica runs: how to cancel it, how to tell its driver what happened, and its
/// record as it is now (written to the store by the driver, and by a `tasks/update` served
/// here, before that is answered).
pub(crate) struct Local {
    pub(crate) cancel: CancellationToken,
    /// The inbox in the store has mail (a `tasks/update` or `tasks/cancel` served here).
    pub(crate) wake: Notify,
    /// The record changed (the body asked something, or reported progress): save it.
    pub(crate) changed: Notify,
    pub(crate) live: Mutex<Live>,
}

/// A running task's state on its owner.
pub(crate) struct Live {
    pub(crate) record: TaskRecord,
    /// Who waits for the answer to each outstanding input request, by its key.
    pub(crate) waiters: HashMap<String, tokio::sync::oneshot::Sender<Box<RawValue>>>,
}

impl Local {
    /// Hand the body the answers it waits for (answers to keys not outstanding are ignored, as
    /// the spec says); whether any was.
    pub(crate) fn answer(&self, answers: BTreeMap<String, Box<RawValue>>) -> bool {
        let mut live = lock(&self.live);
        let mut any = false;
        for (key, answer) in answers {
            if let Some(waiter) = live.waiters.remove(&key) {
                let _ = waiter.send(answer);
                if let Some(asked) = &mut live.record.task.input_requests {
                    asked.remove(&key);
                }
                any = true;
            }
        }
        if any {
            live.settle();
        }
        any
    }

    /// The record as it is now.
    pub(crate) fn snapshot(&self) -> TaskRecord {
        lock(&self.live).record.clone()
    }
}

impl Live {
    /// The status the outstanding requests make: `input_required` while any is, else
    /// `working`; the record's time of change is now.
    pub(crate) fn settle(&mut self) {
        let task = &mut self.record.task;
        if task.status.is_terminal() {
            return;
        }
        if task.input_requests.as_ref().is_some_and(|a| a.is_empty()) {
            task.input_requests = None;
        }
        task.status =
            if task.input_requests.is_some() { TaskStatus::InputRequired } else { TaskStatus::Working };
        task.last_updated_at = iso(now_ms());
    }
}

impl Tasks {
    /// The tasks of a server with `options`, kept in `store`.
    pub(crate) fn new(store: Arc<dyn TaskStore>, options: &ServerOptions) -> Tasks {
        Tasks {
            store,
            replica: random_id(),
            running: Mutex::new(HashMap::new()),
            watchers: Mutex::new(HashMap::new()),
            ttl: options.task_ttl,
            poll_interval: options.task_poll_interval,
            lease: options.task_lease,
            places: Arc::new(Semaphore::new(options.max_tasks.min(Semaphore::MAX_PERMITS))),
            max_tasks: options.max_tasks,
        }
    }

    /// Note a task this replica now runs, with its first record; `parent` is the host's
    /// cancellation, if any.
    pub(crate) fn enter(&self, record: TaskRecord, parent: Option<&CancellationToken>) -> Arc<Local> {
        let id = record.task.task_id.clone();
        let local = Arc::new(Local {
            cancel: parent.map_or_else(CancellationToken::new, CancellationToken::child_token),
            wake: Notify::new(),
            changed: Notify::new(),
            live: Mutex::new(Live { record, waiters: HashMap::new() }),
        });
        lock(&self.running).insert(id, local.clone());
        local
    }

    /// Send `subscriber` the `notifications/tasks` of task `id` from now on, while it lives,
    /// if the task is `subject`'s.
    pub(crate) fn watch(&self, id: &str, subscriber: &Arc<Subscriber>, subject: &str) {
        let mut watchers = lock(&self.watchers);
        let list = watchers.entry(id.to_owned()).or_default();
        list.retain(|(w, _)| w.strong_count() > 0);
        list.push((Arc::downgrade(subscriber), subject.to_owned()));
    }

    /// `record`'s state as a `notifications/tasks` to the streams watching it (each carries
    /// the whole task, as `tasks/get` would show it); the watchers of a task that ended are
    /// let go.
    pub(crate) fn announce(&self, record: &TaskRecord) {
        let id = &record.task.task_id;
        let watching: Vec<Arc<Subscriber>> = {
            let mut watchers = lock(&self.watchers);
            let Some(list) = watchers.get_mut(id) else { return };
            list.retain(|(w, _)| w.strong_count() > 0);
            let found =
                list.iter().filter(|(_, s)| *s == record.subject).filter_map(|(w, _)| w.upgrade()).collect();
            if record.task.status.is_terminal() || list.is_empty() {
                watchers.remove(id);
            }
            found
        };
        if watching.is_empty() {
            return;
        }
        let task = seen(record.clone(), now_ms());
        let Ok(text) = serde_json::to_string(&task) else { return };
        // The task's members, without the braces (`Subscriber::send` adds the subscription id).
        let members = &text[1..text.len() - 1];
        for subscriber in watching {
            subscriber.send(crate::protocol::methods::NOTIFICATIONS_TASKS, members);
        }
    }

    /// The task ended here.
    pub(crate) fn leave(&self, id: &str) {
        lock(&self.running).remove(id);
    }

    /// The task `id`, if this replica runs it.
    pub(crate) fn local(&self, id: &str) -> Option<Arc<Local>> {
        lock(&self.running).get(id).cloned()
    }

    /// The task `id` as the principal `subject` may see it: `None` when there is no such task
    /// or it is another principal's (the two read the same). A task not yet terminal whose
    /// owner's lease ran out reads as failed.
    pub(crate) async fn read(&self, id: &str, subject: &str) -> Result<Option<Task>, RpcError> {
        let record = self.store.load(id).await.map_err(unavailable)?;
        Ok(record.filter(|r| r.subject == subject).map(|r| seen(r, now_ms())))
    }
}

/// A record as a client sees it at `now` (milliseconds since the epoch).
pub(crate) fn seen(record: TaskRecord, now: u64) -> Task {
    let mut task = record.task;
    if !task.status.is_terminal() && record.lease_until_ms < now {
        task.status = TaskStatus::Failed;
        task.status_message = Some(LEASE_LOST.to_owned());
        task.input_requests = None;
        let error = RpcError::new(code::INTERNAL_ERROR, format!("internal error: {LEASE_LOST}"));
        task.error = error_json(&error);
        task.last_updated_at = iso(record.lease_until_ms);
    }
    task
}

/// A JSON-RPC error object as JSON text.
pub(crate) fn error_json(error: &RpcError) -> Option<Box<serde_json::value::RawValue>> {
    let mut object = serde_json::json!({"code": error.code, "message": error.message});
    if let Some(data) = &error.data
        && let Ok(data) = serde_json::from_str::<serde_json::Value>(data.get())
    {
        object["data"] = data;
    }
    serde_json::value::to_raw_value(&object).ok()
}

/// A store that failed, as the request that needed it reads it.
pub(crate) fn unavailable(error: TaskStoreError) -> RpcError {
    tracing::warn!(error = %error, "task store call failed");
    RpcError::new(code::INTERNAL_ERROR, format!("internal error: {error}"))
}

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `ms` (since the Unix epoch) as an ISO 8601 timestamp (RFC 3339, UTC).
pub(crate) fn iso(ms: u64) -> String {
    let mut out = String::with_capacity(27);
    crate::protocol::rfc3339::timestamp(&mut out, UNIX_EPOCH + Duration::from_millis(ms));
    out
}

/// An unguessable id: 16 random bytes, URL-safe Base64 (a task id is its only handle).
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    crate::random::fill(&mut bytes);
    crate::base64::URL.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_task_whose_lease_ran_out_reads_as_failed() {
        let record = TaskRecord {
            task: Task::new("t", TaskStatus::Working, iso(0), Some(1000)),
            subject: "s".into(),
            owner: "r".into(),
            lease_until_ms: 5_000,
        };
        let alive = seen(record.clone(), 4_000);
        assert_eq!(alive.status, TaskStatus::Working);
        let dead = seen(record, 6_000);
        assert_eq!(dead.status, TaskStatus::Failed);
        assert_eq!(dead.status_message.as_deref(), Some(LEASE_LOST));
        assert_eq!(
            dead.error.unwrap().get(),
            format!(r#"{{"code":-32603,"message":"internal error: {LEASE_LOST}"}}"#)
        );
        assert_eq!(iso(5_000), "1970-01-01T00:00:05.000000Z");
        assert_ne!(random_id(), random_id());
    }
}
