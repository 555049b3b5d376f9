//! A request's answer as a server-sent-event stream: the notifications that came first (its
//! progress), then its response, then the end of the stream.

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::mpsc;

use super::CancelOnDrop;
use crate::protocol::{Outbound, OutboundKind};

/// `event: message` with the JSON as its data, as the streamable-HTTP transport frames it.
fn event(message: &Outbound) -> Bytes {
    let mut s = String::with_capacity(message.as_str().len() + 24);
    s.push_str("event: message\ndata: ");
    s.push_str(message.as_str());
    s.push_str("\n\n");
    Bytes::from(s)
}

/// The stream: `first`, then whatever else arrives, up to and including the response. The
/// guard, if any, is disarmed once the response is handed to the body; dropping the stream
/// before that (the client went away) drops it armed, which cancels the request.
pub(super) fn response(
    first: Outbound,
    rx: mpsc::UnboundedReceiver<Outbound>,
    guard: Option<CancelOnDrop>,
) -> Response {
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
    let mut r = (StatusCode::OK, Body::from_stream(stream)).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Reverse proxies must pass events on as they come (the spec's SHOULD).
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}
