//! The console's board: the prompts waiting for a person, the last ones settled, and the one
//! rule that makes two tabs safe: a prompt leaves the board's pending set exactly once, under
//! its lock, whoever (a click, the timeout, the agent giving up) gets there first.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::oneshot;

use crate::approvals::asker::{Answer, ApprovalRequest};
use crate::sync::lock;

/// How many settled prompts the page lists (the oldest are forgotten first).
pub(super) const SETTLED_KEPT: usize = 50;

/// How a prompt left the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome {
    /// A person approved it as asked.
    Approved,
    /// A person approved it with edited arguments.
    ApprovedWithEdits,
    /// A person denied it, with this message.
    Denied(String),
    /// Nobody answered within the console's timeout: denied.
    TimedOut(Duration),
    /// The agent stopped waiting (the approval server's own timeout, or the CLI withdrew
    /// the prompt) before anyone answered.
    Withdrawn,
    /// The console stopped before anyone answered.
    Stopped,
}

impl Outcome {
    /// What the page shows, and what a refused second decision names.
    pub(super) fn text(&self) -> String {
        match self {
            Outcome::Approved => "approved".to_owned(),
            Outcome::ApprovedWithEdits => "approved with edited arguments".to_owned(),
            Outcome::Denied(message) => format!("denied: {message}"),
            Outcome::TimedOut(limit) => {
                format!(
                    "timed out: nobody answered within {}s, so it was denied",
                    crate::tool::fmt_secs(*limit)
                )
            }
            Outcome::Withdrawn => "withdrawn: the agent stopped waiting for an answer".to_owned(),
            Outcome::Stopped => "the console stopped before anyone answered".to_owned(),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Outcome::Approved | Outcome::ApprovedWithEdits => "approved",
            Outcome::Denied(_) => "denied",
            Outcome::TimedOut(_) => "timed_out",
            Outcome::Withdrawn => "withdrawn",
            Outcome::Stopped => "stopped",
        }
    }
}

/// Why a decision was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refused {
    /// No prompt has this id (or it was settled so long ago it is forgotten).
    Unknown,
    /// Someone (another tab, the timeout) settled it first.
    AlreadyDecided(Outcome),
}

struct Pending {
    request: ApprovalRequest,
    asked_at: SystemTime,
    deadline: Option<Instant>,
    reply: oneshot::Sender<Answer>,
}

#[derive(Default)]
struct State {
    stopped: bool,
    next_id: u64,
    pending: BTreeMap<u64, Pending>,
    settled: VecDeque<(u64, String, Option<String>, Outcome)>,
}

/// The prompts, behind one lock.
#[derive(Default)]
pub(super) struct Board {
    state: Mutex<State>,
}

/// One pending prompt as the page reads it.
#[derive(Debug, Serialize)]
pub(super) struct PendingView {
    id: u64,
    tool_name: String,
    tool_use_id: Option<String>,
    /// The MCP client that asked, as it named itself.
    client: Option<String>,
    /// Who asked: the principal's subject (`host` for the program's own), set by the
    /// program or the authenticator.
    principal: String,
    /// The principal's tenant, if it has one.
    tenant: Option<String>,
    /// The arguments, pretty-printed here (the page shows this text, never parses it).
    input_text: String,
    asked_at_ms: u128,
    /// Milliseconds until the console's timeout denies it; `None` without one.
    expires_in_ms: Option<u128>,
}

/// One settled prompt as the page reads it.
#[derive(Debug, Serialize)]
pub(super) struct SettledView {
    id: u64,
    tool_name: String,
    tool_use_id: Option<String>,
    outcome: &'static str,
    outcome_text: String,
}

/// What `GET /api/prompts` answers: pending oldest first, settled newest first.
#[derive(Debug, Serialize)]
pub(super) struct Snapshot {
    pending: Vec<PendingView>,
    settled: Vec<SettledView>,
}

impl Board {
    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Put a prompt on the board; its answer arrives on the receiver. `None` once the board
    /// is stopped.
    pub(super) fn open(
        &self,
        request: ApprovalRequest,
        timeout: Option<Duration>,
    ) -> Option<(u64, oneshot::Receiver<Answer>)> {
        let (reply, answer) = oneshot::channel();
        let mut state = self.lock();
        if state.stopped {
            return None;
        }
        state.next_id += 1;
        let id = state.next_id;
        let deadline = timeout.map(|t| Instant::now() + t);
        state.pending.insert(id, Pending { request, asked_at: SystemTime::now(), deadline, reply });
        Some((id, answer))
    }

    /// A person's decision: taken if the prompt is still pending, refused otherwise.
    pub(super) fn decide(&self, id: u64, answer: Answer, outcome: Outcome) -> Result<(), Refused> {
        let mut state = self.lock();
        let Some(pending) = state.pending.remove(&id) else {
            let earlier = state.settled.iter().find(|s| s.0 == id).map(|s| s.3.clone());
            return Err(earlier.map_or(Refused::Unknown, Refused::AlreadyDecided));
        };
        let Pending { request, reply, .. } = pending;
        // The receiver is gone only if the agent stopped waiting in the same instant.
        let outcome = if reply.send(answer).is_ok() { outcome } else { Outcome::Withdrawn };
        let taken = outcome.clone();
        push_settled(&mut state, id, request, outcome);
        if taken == Outcome::Withdrawn {
            return Err(Refused::AlreadyDecided(Outcome::Withdrawn));
        }
        Ok(())
    }

    /// Settle a still-pending prompt without a person (`TimedOut`, `Withdrawn`). Returns
    /// whether it was still pending; `false` means a decision got there first.
    pub(super) fn settle_unanswered(&self, id: u64, outcome: Outcome) -> bool {
        let mut state = self.lock();
        match state.pending.remove(&id) {
            Some(pending) => {
                push_settled(&mut state, id, pending.request, outcome);
                true
            }
            None => false,
        }
    }

    /// Settle every pending prompt as `Stopped` (their askers then fail: never an allow) and
    /// open no more.
    pub(super) fn stop_all(&self) {
        let mut state = self.lock();
        state.stopped = true;
        let pending = std::mem::take(&mut state.pending);
        for (id, p) in pending {
            push_settled(&mut state, id, p.request, Outcome::Stopped);
        }
    }

    /// How many prompts wait for a person.
    pub(super) fn pending_count(&self) -> usize {
        self.lock().pending.len()
    }

    /// The page's view of the board.
    pub(super) fn snapshot(&self) -> Snapshot {
        let state = self.lock();
        let now = Instant::now();
        let pending = state
            .pending
            .iter()
            .map(|(id, p)| PendingView {
                id: *id,
                tool_name: p.request.tool_name.clone(),
                tool_use_id: p.request.tool_use_id.clone(),
                client: p.request.client.clone(),
                principal: p.request.principal.subject().to_owned(),
                tenant: p.request.principal.tenant().map(str::to_owned),
                input_text: serde_json::to_string_pretty(&p.request.input)
                    .unwrap_or_else(|_| p.request.input.to_string()),
                asked_at_ms: p.asked_at.duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0),
                expires_in_ms: p.deadline.map(|d| d.saturating_duration_since(now).as_millis()),
            })
            .collect();
        let settled = state
            .settled
            .iter()
            .rev()
            .map(|(id, tool_name, tool_use_id, outcome)| SettledView {
                id: *id,
                tool_name: tool_name.clone(),
                tool_use_id: tool_use_id.clone(),
                outcome: outcome.kind(),
                outcome_text: outcome.text(),
            })
            .collect();
        Snapshot { pending, settled }
    }
}

fn push_settled(state: &mut State, id: u64, request: ApprovalRequest, outcome: Outcome) {
    if state.settled.len() == SETTLED_KEPT {
        state.settled.pop_front();
    }
    state.settled.push_back((id, request.tool_name, request.tool_use_id, outcome));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(tool: &str) -> ApprovalRequest {
        ApprovalRequest {
            tool_name: tool.to_owned(),
            input: json!({"a": 1}),
            tool_use_id: Some("t".into()),
            client: None,
            principal: std::sync::Arc::new(crate::principal::Principal::new("alice").with_tenant("acme")),
        }
    }

    #[test]
    fn a_prompt_is_decided_once_and_a_second_decision_names_the_first() {
        let board = Board::default();
        let (id, mut answer) = board.open(request("Write"), None).unwrap();
        assert_eq!(board.decide(id, Answer::allow(), Outcome::Approved), Ok(()));
        assert_eq!(answer.try_recv().unwrap(), Answer::allow());
        assert_eq!(
            board.decide(id, Answer::deny("no"), Outcome::Denied("no".into())),
            Err(Refused::AlreadyDecided(Outcome::Approved))
        );
        assert_eq!(board.decide(99, Answer::allow(), Outcome::Approved), Err(Refused::Unknown));
        assert!(!board.settle_unanswered(id, Outcome::Withdrawn), "a decided prompt cannot time out");
    }

    #[test]
    fn a_timed_out_prompt_refuses_a_late_decision() {
        let board = Board::default();
        let (id, _answer) = board.open(request("Bash"), Some(Duration::from_secs(2))).unwrap();
        assert!(board.settle_unanswered(id, Outcome::TimedOut(Duration::from_secs(2))));
        let refused = board.decide(id, Answer::allow(), Outcome::Approved).unwrap_err();
        let Refused::AlreadyDecided(outcome) = refused else { panic!("{refused:?}") };
        assert_eq!(outcome.text(), "timed out: nobody answered within 2s, so it was denied");
        assert_eq!(board.pending_count(), 0);
    }

    #[test]
    fn the_settled_list_keeps_the_newest_few() {
        let board = Board::default();
        for _ in 0..SETTLED_KEPT + 3 {
            let (id, _rx) = board.open(request("Read"), None).unwrap();
            board.settle_unanswered(id, Outcome::Withdrawn);
        }
        let snapshot = serde_json::to_value(board.snapshot()).unwrap();
        let settled = snapshot["settled"].as_array().unwrap();
        assert_eq!(settled.len(), SETTLED_KEPT);
        assert_eq!(settled[0]["id"], json!(SETTLED_KEPT + 3), "newest first");
    }
}
