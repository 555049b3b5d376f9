//! The tools of the example server (`src/bin/example-server.rs`), kept in the library so
//! tests can use the very same tools in-process.
//!
//! Every peer's interop script asserts this contract exactly (see
//! `tests/peers/clients/contract.json`): one tool per behaviour worth proving, from an echo
//! to a panic.

use std::fmt;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwire::registry::RegistryError;
use toolwire::{Context, ToolRegistry, tool, tools};

/// Echo the text back.
#[tool(read_only)]
pub fn echo(
    /// The text to echo.
    text: String,
) -> String {
    text
}

/// The result of [`add()`].
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sum {
    /// `a + b`.
    pub sum: i64,
}

/// Add two integers.
#[tool(read_only)]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Sum {
    Sum { sum: a.saturating_add(b) }
}

/// Sleep for the given number of milliseconds, then say so.
#[tool(read_only)]
pub async fn slow(
    /// How long to sleep, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

/// Fail with the given message.
#[tool(read_only)]
pub fn fail(
    /// What the failure says.
    message: String,
) -> Result<String, String> {
    Err(message)
}

/// Panic with the given message (the server catches it and serves on).
#[tool(read_only)]
pub fn panic(
    /// What the panic says.
    message: String,
) -> String {
    std::panic::panic_any(message)
}

/// Report progress for the given number of steps, then finish.
#[tool(read_only)]
pub async fn progress(
    /// How many steps to take.
    steps: u32,
    ctx: &Context,
) -> String {
    for step in 1..=steps {
        ctx.report_progress(
            f64::from(step),
            Some(f64::from(steps)),
            Some(&format!("step {step} of {steps}")),
        );
        // Work happens between reports, and after the last one too. That pause also keeps
        // the last report out of the read that carries the result: the TypeScript SDK v1
        // dispatches notifications a microtask late but responses at once, so a result read
        // together with the last report drops that report ("unknown token").
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    format!("done {steps} steps")
}

/// How urgent a ticket is.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Now.
    High,
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Priority::Low => "low",
            Priority::High => "high",
        })
    }
}

/// Someone a ticket can be assigned to.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Person {
    /// Their name.
    pub name: String,
    /// Their email address, if known.
    pub email: Option<String>,
}

/// A ticket to create.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Ticket {
    /// A one-line summary.
    pub title: String,
    /// How urgent it is.
    pub priority: Priority,
    /// Labels to file it under.
    pub labels: Vec<String>,
    /// Who should handle it.
    pub assignee: Option<Person>,
}

/// Create a ticket in the tracker.
#[tool(side_effecting)]
pub fn create_ticket(
    /// The ticket to create.
    ticket: Ticket,
) -> String {
    format!("created ticket '{}' ({}, {} labels)", ticket.title, ticket.priority, ticket.labels.len())
}

/// Run the named check and report whether it passed.
#[tool(read_only)]
pub fn run_check(
    /// Name of the check to run.
    name: String,
    /// Fail on warnings too.
    strict: Option<bool>,
) -> String {
    format!("{name}:{}:ok", if strict == Some(true) { "strict" } else { "lax" })
}

/// Deploy the current build to the named target environment.
#[tool(side_effecting, requires_approval, caps = ["egress"])]
pub fn deploy(
    /// Where to deploy to.
    target: String,
) -> String {
    format!("deployed to {target}")
}

/// The example server's tools, as the binary serves them.
pub fn registry() -> Result<ToolRegistry, RegistryError> {
    tools![echo, add, slow, fail, panic, progress, create_ticket, run_check, deploy]
}
