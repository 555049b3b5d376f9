//! `GET /mcp`: a legacy session's GET stream opened (module `stream::slot`), or, with
//! `Last-Event-ID`, a stream resumed after that event: the session's GET stream, or a POST's
//! answer (module `stream::channel`), from what the [`EventStore`] still holds. The status table in
//! the parent module's header says what each refusal is.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::endpoint::{Endpoint, admit, find_session};
use super::read::heads::Heads;
use super::read::inbound;
use super::read::names::LAST_EVENT_ID;
use super::response::error_response;
use super::stream::event_store::{self, EventId, ReplayError};
use super::stream::{outbox, slot, sse};
use crate::protocol::{Era, ProtocolVersion};

/// GET: open a legacy session's stream (module `stream::slot`).
pub(super) async fn get(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let answer = open_stream(&endpoint, &parts).await;
    inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
}

/// The answer to a GET: the session's stream, or why not.
async fn open_stream(endpoint: &Endpoint, parts: &axum::http::request::Parts) -> Response {
    let heads = Heads::of(&parts.headers);
    let principal = match admit(endpoint, parts, &heads).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let modern = heads
        .protocol_version
        .text()
        .and_then(ProtocolVersion::parse)
        .is_some_and(|v| v.era() == Era::Modern);
    if modern || endpoint.config.stateless {
        let mut response = error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            None,
            if modern {
                "method not allowed: 2026-07-28 has no GET stream; send subscriptions/listen"
            } else {
                "method not allowed: a stateless server keeps no sessions, so it has no GET stream"
            },
        );
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        return response;
    }
    let takes_sse = parts.headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).any(|v| {
        v.split(',')
            .any(|item| item.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("text/event-stream"))
    });
    if !takes_sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            "not acceptable: a GET stream is server-sent events; the Accept header must name text/event-stream",
        );
    }
    let Some(sid) = heads.session_id() else {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            "bad request: missing Mcp-Session-Id header; send initialize first",
        );
    };
    let found = match find_session(endpoint, sid, principal.subject()).await {
        Ok(found) => found.map(|(_, slot)| slot),
        Err(refused) => return refused.response(None),
    };
    let Some(slot) = found else {
        return error_response(
            StatusCode::NOT_FOUND,
            None,
            "not found: no such session (it ended or never existed); send initialize again",
        );
    };
    if let Some(last) = parts.headers.get(LAST_EVENT_ID) {
        return resume(endpoint, sid, &slot, last.as_bytes()).await;
    }
    match slot.open(until_drained(endpoint)) {
        Ok(stream) => stream,
        Err(slot::AlreadyOpen) => error_response(
            StatusCode::CONFLICT,
            None,
            "conflict: this session already has its GET stream open; only one is allowed per session",
        ),
    }
}

/// A GET with `Last-Event-ID`: the stream it names, resumed after it (the session's GET
/// stream, or a POST's answer), or the refusal saying why not.
async fn resume(endpoint: &Endpoint, sid: &str, slot: &Arc<slot::StreamSlot>, header: &[u8]) -> Response {
    let Some(last) = std::str::from_utf8(header).ok().and_then(EventId::parse) else {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            &format!(
                "bad request: Last-Event-ID {} is not an event id of this server (its ids read <stream>:<number>)",
                crate::json::json_string(&String::from_utf8_lossy(header))
            ),
        );
    };
    let outcome = if last.stream() == &*slot.stream_id() {
        slot.resume(last.seq(), until_drained(endpoint)).await
    } else {
        resume_post(endpoint, sid, &last).await
    };
    outcome.unwrap_or_else(|e| replay_refused(&last, &e))
}

/// A POST's answer resumed after `last`: the stored events after it, then the rest of the
/// answer as it comes if the call still runs here; else the stream is closed with `retry:`
/// after the replay (unless the replay ends with the response), and the client polls again.
async fn resume_post(endpoint: &Endpoint, sid: &str, last: &EventId) -> Result<Response, ReplayError> {
    let (live, through, ended) = match endpoint.live.find(sid, last.stream()) {
        Some(channel) => {
            let (feed, rx) = outbox::channel(endpoint.config.max_sse_backlog);
            let (through, ended) = channel.resume(feed);
            (Some(rx), through, ended)
        }
        None => (None, u64::MAX, false),
    };
    let stored = endpoint.store.replay(sid, last.stream(), last.seq()).await;
    let replay = match &live {
        // The call still runs here: a stream the store lost whole is gone, not unknown.
        Some(_) => event_store::replay_of_live(last.stream(), last.seq(), through, stored)?,
        None => stored?,
    };
    let replay = replay.into_iter().filter(|e| e.seq <= through).collect();
    let retry = endpoint.config.sse_polling.map_or(DEFAULT_SSE_RETRY, |p| p.retry);
    let tail = sse::Tail { live, ends_with_response: true, ended, guard: None, until: None };
    Ok(sse::resumed(last.stream().into(), replay, tail, retry))
}

/// A GET stream's early end: when the endpoint's drain begins (see [`sse::Until`]).
fn until_drained(endpoint: &Endpoint) -> Option<sse::Until> {
    let retry = endpoint.config.sse_polling.map_or(DEFAULT_SSE_RETRY, |p| p.retry);
    endpoint.config.drain.as_ref().map(|d| sse::Until { stop: d.begun_token(), retry })
}

/// How long a client whose resumed stream was closed before its end is told to wait
/// (`retry:`), when the endpoint does not poll: one second.
const DEFAULT_SSE_RETRY: Duration = Duration::from_secs(1);

/// The answer to a `Last-Event-ID` the store cannot replay from.
fn replay_refused(last: &EventId, error: &ReplayError) -> Response {
    match error {
        ReplayError::Gone { oldest, .. } => error_response(
            StatusCode::GONE,
            None,
            &format!(
                "gone: the events after Last-Event-ID '{last}' are no longer held (the oldest held of that stream is '{}'); the stream cannot be resumed without missing events",
                EventId::new(last.stream(), *oldest)
            ),
        ),
        ReplayError::Unavailable(why) => error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            &format!("service unavailable: the event store could not be read ({why}); try again"),
        ),
        // -32600, not the -32601 a 404 defaults to: the request was understood, its stream is
        // what is missing.
        _ => error_response(
            StatusCode::NOT_FOUND,
            Some(crate::protocol::code::INVALID_REQUEST),
            &format!(
                "not found: Last-Event-ID '{last}' names no stream of this session (it never existed, or its events are gone)"
            ),
        ),
    }
}
