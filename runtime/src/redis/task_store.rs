//! [`RedisTaskStore`]: the tasks of the tasks extension in Redis, so that a task started on
//! one replica is read, answered and cancelled through any. Two keys per task:
//!
//! - `<prefix>:task:<id>`: the [`TaskRecord`]'s JSON, written only by the replica running the
//!   task (`SET … NX PX` to create it, `SET … PX` to save it), expiring with the task's TTL;
//! - `<prefix>:task-inbox:<id>`: a hash of what clients asked on any replica and the owner has
//!   not taken yet (`cancel`, and `answer:<key>` for each `tasks/update` answer), emptied by
//!   the owner in one transaction (`HGETALL` then `DEL`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::server::{TaskFuture, TaskInbox, TaskRecord, TaskStore, TaskStoreError};

use super::connection::{Connection, RedisError};

/// The inbox field of a cancellation.
const CANCEL: &str = "cancel";
/// The inbox fields of answers: `answer:<key>`.
const ANSWER: &str = "answer:";

/// A [`TaskStore`] in Redis, for replicas to share (give each replica's
/// [`ServerBuilder::task_store`](crate::server::ServerBuilder::task_store) one made from the
/// same URL and prefix). Each call is one command or one transaction, bounded by the command
/// timeout ([`DEFAULT_COMMAND_TIMEOUT`](super::DEFAULT_COMMAND_TIMEOUT) unless set).
///
/// ```no_run
/// use std::sync::Arc;
/// use toolwire::redis::Redis;
/// use toolwire::{Server, ServerOptions, ToolRegistry};
///
/// # async fn replica() -> Result<(), toolwire::redis::RedisError> {
/// let redis = Redis::open("redis://127.0.0.1:6379/", "tools-prod")?;
/// let server = Server::builder(ServerOptions::new("tools", "1.0.0"))
///     .tools(ToolRegistry::new())
///     .task_store(Arc::new(redis.task_store()))
///     .build();
/// # let _ = server;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct RedisTaskStore {
    redis: Connection,
}

impl RedisTaskStore {
    /// A store on the Redis at `url`, its keys under `prefix`. Connects lazily. Must be called
    /// inside a tokio runtime. To share one connection with the other stores, make it from a
    /// [`Redis`](super::Redis) instead.
    pub fn open(url: &str, prefix: &str) -> Result<RedisTaskStore, RedisError> {
        Ok(RedisTaskStore::on(Connection::open(url, prefix)?))
    }

    /// A store on `redis`.
    pub(super) fn on(redis: Connection) -> RedisTaskStore {
        RedisTaskStore { redis }
    }

    /// The same store, each command bounded by `timeout`.
    pub fn with_command_timeout(self, timeout: Duration) -> Result<RedisTaskStore, RedisError> {
        Ok(RedisTaskStore { redis: self.redis.with_timeout(timeout)? })
    }

    fn record_key(&self, id: &str) -> String {
        self.redis.key("task", id)
    }

    fn inbox_key(&self, id: &str) -> String {
        self.redis.key("task-inbox", id)
    }
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(&'a self, record: &'a TaskRecord, ttl: Duration) -> TaskFuture<'a, ()> {
        Box::pin(async move {
            let cmd = ::redis::cmd("SET")
                .arg(self.record_key(&record.task.task_id))
                .arg(record.to_json())
                .arg("NX")
                .arg("PX")
                .arg(millis(ttl))
                .clone();
            // `OK`, or nil when the id is taken (16 random bytes: never, in practice).
            let set: Option<String> = self.redis.run(&cmd).await.map_err(TaskStoreError::Unavailable)?;
            match set {
                Some(_) => Ok(()),
                None => Err(TaskStoreError::Corrupt(format!("task id {} is taken", record.task.task_id))),
            }
        })
    }

    fn save<'a>(&'a self, record: &'a TaskRecord, ttl: Duration) -> TaskFuture<'a, ()> {
        Box::pin(async move {
            let cmd = ::redis::cmd("SET")
                .arg(self.record_key(&record.task.task_id))
                .arg(record.to_json())
                .arg("PX")
                .arg(millis(ttl))
                .clone();
            let _: () = self.redis.run(&cmd).await.map_err(TaskStoreError::Unavailable)?;
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> TaskFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let text: Option<String> = self
                .redis
                .run(::redis::cmd("GET").arg(self.record_key(id)))
                .await
                .map_err(TaskStoreError::Unavailable)?;
            text.map(|t| TaskRecord::from_json(&t)).transpose()
        })
    }

    fn post<'a>(
        &'a self,
        id: &'a str,
        cancel: bool,
        answers: &'a BTreeMap<String, Box<RawValue>>,
    ) -> TaskFuture<'a, bool> {
        Box::pin(async move {
            // The record's time to live is the inbox's: no inbox outlives its task.
            let left: i64 = self
                .redis
                .run(::redis::cmd("PTTL").arg(self.record_key(id)))
                .await
                .map_err(TaskStoreError::Unavailable)?;
            if left <= 0 {
                return Ok(false);
            }
            let inbox = self.inbox_key(id);
            let mut hset = ::redis::cmd("HSET");
            hset.arg(&inbox);
            if cancel {
                hset.arg(CANCEL).arg("1");
            }
            for (key, answer) in answers {
                hset.arg(format!("{ANSWER}{key}")).arg(answer.get());
            }
            if !cancel && answers.is_empty() {
                return Ok(true);
            }
            let mut pipe = ::redis::pipe();
            pipe.atomic().add_command(hset).ignore().cmd("PEXPIRE").arg(&inbox).arg(left).ignore();
            let _: () = self.redis.run_pipe(&pipe).await.map_err(TaskStoreError::Unavailable)?;
            Ok(true)
        })
    }

    fn take<'a>(&'a self, id: &'a str) -> TaskFuture<'a, TaskInbox> {
        Box::pin(async move {
            let inbox = self.inbox_key(id);
            let mut pipe = ::redis::pipe();
            pipe.atomic().cmd("HGETALL").arg(&inbox).cmd("DEL").arg(&inbox).ignore();
            let (fields,): (BTreeMap<String, String>,) =
                self.redis.run_pipe(&pipe).await.map_err(TaskStoreError::Unavailable)?;
            let mut taken = TaskInbox::default();
            for (field, value) in fields {
                if field == CANCEL {
                    taken.cancel = true;
                } else if let Some(key) = field.strip_prefix(ANSWER) {
                    let answer = RawValue::from_string(value).map_err(|e| {
                        TaskStoreError::Corrupt(format!("the answer to {key} in task {id}'s inbox: {e}"))
                    })?;
                    taken.answers.insert(key.to_owned(), answer);
                }
            }
            Ok(taken)
        })
    }
}
