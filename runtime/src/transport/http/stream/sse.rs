//! Server-sent events as the streamable-HTTP transport writes them: the framing (`id:`,
//! `event: message`, `data:`, `retry:`), and the bodies built from it.
//!
//! - A POST's answer ([`response`]): the notifications that came first (its progress, its
//!   logs), then its response, then the end of the stream.
//! - A POST's answer closed early to be polled ([`polled`], SEP-1699): the priming event
//!   (an id and empty data) with `retry:`, then the end of the connection, not of the
//!   stream; the client resumes it with a GET naming that id.
//! - A resumed stream ([`resumed`]): the stored events after the client's `Last-Event-ID`,
//!   then whatever the stream still sends.
//!
//! A modern answer's stream holds a [`CancelOnDrop`]: a client that goes away before the
//! answer is complete has cancelled the request.
//!
//! In a legacy session every event carries its id (`<stream>:<seq>`, see
//! [`EventId`](crate::http::EventId)); a modern answer's events carry none (2026-07-28 streams are
//! not resumable). The framing is written here rather than with `axum::response::sse`,
//! whose events cannot carry the empty `data:` line a priming event needs (without it a
//! client's parser dispatches nothing).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;

use super::event_store::StoredEvent;
use super::outbox::{Outbox, Queued};
use crate::protocol::{OutboundKind, RequestId};
use crate::race::{Either, first};
use crate::server::Session;

/// How often an idle long-lived stream gets a comment line, so intermediaries keep it.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One event: `id: <stream>:<seq>` when the stream is resumable, `retry:` when asked,
/// `event: message`, and `data` (one `data:` line per line of it; one empty `data:` line for
/// empty data).
pub(super) fn frame(stream: Option<&str>, seq: u64, data: &str, retry: Option<Duration>) -> Bytes {
    let mut out = String::with_capacity(data.len() + 64);
    if let Some(stream) = stream {
        out.push_str("id: ");
        out.push_str(stream);
        out.push(':');
        out.push_str(&seq.to_string());
        out.push('\n');
    }
    if let Some(retry) = retry {
        out.push_str("retry: ");
        out.push_str(&retry.as_millis().to_string());
        out.push('\n');
    }
    out.push_str("event: message\n");
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push('\n');
    }
    out.push('\n');
    Bytes::from(out)
}

/// An SSE response with `body`: `Content-Type: text/event-stream`, `Cache-Control:
/// no-cache`, and `X-Accel-Buffering: no` (reverse proxies must pass events on as they
/// come: the spec's SHOULD).
pub(super) fn sse_response(body: impl Stream<Item = Bytes> + Send + 'static) -> Response {
    use futures_util::StreamExt as _;
    let body = Body::from_stream(body.map(Ok::<_, std::convert::Infallible>));
    let mut r = (StatusCode::OK, body).into_response();
    let headers = r.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// The next message of `rx`, or a keep-alive comment after [`KEEP_ALIVE`] of silence;
/// `None` when `rx` ends.
pub(super) async fn next_or_keep_alive(rx: &mut Outbox) -> Option<Result<Queued, Bytes>> {
    match first(rx.next(), tokio::time::sleep(KEEP_ALIVE)).await {
        Either::Left(q) => q.map(Ok),
        Either::Right(()) => Some(Err(Bytes::from_static(b":\n\n"))),
    }
}

/// A POST's answer as a stream: `first`, then whatever else arrives, up to and including
/// the response. Events carry ids when `stream` names the (resumable) stream. The guard, if
/// any, is disarmed once the response is handed to the body; dropping the stream before
/// that (the client went away) drops it armed, which cancels the request.
pub(crate) fn response(
    first: Queued,
    rx: Outbox,
    guard: Option<CancelOnDrop>,
    stream: Option<std::sync::Arc<str>>,
) -> Response {
    let state = (Some(first), rx, false, guard, stream);
    let body = futures_util::stream::unfold(state, |(pending, mut rx, done, mut guard, stream)| async move {
        if done {
            return None;
        }
        let queued = match pending {
            Some(q) => q,
            None => rx.next().await?,
        };
        let finished = queued.message.kind() == OutboundKind::Response;
        if finished && let Some(g) = &mut guard {
            g.disarm();
        }
        let bytes = frame(stream.as_deref(), queued.seq, queued.message.as_str(), None);
        Some((bytes, (None, rx, finished, guard, stream)))
    });
    sse_response(body)
}

/// A POST's answer closed before anything was sent, to be polled: the priming event (seq
/// 0, empty data) telling the client to come back after `retry`.
pub(crate) fn polled(stream: &str, retry: Duration) -> Response {
    let priming = frame(Some(stream), 0, "", Some(retry));
    sse_response(futures_util::stream::once(std::future::ready(priming)))
}

/// How a resumed stream goes on after its replay.
pub(crate) struct Tail {
    /// The live stream's queue, if it still runs in this process.
    pub(crate) live: Option<Outbox>,
    /// A POST's stream ends with its response; a GET stream goes on.
    pub(crate) ends_with_response: bool,
    /// Whether the replay already holds the end of the stream.
    pub(crate) ended: bool,
    /// Held until the body is dropped (a GET stream's [`Closer`](super::slot)).
    pub(crate) guard: Option<Box<dyn Send + Sync>>,
    /// When a stream that would go on (a GET stream) ends early, and how.
    pub(crate) until: Option<Until>,
}

/// A GET stream's early end: when `stop` fires (the replica's drain began), the stream sends
/// a last event of nothing but `retry:` (so the client reconnects after `retry`, to another
/// replica) and ends. A GET stream carries only what the session sends outside a call's own
/// answer, so no call in flight needs it, and a drain has no reason to wait for it: it would
/// never end by itself.
pub(crate) struct Until {
    pub(crate) stop: tokio_util::sync::CancellationToken,
    pub(crate) retry: Duration,
}

/// The last event of a stream ended early: `retry:` alone (no data, so nothing is
/// dispatched; the client's reconnection delay is set).
pub(super) fn retry_only(retry: Duration) -> Bytes {
    Bytes::from(format!("retry: {}\n\n", retry.as_millis()))
}

/// A resumed stream: `replay` (the stored events after the client's `Last-Event-ID`), then
/// what `tail` says. A stream that is neither ended nor live here (its call runs on another
/// replica, or the store outlived it) is closed with `retry:` after its replay, so the
/// client polls again.
pub(crate) fn resumed(
    stream: std::sync::Arc<str>,
    replay: Vec<StoredEvent>,
    tail: Tail,
    retry: Duration,
) -> Response {
    let ended = tail.ended || replay.last().is_some_and(|e| e.ends_stream);
    let polls = !ended && tail.live.is_none();
    let last = replay.last().map(|e| e.seq);
    let head: Vec<Bytes> = replay
        .iter()
        .map(|e| {
            let retry = (polls && Some(e.seq) == last).then_some(retry);
            frame(Some(&stream), e.seq, &e.data, retry)
        })
        .collect();
    let head = futures_util::stream::iter(head);
    let live = if ended { None } else { tail.live };
    let state = (live, tail.ends_with_response, tail.guard, stream, tail.until);
    let rest = futures_util::stream::unfold(state, |(live, ends, guard, stream, until)| async move {
        let mut rx = live?;
        let next = match &until {
            None => next_or_keep_alive(&mut rx).await,
            Some(u) => match first(u.stop.cancelled(), next_or_keep_alive(&mut rx)).await {
                Either::Left(()) => return Some((retry_only(u.retry), (None, ends, guard, stream, None))),
                Either::Right(next) => next,
            },
        };
        match next? {
            Err(comment) => Some((comment, (Some(rx), ends, guard, stream, until))),
            Ok(q) => {
                let done = ends && q.message.kind() == OutboundKind::Response;
                let bytes = frame(Some(&stream), q.seq, q.message.as_str(), None);
                Some((bytes, ((!done).then_some(rx), ends, guard, stream, until)))
            }
        }
    });
    use futures_util::StreamExt as _;
    sse_response(head.chain(rest))
}

/// Cancels a request in its session when dropped armed: the HTTP exchange that was to carry
/// its answer ended first (the handler future or the SSE body was dropped because the client
/// went away).
pub(crate) struct CancelOnDrop {
    session: Session,
    id: Option<RequestId>,
}

impl CancelOnDrop {
    /// Cancels request `id` of `session` when dropped, unless disarmed first.
    pub(crate) fn armed(session: Session, id: RequestId) -> CancelOnDrop {
        CancelOnDrop { session, id: Some(id) }
    }

    /// The answer is complete: dropping no longer cancels.
    pub(crate) fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(id) = self.id.take()
            && self.session.cancel(&id)
        {
            tracing::info!(%id, "the client closed the response stream; the request was cancelled");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_name_their_id_and_split_data_by_line() {
        let f = frame(Some("abc"), 3, "{\"a\":1}", None);
        assert_eq!(&f[..], b"id: abc:3\nevent: message\ndata: {\"a\":1}\n\n");
        let priming = frame(Some("abc"), 0, "", Some(Duration::from_millis(1500)));
        assert_eq!(&priming[..], b"id: abc:0\nretry: 1500\nevent: message\ndata: \n\n");
        assert_eq!(&frame(None, 0, "x\ny", None)[..], b"event: message\ndata: x\ndata: y\n\n");
    }
}
