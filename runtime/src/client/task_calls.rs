//! [`Client::get_task`] and [`Client::cancel_task`]: a task of the tasks extension read and
//! cancelled by its id, for a program that holds tasks itself (module `tasks` drives the ones
//! a call is answered with).

use serde_json::json;

use super::connection::Client;
use super::error::ClientError;
use crate::protocol::methods;
use crate::protocol::wire::Task;

impl Client {
    /// The task `id` as the server holds it now (`tasks/get`): its status, message and times,
    /// and, once it ended, its result or error. The client must declare the extension
    /// ([`ClientOptions::tasks`](super::ClientOptions::tasks)).
    pub async fn get_task(&self, id: &str) -> Result<Task, ClientError> {
        let value = self.request(methods::TASKS_GET, Some(json!({"taskId": id}))).await?;
        serde_json::from_value(value).map_err(|e| ClientError::Protocol {
            server: self.name().to_owned(),
            method: methods::TASKS_GET.to_owned(),
            detail: format!("its result is not a task: {e}"),
        })
    }

    /// Ask the server to cancel the task `id` (`tasks/cancel`): acknowledged at once; the task
    /// may still end otherwise (the server decides), as [`get_task`](Self::get_task) shows.
    pub async fn cancel_task(&self, id: &str) -> Result<(), ClientError> {
        self.request(methods::TASKS_CANCEL, Some(json!({"taskId": id}))).await.map(|_| ())
    }
}
