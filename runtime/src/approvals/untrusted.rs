//! [`ApprovalServer`] as the server's [`Approve`]: an untrusted caller's call of an
//! approval-gated tool ([`Untrusted::approve_with`](crate::server::Untrusted::approve_with))
//! goes through the same decision table as an agent CLI's permission prompt. Its
//! [`Asker`](super::Asker) (a person at an [`ApprovalConsole`](super::ApprovalConsole), say)
//! sees the tool, the arguments, the caller's principal and the client it called through (as
//! that client named itself, `clientInfo`); an allow runs the call (with the
//! edited arguments, if the asker edited them), anything else refuses it; and the decision is
//! recorded in [`decisions`](ApprovalServer::decisions) as any prompt's, with its
//! [`DecisionSource`](super::DecisionSource).
//!
//! | the server's verdict | the call |
//! | --- | --- |
//! | allow, as asked | runs with the caller's arguments |
//! | allow, edited | runs with the asker's arguments (checked against the tool's schema) |
//! | deny (the asker's, a timeout, an error) | refused: `tool 'x' was not approved` |

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use serde_json::value::RawValue;

use super::decision::ApprovalDecision;
use super::server::{ApprovalServer, Prompt, client_label};
use crate::server::{Approval, Approve, GatedCall};

impl Approve for ApprovalServer {
    fn approve(&self, request: GatedCall) -> Pin<Box<dyn Future<Output = Result<bool, String>> + Send>> {
        // Yes or no only: an edit cannot be carried, so an edited allow is a refusal.
        let decided = Approve::decide(self, request);
        Box::pin(async move { decided.await.map(|a| a == Approval::Allow) })
    }

    fn decide(&self, request: GatedCall) -> Pin<Box<dyn Future<Output = Result<Approval, String>> + Send>> {
        let server = self.clone();
        Box::pin(async move {
            let input = RawValue::from_string(request.arguments)
                .map_err(|e| format!("the call's arguments are not JSON: {e}"))?;
            let prompt = Prompt { tool_name: request.tool, input, tool_use_id: None };
            let value: Value = serde_json::from_str(prompt.input.get()).unwrap_or(Value::Null);
            let client = client_label(request.client_name.as_deref(), request.client_version.as_deref());
            let verdict = server.verdict(&prompt, &value, client, request.principal).await;
            let approval = match verdict.allowed {
                false => Approval::Deny,
                true if verdict.payload == prompt.input.get() => Approval::Allow,
                true => Approval::AllowWith(verdict.payload.clone()),
            };
            server.record(ApprovalDecision {
                tool_name: prompt.tool_name,
                tool_use_id: None,
                allowed: verdict.allowed,
                reason: verdict.reason,
                source: verdict.source,
                asked: verdict.asked,
                input: value,
            });
            Ok(approval)
        })
    }
}
