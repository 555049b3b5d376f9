//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), the server's half: a
//! call of a tool that allows it ([`TaskSupport`](crate::tool::TaskSupport)) answered with a
//! task handle, then read, answered and cancelled by its id.
//!
//! - `store`: [`TaskStore`](store::TaskStore), where tasks are kept (in memory by default,
//!   on Redis with `toolwire::redis`), and the record it keeps;
//! - `tasks`: the server's tasks as every session reads them (the store, the tasks this
//!   replica runs, the settings); below `shared`, which holds them;
//! - `run`: when a call becomes a task, how the task is made, and the driver that runs its
//!   body to the end;
//! - `methods`: `tasks/get`, `tasks/update`, `tasks/cancel`.
//!
//! Imports run `methods → tasks`, `run → tasks → store`; the tools capability imports `run`
//! and `methods` (for its -32021), the method table `methods`.

pub(crate) mod methods;
pub(crate) mod run;
pub(crate) mod store;
pub(crate) mod tasks;
