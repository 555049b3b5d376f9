//! [`ApprovalDecision`]: the record of one permission prompt, and [`DecisionSource`], the
//! closed set of reasons a verdict was reached.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

/// Who or what settled a prompt: a closed set, because the facts an auditor needs apart are
/// exactly the ones a boolean collapses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionSource {
    /// The [`Asker`](super::Asker) was consulted and answered.
    Asker,
    /// The tool was on `auto_allow` (and passed `auto_allow_when`); no asker was invoked.
    AutoAllow,
    /// The run's autonomy tier does not gate calls ([`Autonomy::Ungated`](super::Autonomy));
    /// no asker was invoked.
    Autonomy,
    /// Nobody answered within the server's timeout: denied, and not a refusal.
    Timeout,
    /// The asker failed or panicked, or the prompt was malformed: denied, and not a policy
    /// decision.
    Error,
}

impl DecisionSource {
    /// The wire spelling: `asker`, `auto_allow`, `autonomy`, `timeout`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionSource::Asker => "asker",
            DecisionSource::AutoAllow => "auto_allow",
            DecisionSource::Autonomy => "autonomy",
            DecisionSource::Timeout => "timeout",
            DecisionSource::Error => "error",
        }
    }
}

impl fmt::Display for DecisionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The record of one permission prompt and how it was settled.
///
/// `reason` is unredacted text from outside this crate (an asker's free-text note, the
/// message of an asker's error); plan its retention. Nothing here redacts anything.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ApprovalDecision {
    /// The tool the agent wanted to run.
    pub tool_name: String,
    /// The CLI's id for the tool use, when it sent one.
    pub tool_use_id: Option<String>,
    /// Whether the tool may run.
    pub allowed: bool,
    /// The deny message the CLI was given, or for an allow what allowed it.
    pub reason: String,
    /// What settled it.
    pub source: DecisionSource,
    /// Whether the asker was invoked at all: separate from `source == Asker` because a
    /// prompt can reach a person and then expire (`Timeout`, asked).
    pub asked: bool,
    /// The input the agent asked to run the tool with. Kept on the record, never in
    /// `reason`.
    pub input: Value,
}

/// Receives each decision as it is made, after it is recorded in memory (a refusal that
/// happened matters more than a record of it that did not). A panicking sink is contained.
pub type DecisionSink = Arc<dyn Fn(&ApprovalDecision) + Send + Sync>;
