//! [`TaskStore`]: where the tasks of the tasks extension are kept, so that a task outlives
//! the request that started it, its connection and (with a store the replicas share) the
//! replica it runs on; and [`MemoryTaskStore`], the store in this process, the default.
//!
//! A task has two halves in the store, written by different hands so that neither
//! overwrites the other:
//!
//! - the [`TaskRecord`], written only by the replica that runs the task (its *owner*): the
//!   wire [`Task`] (status, message, outstanding `inputRequests`, the result or error), who
//!   may read it (the subject of the principal that started it), and the owner's lease, which
//!   the owner renews while the body runs. A record whose status is not terminal and whose
//!   lease ran out belongs to a replica that died: it reads as `failed`, with the reason,
//!   never as `working` forever;
//! - its inbox, written by whichever replica a client's `tasks/update` or `tasks/cancel`
//!   lands on ([`post`](TaskStore::post)), and emptied by the owner ([`take`](TaskStore::take)),
//!   which applies the answers and the cancellation to the body it runs.
//!
//! Creation is strongly consistent (the spec's rule): [`create`](TaskStore::create) resolves
//! once a [`load`](TaskStore::load) of the id would find it, and only then does the client get
//! its task handle. A record is kept until its TTL (the task's `ttlMs`) runs out.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::protocol::wire::Task;
use crate::sync::lock;

/// What a [`TaskStore`] call resolves to.
pub type TaskFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// Why a [`TaskStore`] call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store could not be reached, or did not answer in time.
    #[error("the task store is unavailable: {0}")]
    Unavailable(String),
    /// The store holds something under the task's key that is not a task.
    #[error("the task store holds an unreadable record for this task: {0}")]
    Corrupt(String),
    /// The store holds as many tasks as it may ([`MemoryTaskStore::with_capacity`]).
    #[error("the task store is full: it holds {0} tasks, the most it may; try again later")]
    Full(usize),
}

/// A task as its store keeps it: the wire [`Task`] and what the replicas need beside it.
///
/// Stores keep it as the JSON text [`to_json`](Self::to_json) writes, so a store need not know
/// its fields.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task as `tasks/get` shows it.
    pub task: Task,
    /// The subject of the principal whose request started it: only that principal may read,
    /// answer or cancel it; anyone else is answered as for a task that does not exist.
    pub subject: String,
    /// The replica running it (an id it picked at start).
    pub owner: String,
    /// Until when (milliseconds since the Unix epoch) the owner's lease runs: renewed while
    /// the body runs; a task not yet terminal whose lease ran out is read as failed.
    pub lease_until_ms: u64,
}

impl TaskRecord {
    /// The record as JSON text (what a networked store keeps).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// Read a record from the JSON text [`to_json`](Self::to_json) wrote.
    pub fn from_json(text: &str) -> Result<TaskRecord, TaskStoreError> {
        serde_json::from_str(text).map_err(|e| TaskStoreError::Corrupt(e.to_string()))
    }
}

/// What clients asked of a task that its owner has not taken yet.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct TaskInbox {
    /// A `tasks/cancel` arrived.
    pub cancel: bool,
    /// `tasks/update`'s answers, by the keys of the task's `inputRequests` (later answers to a
    /// key replace earlier ones).
    pub answers: BTreeMap<String, Box<RawValue>>,
}

/// Where tasks are kept, for the request that started one, the polls that follow, and (with
/// a shared store) the other replicas.
///
/// Every call is bounded in time by the store (a networked one fails with
/// [`TaskStoreError::Unavailable`] rather than wait).
///
/// ```
/// use std::time::Duration;
/// use toolwire::protocol::wire::{Task, TaskStatus};
/// use toolwire::server::{MemoryTaskStore, TaskRecord, TaskStore};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let store = MemoryTaskStore::new();
/// let text = r#"{"task":{"taskId":"t1","status":"working","createdAt":"2026-12-07T10:00:00.000000Z","lastUpdatedAt":"2026-12-07T10:00:00.000000Z","ttlMs":60000},"subject":"host","owner":"r1","leaseUntilMs":0}"#;
/// let record = TaskRecord::from_json(text).unwrap();
/// store.create(&record, Duration::from_secs(60)).await.unwrap();
/// assert_eq!(store.load("t1").await.unwrap().unwrap().task.status, TaskStatus::Working);
/// assert!(store.post("t1", true, &Default::default()).await.unwrap());
/// assert!(store.take("t1").await.unwrap().cancel);
/// assert!(!store.take("t1").await.unwrap().cancel);
/// # });
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// Keep a new task for `ttl`; resolves once a [`load`](Self::load) would find it.
    fn create<'a>(&'a self, record: &'a TaskRecord, ttl: Duration) -> TaskFuture<'a, ()>;

    /// Replace a task's record (its owner's new state), keeping it until `ttl` from now.
    fn save<'a>(&'a self, record: &'a TaskRecord, ttl: Duration) -> TaskFuture<'a, ()>;

    /// A task's record; `None` when there is none (never made, or past its TTL).
    fn load<'a>(&'a self, id: &'a str) -> TaskFuture<'a, Option<TaskRecord>>;

    /// Leave a client's cancellation and answers in a task's inbox for its owner; `false`
    /// when there is no such task.
    fn post<'a>(
        &'a self,
        id: &'a str,
        cancel: bool,
        answers: &'a BTreeMap<String, Box<RawValue>>,
    ) -> TaskFuture<'a, bool>;

    /// Empty a task's inbox (its owner's side).
    fn take<'a>(&'a self, id: &'a str) -> TaskFuture<'a, TaskInbox>;
}

/// How many tasks a [`MemoryTaskStore`] holds at most, unless told otherwise: 10,000.
pub const DEFAULT_TASK_CAPACITY: usize = 10_000;

/// The tasks of this process, in memory: bounded ([`with_capacity`](Self::with_capacity)), each
/// kept until its TTL runs out (expired ones are dropped when a task is made). What a server
/// with task-capable tools uses unless given another store
/// ([`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store)).
#[derive(Debug)]
pub struct MemoryTaskStore {
    capacity: usize,
    tasks: Mutex<HashMap<String, Kept>>,
}

#[derive(Debug)]
struct Kept {
    record: TaskRecord,
    until: Instant,
    inbox: TaskInbox,
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new()
    }
}

impl MemoryTaskStore {
    /// A store of at most [`DEFAULT_TASK_CAPACITY`] tasks.
    pub fn new() -> MemoryTaskStore {
        MemoryTaskStore::with_capacity(DEFAULT_TASK_CAPACITY)
    }

    /// A store of at most `capacity` tasks (at least one): a task made past it is refused
    /// with [`TaskStoreError::Full`], and the call is answered with that error.
    pub fn with_capacity(capacity: usize) -> MemoryTaskStore {
        MemoryTaskStore { capacity: capacity.max(1), tasks: Mutex::new(HashMap::new()) }
    }

    /// How many tasks it holds now (expired ones included until the next is made).
    pub fn len(&self) -> usize {
        lock(&self.tasks).len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn ready<'a, T: Send + 'a>(value: Result<T, TaskStoreError>) -> TaskFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, record: &'a TaskRecord, ttl: Duration) -> TaskFuture<'a, ()> {
        let now = Instant::now();
        let mut tasks = lock(&self.tasks);
        if tasks.len() >= self.capacity {
            tasks.retain(|_, kept| kept.until > now);
            if tasks.len() >= self.capacity {
                return ready(Err(TaskStoreError::Full(self.capacity)));
            }
        }
        let kept = Kept { record: record.clone(), until: now + ttl, inbox: TaskInbox::default() };
        tasks.insert(record.task.task_id.clone(), kept);
        ready(Ok(()))
    }

    fn save<'a>(&'a self, record: &'a TaskRecord, ttl: Duration) -> TaskFuture<'a, ()> {
        let mut tasks = lock(&self.tasks);
        let until = Instant::now() + ttl;
        match tasks.get_mut(&record.task.task_id) {
            Some(kept) => {
                kept.record = record.clone();
                kept.until = until;
            }
            // Expired and dropped meanwhile: kept again, as its owner still runs it.
            None => {
                let kept = Kept { record: record.clone(), until, inbox: TaskInbox::default() };
                tasks.insert(record.task.task_id.clone(), kept);
            }
        }
        ready(Ok(()))
    }

    fn load<'a>(&'a self, id: &'a str) -> TaskFuture<'a, Option<TaskRecord>> {
        let tasks = lock(&self.tasks);
        let found = tasks.get(id).filter(|kept| kept.until > Instant::now()).map(|kept| kept.record.clone());
        ready(Ok(found))
    }

    fn post<'a>(
        &'a self,
        id: &'a str,
        cancel: bool,
        answers: &'a BTreeMap<String, Box<RawValue>>,
    ) -> TaskFuture<'a, bool> {
        let mut tasks = lock(&self.tasks);
        let Some(kept) = tasks.get_mut(id).filter(|kept| kept.until > Instant::now()) else {
            return ready(Ok(false));
        };
        kept.inbox.cancel |= cancel;
        for (key, answer) in answers {
            kept.inbox.answers.insert(key.clone(), answer.clone());
        }
        ready(Ok(true))
    }

    fn take<'a>(&'a self, id: &'a str) -> TaskFuture<'a, TaskInbox> {
        let mut tasks = lock(&self.tasks);
        let inbox = tasks.get_mut(id).map(|kept| std::mem::take(&mut kept.inbox)).unwrap_or_default();
        ready(Ok(inbox))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::TaskStatus;

    fn record(id: &str) -> TaskRecord {
        TaskRecord {
            task: Task::new(id, TaskStatus::Working, "2026-12-07T10:00:00.000000Z", Some(1000)),
            subject: "host".into(),
            owner: "r".into(),
            lease_until_ms: 0,
        }
    }

    #[tokio::test]
    async fn a_full_store_refuses_until_a_task_expires() {
        let store = MemoryTaskStore::with_capacity(2);
        store.create(&record("a"), Duration::from_millis(30)).await.unwrap();
        store.create(&record("b"), Duration::from_secs(60)).await.unwrap();
        let full = store.create(&record("c"), Duration::from_secs(60)).await.unwrap_err();
        assert_eq!(
            full.to_string(),
            "the task store is full: it holds 2 tasks, the most it may; try again later"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert!(store.load("a").await.unwrap().is_none(), "past its TTL");
        store.create(&record("c"), Duration::from_secs(60)).await.unwrap();
        assert_eq!(store.len(), 2);
    }

    #[tokio::test]
    async fn the_inbox_keeps_answers_until_the_owner_takes_them() {
        let store = MemoryTaskStore::new();
        let answers: BTreeMap<String, Box<RawValue>> =
            [("k".to_owned(), RawValue::from_string("{}".into()).unwrap())].into();
        assert!(!store.post("nope", false, &answers).await.unwrap());
        store.create(&record("t"), Duration::from_secs(60)).await.unwrap();
        assert!(store.post("t", false, &answers).await.unwrap());
        let inbox = store.take("t").await.unwrap();
        assert_eq!(inbox.answers.keys().collect::<Vec<_>>(), ["k"]);
        assert!(!inbox.cancel && store.take("t").await.unwrap().answers.is_empty());
        let text = record("t").to_json();
        assert_eq!(TaskRecord::from_json(&text).unwrap().task.task_id, "t");
    }
}
