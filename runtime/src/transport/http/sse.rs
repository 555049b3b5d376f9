//! A request's answer as a server-sent-event stream: the notifications that came first (its
//! progress), then its response, then the end of the stream.

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::mpsc;

use crate::protocol::{Outbound, OutboundKind};

/// `event: message` with the JSON as its data, as the streamable-HTTP transport frames it.
fn event(message: &Outbound) -> Bytes {
    let mut s = String::with_capacity(message.as_str().len() + 24);
    s.push_str("event: message\ndata: ");
    s.push_str(message.as_str());
    s.push_str("\n\n");
    Bytes::from(s)
}

pub(super) fn response(first: Outbound, rx: mpsc::UnboundedReceiver<Outbound>) -> Response {
    let state = (Some(first), rx, false);
    let stream = futures_util::stream::unfold(state, |(pending, mut rx, done)| async move {
        if done {
            return None;
        }
        let message = match pending {
            Some(m) => m,
            None => rx.recv().await?,
        };
        let finished = message.kind() == OutboundKind::Response;
        Some((Ok::<_, std::convert::Infallible>(event(&message)), (None, rx, finished)))
    });
    let mut r = (StatusCode::OK, Body::from_stream(stream)).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}
