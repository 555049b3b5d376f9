//! Multi round-trip requests, the client's half (2026-07-28 `basic/patterns/mrtr`): a
//! `tools/call`, `prompts/get` or `resources/read` answered `input_required` is answered
//! and sent again, until the server completes it or the round limit is reached.
//!
//! Each round answers every entry of `inputRequests` through the client's handlers
//! ([`Answerer`](super::answer::Answerer)), all at once, then sends the original request again,
//! as a new JSON-RPC request (a new id), with `inputResponses` holding the answers under the
//! server's keys and `requestState` exactly as the server sent it (left out when it sent
//! none). The answers and the state belong to that retry only; no other request sees them.
//!
//! A 2025-11-25 server may instead refuse a request with -32042 (`URLElicitationRequiredError`)
//! listing URL elicitations to finish first: with URL mode declared, each goes to the
//! elicitation handler, and when the user accepted all of them the request is sent again,
//! once.
//!
//! The request's timeout bounds the whole exchange (every round, and the handlers' time
//! between them), and its cancellation ends it wherever it is.
//!
//! A round the client cannot answer ends the call before anything more is sent: a request
//! for a capability it did not declare, a method it does not know, a handler that failed,
//! or more rounds than [`ClientOptions::max_input_rounds`](super::ClientOptions::max_input_rounds).

use std::borrow::Cow;
use std::sync::Arc;

use tokio::time::Instant;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::conn::{Conn, Failure, RequestOpts};
use crate::protocol::methods;
use crate::protocol::wire::{INPUT_REQUIRED, InputRequests, InputRequired, InputResponses, InputRound};
use crate::race::{Either, first};

/// `URLElicitationRequiredError` (2025-11-25).
const URL_ELICITATION_REQUIRED: i64 = -32042;

/// Why a request with rounds did not complete.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RoundFailure {
    /// One of its requests failed (timeout, transport, a JSON-RPC error).
    Request(Failure),
    /// The server asked for input the client could not give: why, in our words.
    Input(String),
}

impl From<Failure> for RoundFailure {
    fn from(f: Failure) -> Self {
        RoundFailure::Request(f)
    }
}

/// Send `method` with `params` (an object), answering `input_required` rounds, at most
/// `max_rounds` of them; the final result, which is never an `input_required` one.
pub(crate) async fn request(
    conn: &Arc<Conn>,
    method: &str,
    params: Map<String, Value>,
    opts: RequestOpts,
    max_rounds: u32,
) -> Result<Box<RawValue>, RoundFailure> {
    let mut retry: Option<InputRound> = None;
    let mut rounds = 0u32;
    let mut url_retried = false;
    // The timeout bounds the whole call, every round and every answer, as it bounds a legacy
    // call whose server asks mid-call.
    let deadline = opts.timeout.map(|t| (Instant::now() + t, t));
    let left = || match deadline {
        None => Ok(None),
        Some((at, total)) => match at.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(Some(left)),
            _ => Err(RoundFailure::Request(Failure::Timeout(total))),
        },
    };
    loop {
        // The first round sends the call's params as they are; a retry adds its members.
        let mut sent = Cow::Borrowed(&params);
        if let Some(round) = &retry
            && let Ok(Value::Object(members)) = serde_json::to_value(round)
        {
            sent.to_mut().extend(members);
        }
        let this = RequestOpts { timeout: left()?, ..opts.clone() };
        let result = match conn.request_with(method, sent, this).await {
            Ok(result) => result,
            // 2025-11-25: the server needs URL elicitations done first. Each goes to the
            // handler (URL mode declared); when the user accepted them all, retry, once.
            Err(Failure::Rpc { code: URL_ELICITATION_REQUIRED, data, message }) if !url_retried => {
                url_retried = true;
                let failure = Failure::Rpc { code: URL_ELICITATION_REQUIRED, data: data.clone(), message };
                if !accepted_urls(conn, data.as_ref()).await {
                    return Err(failure.into());
                }
                continue;
            }
            // The request was given what was left of the call's timeout; the call's own
            // timeout is what ran out.
            Err(Failure::Timeout(_)) if let Some((_, total)) = deadline => {
                return Err(RoundFailure::Request(Failure::Timeout(total)));
            }
            Err(f) => return Err(f.into()),
        };
        if !asks_for_input(&result) {
            return Ok(result);
        }
        if rounds == max_rounds {
            let rounds = if max_rounds == 1 { "1 round".to_owned() } else { format!("{max_rounds} rounds") };
            return Err(RoundFailure::Input(format!(
                "it still asked for more input after {rounds}, this client's limit (ClientOptions::max_input_rounds)"
            )));
        }
        rounds += 1;
        let asked: InputRequired = serde_json::from_str(result.get())
            .map_err(|e| RoundFailure::Input(format!("its input_required result is malformed: {e}")))?;
        let answering = answer_all(conn, asked.input_requests.unwrap_or_default(), opts.cancel.as_ref());
        let responses = match (left()?, deadline) {
            (Some(left), Some((_, total))) => tokio::time::timeout(left, answering)
                .await
                .map_err(|_| RoundFailure::Request(Failure::Timeout(total)))??,
            _ => answering.await?,
        };
        retry = Some(InputRound::new(responses, asked.request_state));
    }
}

/// Whether a result is an `input_required` one (its `resultType`, read without the rest).
/// A text with neither `resultType` nor a backslash (an escaped member name needs one) has
/// no such member: most answers are told by one substring search.
fn asks_for_input(result: &RawValue) -> bool {
    let text = result.get();
    if !text.contains("resultType") && !text.contains('\\') {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "resultType", default, borrow)]
        result_type: Option<Cow<'a, str>>,
    }
    serde_json::from_str::<Kind<'_>>(result.get())
        .is_ok_and(|k| k.result_type.as_deref() == Some(INPUT_REQUIRED))
}

/// Whether the user accepted every URL elicitation of a -32042 error's `data.elicitations`
/// (none, or any refused or declined, is `false`).
async fn accepted_urls(conn: &Arc<Conn>, data: Option<&Value>) -> bool {
    let Some(list) = data.and_then(|d| d.get("elicitations")).and_then(Value::as_array) else {
        return false;
    };
    if list.is_empty() {
        return false;
    }
    for elicitation in list {
        let Ok(answer) = conn.answerer.answer(methods::ELICITATION_CREATE, elicitation.clone()) else {
            return false;
        };
        match answer.await {
            Ok(a) if a.get("action").and_then(Value::as_str) == Some("accept") => {}
            _ => return false,
        }
    }
    true
}

/// Answer every input request at once; the first that cannot be answered ends the round.
pub(crate) async fn answer_all(
    conn: &Arc<Conn>,
    requests: InputRequests,
    cancel: Option<&CancellationToken>,
) -> Result<InputResponses, RoundFailure> {
    let mut running = JoinSet::new();
    for (key, request) in requests {
        let params = match &request.params {
            Some(raw) => serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null),
            None => Value::Object(Map::new()),
        };
        let method = request.method;
        let answer =
            conn.answerer.answer(&method, params).map_err(|r| RoundFailure::Input(r.problem(&method)))?;
        running.spawn(async move { (key, method, answer.await) });
    }
    let mut responses = InputResponses::new();
    let cancelled = async {
        match cancel {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    };
    let mut cancelled = std::pin::pin!(cancelled);
    loop {
        let next = match first(running.join_next(), &mut cancelled).await {
            Either::Left(next) => next,
            Either::Right(()) => return Err(RoundFailure::Request(Failure::Cancelled)),
        };
        let Some(joined) = next else { return Ok(responses) };
        let (key, method, answer) =
            joined.map_err(|_| RoundFailure::Input("an input request's handler panicked".to_owned()))?;
        let answer = answer.map_err(|e| {
            RoundFailure::Input(format!(
                "this client's handler for its {method} input request failed: {}",
                e.message
            ))
        })?;
        let raw = serde_json::value::to_raw_value(&answer)
            .map_err(|e| RoundFailure::Input(format!("an answer to {method} did not serialise: {e}")))?;
        responses.insert(key, raw);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_required_results_are_told_apart_whatever_the_escapes() {
        let raw = |s: &str| RawValue::from_string(s.to_owned()).unwrap();
        assert!(asks_for_input(&raw(r#"{"resultType":"input_required","inputRequests":{}}"#)));
        assert!(asks_for_input(&raw(r#"{"result\u0054ype":"input_required"}"#)));
        assert!(asks_for_input(&raw(r#"{"resultType":"input\u005frequired"}"#)));
        assert!(!asks_for_input(&raw(r#"{"resultType":"complete"}"#)));
        assert!(!asks_for_input(&raw(
            r#"{"content":[{"type":"text","text":"resultType: input_required"}]}"#
        )));
        assert!(!asks_for_input(&raw(r#"{"content":[{"type":"text","text":"a \"quote\""}]}"#)));
        assert!(!asks_for_input(&raw(r#"{"resultType":7}"#)));
        assert!(!asks_for_input(&raw("null")));
    }
}
