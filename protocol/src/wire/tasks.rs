//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a request the server
//! answers with a task handle (`resultType: "task"`) instead of its result, and the [`Task`]
//! that `tasks/get` and `notifications/tasks` carry.
//!
//! A `CreateTaskResult` is a [`Task`] with `resultType: "task"` (and the modern `_meta`),
//! flat: no `task` wrapper, and never `result`, `error` or `inputRequests` (those are for
//! `tasks/get`). A `tasks/get` result is the same [`Task`] with `resultType: "complete"`,
//! holding what its status needs: `inputRequests` while `input_required`, `result` once
//! `completed` (the request's own result: a `CallToolResult`, `isError: true` included),
//! `error` once `failed` (a JSON-RPC error object). No `requestState` anywhere: that is the
//! multi round-trip surface's, not the task's.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::mrtr::InputRequests;
use crate::meta::RequestMeta;

/// The extension's identifier, the key a client and a server declare it under in
/// `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// `resultType` of a `CreateTaskResult`.
pub const TASK: &str = "task";

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The server needs the client's answers (`inputRequests`) to go on.
    InputRequired,
    /// Done: `result` holds what the request would have returned.
    Completed,
    /// A JSON-RPC error ended it: `error` holds it.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task can no longer change: `completed`, `failed` or `cancelled`.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// The status as the wire spells it (`input_required`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// A task: its id, status and times, and (in a `tasks/get` result or a
/// `notifications/tasks`) what its status carries.
///
/// ```
/// use toolwire::protocol::wire::{Task, TaskStatus};
///
/// let task = Task::new("t1", TaskStatus::Working, "2026-12-07T10:00:00.000000Z", Some(60_000));
/// assert_eq!(
///     serde_json::to_string(&task).unwrap(),
///     r#"{"taskId":"t1","status":"working","createdAt":"2026-12-07T10:00:00.000000Z","lastUpdatedAt":"2026-12-07T10:00:00.000000Z","ttlMs":60000}"#
/// );
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task's id: unguessable, the only handle on it.
    pub task_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// What it is doing, or why it ended, for a person or a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long after `createdAt` the server keeps it, in milliseconds; `null` for as long as
    /// it likes.
    pub ttl_ms: Option<u64>,
    /// How often the server suggests polling, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// `input_required`: what the server asks, by key (answered with `tasks/update`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// `completed`: the request's result, as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<RawValue>>,
    /// `failed`: the JSON-RPC error (`code`, `message`, `data`), as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<RawValue>>,
}

impl Task {
    /// A task `id` in `status`, created (and last updated) at `created_at`, kept `ttl_ms`.
    pub fn new(
        id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        ttl_ms: Option<u64>,
    ) -> Task {
        let created_at = created_at.into();
        Task {
            task_id: id.into(),
            status,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl_ms,
            poll_interval_ms: None,
            input_requests: None,
            result: None,
            error: None,
        }
    }

    /// The task as a `CreateTaskResult` carries it: without `result`, `error` and
    /// `inputRequests`.
    pub fn handle(&self) -> Task {
        Task { input_requests: None, result: None, error: None, ..self.clone() }
    }
}

/// The params of `tasks/get` and `tasks/cancel`.
#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct TaskIdParams<'a> {
    /// The task.
    #[serde(rename = "taskId", borrow)]
    pub task_id: Cow<'a, str>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
}

/// The params of `tasks/update`.
#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct UpdateTaskParams<'a> {
    /// The task.
    #[serde(rename = "taskId", borrow)]
    pub task_id: Cow<'a, str>,
    /// The client's answers, by the keys of the task's `inputRequests`, raw.
    #[serde(rename = "inputResponses", default, borrow)]
    pub input_responses: Option<&'a RawValue>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detailed_task_reads_back_and_a_handle_drops_the_detail() {
        let text = r#"{"taskId":"t","status":"input_required","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,"pollIntervalMs":500,"inputRequests":{"k":{"method":"elicitation/create","params":{"message":"m"}}}}"#;
        let task: Task = serde_json::from_str(text).unwrap();
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert_eq!(serde_json::to_string(&task).unwrap(), text);
        assert_eq!(
            serde_json::to_string(&task.handle()).unwrap(),
            r#"{"taskId":"t","status":"input_required","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,"pollIntervalMs":500}"#
        );
        assert!(TaskStatus::Cancelled.is_terminal() && !TaskStatus::InputRequired.is_terminal());
    }
}
