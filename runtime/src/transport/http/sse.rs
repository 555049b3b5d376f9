//! A request's answer as a server-sent-event stream (`axum::response::sse`): the
//! notifications that came first (its progress), then its response, then the end of the
//! stream.

use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};

use super::CancelOnDrop;
use super::outbox::Outbox;
use crate::protocol::{Outbound, OutboundKind};

/// `event: message` with the JSON as its data, as the streamable-HTTP transport frames it.
fn event(message: &Outbound) -> Event {
    Event::default().event("message").data(message.as_str())
}

/// The stream: `first`, then whatever else arrives, up to and including the response. The
/// guard, if any, is disarmed once the response is handed to the body; dropping the stream
/// before that (the client went away) drops it armed, which cancels the request.
pub(super) fn response(first: Outbound, rx: Outbox, guard: Option<CancelOnDrop>) -> Response {
    let state = (Some(first), rx, false, guard);
    let stream = futures_util::stream::unfold(state, |(pending, mut rx, done, mut guard)| async move {
        if done {
            return None;
        }
        let message = match pending {
            Some(m) => m,
            None => rx.recv().await?,
        };
        let finished = message.kind() == OutboundKind::Response;
        if finished && let Some(g) = &mut guard {
            g.disarm();
        }
        Some((Ok::<_, std::convert::Infallible>(event(&message)), (None, rx, finished, guard)))
    });
    // `Sse` sets `Content-Type: text/event-stream` and `Cache-Control: no-cache`. Reverse
    // proxies must pass events on as they come (the spec's SHOULD).
    let mut r = (StatusCode::OK, Sse::new(stream)).into_response();
    r.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}
