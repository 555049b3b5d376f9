//! Multi round-trip requests (2026-07-28), the server's half: a modern `tools/call` or
//! `prompts/get` whose body asks the client something ends in an `input_required` result,
//! and the client's retry runs the body again with the answers.
//!
//! The call's [`Context`](crate::Context) is handed a [`Round`] as its
//! [`Talkback`]: it holds the answers this attempt has (the retry's `inputResponses`, and
//! those earlier rounds carried in the `requestState`). Every ask has a key (the one the
//! tool gave, `ctx.elicit_as("user_name", ..)`, or `ask-1`, `ask-2`, … in the order the body
//! asks). An answered key resolves at once; an unanswered one is recorded and never
//! resolves, and [`drive`] stops the body as soon as it is waiting with something recorded.
//! Asks the body makes concurrently (`tokio::join!`) are all recorded before it stops, so
//! they go to the client in one round.
//!
//! The engine then answers `resultType: "input_required"` with what was recorded and a
//! `requestState` sealing the answers used so far (module `request_state`); nothing is kept
//! here between rounds. Answers the body never asked for are ignored; an answer the body
//! asks for that is not a JSON object is the client's protocol error (-32602).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};
use std::time::Duration;

use serde_json::value::RawValue;

use crate::args::PyStr;
use crate::context::{Asked, Talkback};
use crate::protocol::envelope::kind;
use crate::protocol::logging::parse_level;
use crate::protocol::meta::{ModernResult, RequestMeta};
use crate::protocol::wire::{INPUT_REQUIRED, InputRequest, InputRequests, InputRequired};
use crate::protocol::{ClientCapabilities, LoggingLevel, Outbound, RpcError};
use crate::sync::lock;

use super::request_state::{self, Binding};
use crate::server::dispatch::sink::Sink;
use crate::server::options::ServerOptions;

/// One modern call's way back to its client: the answers it has, and what it asked for
/// that it has not.
pub(crate) struct Round {
    capabilities: ClientCapabilities,
    /// The level the request's `_meta` asked logs at (`io.modelcontextprotocol/logLevel`),
    /// and where they go; `None` sends none.
    log: Option<(LoggingLevel, Arc<dyn Sink>)>,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// The answers this attempt was given: the state's, then the retry's `inputResponses`.
    given: BTreeMap<String, Box<RawValue>>,
    /// The answers the body has used, carried to the next round.
    used: BTreeMap<String, Box<RawValue>>,
    /// What the body asked for and was not given.
    asked: InputRequests,
    /// The client's answer the body asked for could not be read: the request's error.
    invalid: Option<RpcError>,
    /// How many asks without a key of their own were made (`ask-N`).
    auto: u32,
    /// The body's task, woken when an ask is recorded.
    waker: Option<Waker>,
}

impl Round {
    /// A round for a client with `capabilities`, logging at `log`.
    pub(crate) fn new(capabilities: ClientCapabilities, log: Option<(LoggingLevel, Arc<dyn Sink>)>) -> Round {
        Round { capabilities, log, inner: Mutex::new(Inner::default()) }
    }

    /// The round for a modern request: the client's capabilities from its `_meta`, and its
    /// `io.modelcontextprotocol/logLevel` (logs go to `sink`, the request's own stream).
    pub(crate) fn for_request(meta: Option<&RequestMeta<'_>>, sink: &Arc<dyn Sink>) -> Round {
        let capabilities = ClientCapabilities::read(meta.and_then(|m| m.client_capabilities));
        let level = meta
            .and_then(|m| m.log_level)
            .and_then(|l| serde_json::from_str::<std::borrow::Cow<'_, str>>(l.get()).ok())
            .and_then(|l| parse_level(&l));
        Round::new(capabilities, level.map(|level| (level, sink.clone())))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        lock(&self.inner)
    }

    /// Whether the body must stop: it asked for something it was not given, or was given
    /// an answer that cannot be read.
    fn stopped(inner: &Inner) -> bool {
        !inner.asked.is_empty() || inner.invalid.is_some()
    }
}

impl Talkback for Round {
    fn capabilities(&self) -> ClientCapabilities {
        self.capabilities
    }

    fn log_level(&self) -> Option<LoggingLevel> {
        self.log.as_ref().map(|(level, _)| *level)
    }

    fn notify(&self, method: &str, params: String) {
        if let Some((_, sink)) = &self.log {
            crate::server::dispatch::sink::send_from_call(sink, Outbound::notification(method, &params));
        }
    }

    fn request(&self, method: &'static str, params: String) -> Asked {
        self.request_as(None, method, params)
    }

    fn request_as(&self, key: Option<&str>, method: &'static str, params: String) -> Asked {
        let mut inner = self.lock();
        let key = match key {
            Some(key) => key.to_owned(),
            None => {
                inner.auto += 1;
                format!("ask-{}", inner.auto)
            }
        };
        if let Some(answer) = inner.given.get(&key).cloned() {
            if answer.get().starts_with('{') {
                inner.used.insert(key, answer.clone());
                return Box::pin(std::future::ready(Ok(answer)));
            }
            inner.invalid.get_or_insert_with(|| {
                RpcError::invalid_params(format!(
                    "invalid params: inputResponses[{}] must be an object (the client's result for the {method} it answers), got {}",
                    PyStr(&key),
                    kind(answer.get())
                ))
            });
        } else {
            let params = RawValue::from_string(params).ok();
            inner.asked.entry(key).or_insert_with(|| InputRequest::new(method, params));
        }
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
        // Never answered in this attempt: the body stops (see `drive`) and runs again with
        // the answer.
        Box::pin(std::future::pending())
    }
}

/// Run `body` until it finishes (`Some`), or until it waits having asked for something this
/// round does not hold (`None`: the call answers `input_required`).
pub(crate) async fn drive<T>(round: &Round, body: impl Future<Output = T>) -> Option<T> {
    let mut body = pin!(body);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(done) = body.as_mut().poll(cx) {
            return Poll::Ready(Some(done));
        }
        let mut inner = round.lock();
        if Round::stopped(&inner) {
            return Poll::Ready(None);
        }
        // An ask made outside the body's own future (a task it spawned) wakes it.
        inner.waker = Some(cx.waker().clone());
        Poll::Pending
    })
    .await
}

/// A modern call run as a round: its [`Round`], what its state is bound to, and the round
/// the retry continues.
pub(crate) struct RoundCall {
    pub(crate) round: Arc<Round>,
    method: &'static str,
    name: String,
    /// The call's arguments, as JSON (what the state is bound to).
    arguments: serde_json::Value,
    /// The round the `requestState` was issued by (0: this is the first attempt).
    previous: u32,
    key: Option<Arc<[u8]>>,
    ttl: Duration,
    max_rounds: u32,
}

/// The members of a retried request, raw, as its params carried them.
pub(crate) struct Retry<'a> {
    /// `inputResponses`.
    pub(crate) input_responses: Option<&'a RawValue>,
    /// `requestState`.
    pub(crate) request_state: Option<&'a RawValue>,
}

impl RoundCall {
    /// The round for a modern call of `name` by `method` with `arguments`, from what its
    /// retry carries: the state is opened and checked, the responses read.
    pub(crate) fn begin(
        options: &ServerOptions,
        method: &'static str,
        name: &str,
        arguments: serde_json::Value,
        retry: Retry<'_>,
        round: Round,
    ) -> Result<RoundCall, RpcError> {
        let key = options.request_state_key.clone();
        let ttl = options.request_state_ttl;
        let mut given = BTreeMap::new();
        let mut previous = 0;
        if let Some(state) = retry.request_state {
            let binding = Binding::new(method, name, &arguments);
            let opened = request_state::open(request_state::key(key.as_deref()), state, &binding, ttl)
                .map_err(|e| RpcError::invalid_params(e.to_string()))?;
            previous = opened.round;
            given = opened.answers;
        }
        if let Some(responses) = retry.input_responses {
            let read: BTreeMap<String, Box<RawValue>> =
                serde_json::from_str(responses.get()).map_err(|_| {
                    RpcError::invalid_params(format!(
                        "invalid params: inputResponses must be an object of the client's results by key, got {}",
                        kind(responses.get())
                    ))
                })?;
            for (k, v) in read {
                // An answer from an earlier round stands: a key is asked once.
                given.entry(k).or_insert(v);
            }
        }
        round.lock().given = given;
        Ok(RoundCall {
            round: Arc::new(round),
            method,
            name: name.to_owned(),
            arguments,
            previous,
            key,
            ttl,
            max_rounds: options.max_input_rounds,
        })
    }

    /// The talkback the call's context is handed.
    pub(crate) fn talkback(&self) -> Arc<dyn Talkback> {
        self.round.clone()
    }

    /// The answers this attempt was given, by key (a call that becomes a task hands them to
    /// the task's body, which asks again from the start).
    pub(crate) fn answers(&self) -> BTreeMap<String, Box<RawValue>> {
        self.round.lock().given.clone()
    }

    /// Whether the body stopped for input (its outcome is then not the call's answer).
    pub(crate) fn stopped(&self) -> bool {
        Round::stopped(&self.round.lock())
    }

    /// The answer of a call whose body stopped: `input_required` with what it asked for and
    /// a fresh state; or, when the client's answer could not be read, its error; or, past
    /// the round limit, `Err(Ok(message))` for the capability to report as it reports a
    /// failure.
    pub(crate) fn input_required(&self, meta: &RawValue) -> Result<String, Result<String, RpcError>> {
        let inner = self.round.lock();
        if let Some(invalid) = &inner.invalid {
            return Err(Err(invalid.clone()));
        }
        let round = self.previous + 1;
        if round > self.max_rounds {
            return Err(Ok(format!(
                "still asked the client for input after {} rounds of input_required, the most this server allows (ServerOptions::max_input_rounds); it was stopped",
                self.max_rounds
            )));
        }
        let binding = Binding::new(self.method, &self.name, &self.arguments);
        let state = request_state::seal(
            request_state::key(self.key.as_deref()),
            &binding,
            round,
            &inner.used,
            self.ttl,
        );
        let body = InputRequired::new(inner.asked.clone(), Some(state));
        let result = ModernResult { meta, result_type: INPUT_REQUIRED, body: &body };
        serde_json::to_string(&result).map_err(|e| {
            Err(RpcError::new(
                crate::protocol::code::INTERNAL_ERROR,
                format!("internal error: the input_required result could not be serialised: {e}"),
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    fn round_with(given: &[(&str, &str)]) -> Round {
        let round = Round::new(ClientCapabilities::default(), None);
        round.lock().given = given.iter().map(|(k, v)| ((*k).to_owned(), raw(v))).collect();
        round
    }

    #[tokio::test]
    async fn answered_keys_resolve_and_the_first_unanswered_stops_the_body() {
        let round = round_with(&[("ask-1", r#"{"action":"accept"}"#)]);
        let out = drive(&round, async {
            let first = round.request("roots/list", "{}".into()).await.unwrap();
            let second = round.request_as(Some("named"), "roots/list", "{}".into()).await.unwrap();
            (first, second)
        })
        .await;
        assert!(out.is_none());
        let inner = round.lock();
        assert_eq!(inner.used.keys().collect::<Vec<_>>(), ["ask-1"]);
        assert_eq!(inner.asked.keys().collect::<Vec<_>>(), ["named"]);
    }

    #[tokio::test]
    async fn concurrent_asks_are_all_recorded_in_one_round() {
        let round = round_with(&[]);
        let out = drive(&round, async {
            tokio::join!(
                round.request_as(Some("a"), "elicitation/create", "{}".into()),
                round.request("sampling/createMessage", r#"{"maxTokens":1}"#.into()),
                round.request("roots/list", "{}".into()),
            )
        })
        .await;
        assert!(out.is_none());
        let asked = &round.lock().asked;
        assert_eq!(asked.keys().collect::<Vec<_>>(), ["a", "ask-1", "ask-2"]);
        assert_eq!(asked["ask-1"].params.as_ref().unwrap().get(), r#"{"maxTokens":1}"#);
    }

    #[tokio::test]
    async fn a_body_that_asks_nothing_finishes_and_a_non_object_answer_is_refused() {
        let round = round_with(&[("k", "12345")]);
        assert_eq!(drive(&round, async { 7 }).await, Some(7));
        let out = drive(&round, round.request_as(Some("k"), "elicitation/create", "{}".into())).await;
        assert!(out.is_none());
        assert_eq!(
            round.lock().invalid.as_ref().unwrap().message,
            "invalid params: inputResponses['k'] must be an object (the client's result for the elicitation/create it answers), got a number"
        );
    }
}
