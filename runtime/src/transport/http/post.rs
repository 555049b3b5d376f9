//! A `POST /mcp`: check the media types, read the body, pick the session that serves it,
//! hand it the message, and answer with what comes back (JSON, or SSE when notifications
//! come first).

use std::sync::Arc;
use std::time::Duration;

use axum::BoxError;
use axum::body::{Bytes, HttpBody};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt as _;
use serde_json::Value;
use serde_json::value::RawValue;

use super::config::Auth;
use super::endpoint::{Endpoint, admit, find_session};
use super::read::heads::Heads;
use super::read::inbound::{
    check_media, check_modern_headers, declared_too_large, is_modern, read_body, too_large, unread,
};
use super::read::params;
use super::read::peek::{self, Shape, peek};
use super::response::{
    Answering, error_response, error_response_with_id, status_for, unsupported_version, with_session_id,
};
use super::stream::sse::CancelOnDrop;
use super::stream::{channel, outbox, slot, sse};
use crate::protocol::envelope::decode_call;
use crate::protocol::methods;
use crate::protocol::{OutboundKind, ProtocolVersion, RequestId};
use crate::server::Session;

/// Legacy methods a modern-era request gets 404 and -32601 for, before the engine sees it.
const REMOVED_IN_MODERN: [&str; 2] = ["initialize", "ping"];

/// JSON-RPC code for a request whose `Mcp-Method`/`Mcp-Name` headers do not match its body.
pub const HEADER_MISMATCH: i64 = -32020;

/// A POST: check the media types, read the body, pick the session that serves it, hand it
/// to the session, and answer with what comes back.
///
/// Written so that its future is small: hyper and the listener move it by value several
/// times a request, and each move copies all of it (a `memcpy` of its size; it was 1,832
/// bytes as one `async fn`, bench/findings.md, session 26). So the request is taken apart
/// before the future is made (an `async fn` keeps its argument's 240 bytes to the end), the
/// message is handed to the session in a step of its own ([`hand_over`]), which without
/// shared sessions never waits and runs to completion in place, and what the answer waits
/// on ([`Pending`]) is all that is held while it waits.
pub(super) fn post<B>(
    State(endpoint): State<Arc<Endpoint>>,
    request: hyper::Request<B>,
) -> impl Future<Output = Response> + Send
where
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let (parts, body) = request.into_parts();
    async move {
        let pending = {
            let heads = Heads::of(&parts.headers);
            // Refused from the headers alone, with the body unread (module `read::inbound`).
            let limit = endpoint.config.max_body;
            let admitted = admit(&endpoint, &parts, &heads).await;
            let refusal = match admitted {
                Err(_) => None,
                Ok(_) => check_media(&heads)
                    .err()
                    .or_else(|| declared_too_large(&heads, limit).then(|| too_large(limit))),
            };
            let principal = match (admitted, refusal) {
                (Ok(principal), None) => principal,
                (Err(refused), _) | (Ok(_), Some(refused)) => {
                    return Box::pin(unread(refused, body, limit, &parts.headers)).await;
                }
            };
            let body = match read_body(body, limit, &heads).await {
                Ok(b) => b,
                Err(refusal) => return refusal,
            };
            let handing = hand_over(&endpoint, &heads, &parts.headers, &principal, &body);
            let handed = match &endpoint.roaming {
                // Only a session store's calls wait in `hand_over`: without one it completes
                // on its first poll, here, and this future never holds it.
                None => handing
                    .now_or_never()
                    .expect("without a session store, handing a message over never waits"),
                Some(_) => Box::pin(handing).await,
            };
            match handed {
                Ok(pending) => pending,
                Err(answer) => return answer,
            }
        };
        respond(pending, &endpoint).await
    }
}

/// The `WWW-Authenticate` of a call refused for a scope the token lacks
/// ([`INSUFFICIENT_SCOPE`](crate::server::INSUFFICIENT_SCOPE), whose `data.requiredScopes`
/// names them): `Bearer error="insufficient_scope", scope="…"`, and the resource metadata when
/// the endpoint is a resource server, as its own 403 says it. The scopes named are all the
/// request needs: the resource server's own (every request's) first, then the tool's, so a
/// client that asks for exactly these loses none it needs.
#[cold]
fn scope_challenge(message: &str, endpoint: &Endpoint) -> Option<HeaderValue> {
    let message: Value = serde_json::from_str(message).ok()?;
    let tool = message["error"]["data"]["requiredScopes"].as_array()?.iter().filter_map(Value::as_str);
    let server = match &endpoint.config.auth {
        Auth::Authenticator(auth) => auth.resource_server(),
        Auth::Bearer(_) | Auth::None => None,
    };
    let mut scopes: Vec<&str> =
        server.map(|s| s.required_scopes.iter().map(String::as_str).collect()).unwrap_or_default();
    for scope in tool {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    let challenge = super::auth::authn::Refusal::InsufficientScope(scopes.join(" ")).challenge(server);
    HeaderValue::from_str(&challenge).ok()
}

/// What a POST's answer waits on once its message is with the session.
struct Pending {
    /// What the session sends for the message.
    rx: outbox::Outbox,
    /// The legacy session this message made, to name in `Mcp-Session-Id`.
    new_session_id: Option<String>,
    answering: Answering,
    /// Cancels the request if the answer is dropped before it is complete (modern era).
    cancel_on_drop: Option<CancelOnDrop>,
    /// A resumable answer's sending end, held weakly: the answer ends when every sender is
    /// gone.
    channel: Option<std::sync::Weak<channel::Channel>>,
}

/// Read the body as a message, pick the session that serves it and hand the message over.
/// `Err` is the whole answer, now: a refusal, or 202 for a message that expects none. With
/// sessions roaming, finding a session and saving what the message settled wait on the
/// store; nothing else here waits.
async fn hand_over(
    endpoint: &Endpoint,
    heads: &Heads<'_>,
    headers: &axum::http::HeaderMap,
    principal: &Arc<crate::principal::Principal>,
    body: &Bytes,
) -> Result<Pending, Response> {
    let Ok(text) = std::str::from_utf8(body) else {
        return Err(error_response(
            StatusCode::BAD_REQUEST,
            Some(crate::protocol::code::PARSE_ERROR),
            "parse error: the body is not UTF-8",
        ));
    };
    // Nothing to route: 202 is for an accepted notification or response, and this is neither.
    if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Err(error_response(
            StatusCode::BAD_REQUEST,
            Some(crate::protocol::code::PARSE_ERROR),
            "parse error: the body is empty",
        ));
    }
    // A `tools/call` of the common shape is decoded once, here, and handed to the engine
    // decoded; anything else is peeked at and decoded again by the engine.
    let call = decode_call(text);
    let (shape, call) = match call.as_ref().and_then(|c| peek::from_call(c, text)) {
        Some(shape) => (shape, call),
        None => (peek(text), None),
    };
    let id = match &shape {
        Shape::Request { id, .. } => Some(*id),
        _ => None,
    };
    let header_version = match heads.protocol_version.first {
        None => None,
        Some(v) => match v.to_str().ok().and_then(ProtocolVersion::parse) {
            Some(v) => Some(v),
            None => return Err(unsupported_version(v.as_bytes(), id, &shape)),
        },
    };
    let modern = is_modern(&shape, header_version);
    // A request takes a cell of its principal's rate limit; over it, 429 (module `rate`).
    if !matches!(shape, Shape::NoReply)
        && let Err(wait) = endpoint.server.admit(principal)
    {
        return Err(rate_limited(principal, wait, id));
    }
    let subject = principal.subject();
    // The legacy session the request names (a modern request's id is ignored, not looked
    // up), and what the table holds under it.
    let named = match heads.session_id() {
        Some(sid) if !modern => match find_session(endpoint, sid, subject).await {
            Ok(found) => Some((sid, found)),
            Err(refused) => return Err(refused.response(id)),
        },
        _ => None,
    };
    let request = Incoming { heads, text, shape: &shape, id, header_version, modern, subject };
    let (session, new_session_id, legacy) = match choose_session(endpoint, &request, named) {
        Ok(chosen) => chosen,
        Err(refusal) => return Err(refusal),
    };

    let expects_reply = match &shape {
        Shape::Request { .. } | Shape::Unreadable => true,
        Shape::Batch { has_requests } => *has_requests,
        Shape::NoReply => false,
    };
    // A legacy session's answer is resumable: its events carry ids and are stored, and what
    // the call sends after its response goes to the session's GET stream.
    let legacy_sid = legacy.as_ref().map(|l| l.0);
    let (sink, rx, channel) = match legacy {
        Some((_, slot)) => {
            let (feed, rx) = outbox::channel(endpoint.config.max_sse_backlog);
            let resumable = slot.resumable();
            let channel = channel::Channel::post(resumable, feed, Some(slot.notifier()), &endpoint.live);
            let weak = Arc::downgrade(&channel);
            (channel as Arc<dyn crate::server::Sink>, rx, Some(weak))
        }
        None => {
            let (sink, rx) = outbox::outbox(endpoint.config.max_sse_backlog);
            (sink, rx, None)
        }
    };
    // In the modern era, a client that goes away before the answer is complete has
    // cancelled the request (2026-07-28: closing the response stream is the cancellation).
    // Legacy clients cancel explicitly, and a dropped connection is not a cancellation.
    let cancel_on_drop = match (&shape, modern) {
        (Shape::Request { id, .. }, true) => serde_json::from_str::<&RawValue>(id)
            .ok()
            .and_then(|raw| RequestId::from_raw(raw).ok())
            .map(|id| CancelOnDrop::armed(session.clone(), id)),
        _ => None,
    };
    // A call that completes on its first poll is answered in this poll (module
    // `server::run::request`): its answer is in `rx` before `respond` awaits it.
    session.handle_admitted(
        principal,
        &endpoint.exposure,
        headers,
        text,
        call,
        &sink,
        crate::server::Inline::Handler,
    );
    drop(sink);
    // Sessions roaming: what this message settled is in the store before it is answered.
    if let (Some(r), Some(sid)) = (&endpoint.roaming, new_session_id.as_deref().or(legacy_sid))
        && let Err(refused) = r.save_changes(&endpoint.sessions, sid, subject).await
    {
        if new_session_id.is_some() {
            endpoint.sessions.forget(sid);
        }
        return Err(refused.response(id));
    }
    if !expects_reply {
        return Err(StatusCode::ACCEPTED.into_response());
    }
    let meta_incomplete = match &shape {
        Shape::Request { meta_version, meta_capabilities, .. } => {
            meta_version.is_none() || !meta_capabilities
        }
        _ => false,
    };
    let answering = Answering { modern, unreadable: matches!(shape, Shape::Unreadable), meta_incomplete };
    Ok(Pending { rx, new_session_id, answering, cancel_on_drop, channel })
}

/// 429 with `Retry-After` (whole seconds, rounded up) for a request over its principal's
/// rate limit.
fn rate_limited(principal: &crate::principal::Principal, wait: Duration, id: Option<&str>) -> Response {
    let message = crate::server::rate_refusal_message(principal, wait);
    let mut response = error_response_with_id(
        StatusCode::TOO_MANY_REQUESTS,
        Some(crate::server::RATE_LIMITED),
        id,
        &message,
    );
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
    response
}

/// A POST body read and peeked at, with what its headers say.
#[derive(Clone, Copy)]
struct Incoming<'a> {
    heads: &'a Heads<'a>,
    text: &'a str,
    shape: &'a Shape<'a>,
    /// The request's id as JSON text, once the body says it.
    id: Option<&'a str>,
    header_version: Option<ProtocolVersion>,
    modern: bool,
    /// The subject of the request's principal: whose legacy session it may use.
    subject: &'a str,
}

/// A legacy session's id and its GET stream's slot.
type LegacyStream<'a> = Option<(&'a str, Arc<slot::StreamSlot>)>;

/// The legacy session id a request names, and the session and GET stream's slot held under
/// it, if any.
type Named<'a> = (&'a str, Option<(Session, Arc<slot::StreamSlot>)>);

/// Which session serves a POST, the id of a legacy session it creates (to name in
/// `Mcp-Session-Id`), and the existing legacy session's id and GET stream it is served in
/// (its answer is resumable). `named` is the legacy session the request names and what the
/// table holds under that id (`None` for a modern request). A request the transport refuses
/// itself is the `Err` answer.
#[allow(clippy::result_large_err)] // The refusal is the answer itself, as in `check_media`.
fn choose_session<'a>(
    endpoint: &Endpoint,
    request: &Incoming<'a>,
    named: Option<Named<'a>>,
) -> Result<(Session, Option<String>, LegacyStream<'a>), Response> {
    let Incoming { heads, text, shape, id, header_version, modern, subject } = *request;
    // A modern request is stateless whatever it carries: an `Mcp-Session-Id` on it is
    // ignored (2026-07-28, backward compatibility), not looked up.
    if modern {
        if let Err(mismatch) = check_modern_headers(heads, shape) {
            return Err(error_response_with_id(
                StatusCode::BAD_REQUEST,
                Some(HEADER_MISMATCH),
                id,
                &mismatch,
            ));
        }
        if let Shape::Request { method, name: Some(tool), .. } = shape
            && method == methods::TOOLS_CALL
        {
            let wanted = endpoint.params.get(tool);
            if !wanted.is_empty() {
                let body: Option<serde_json::Value> = serde_json::from_str(text).ok();
                let arguments = body.as_ref().and_then(|b| b.pointer("/params/arguments"));
                if let Err(mismatch) = params::check(wanted, heads.map, arguments) {
                    return Err(error_response_with_id(
                        StatusCode::BAD_REQUEST,
                        Some(HEADER_MISMATCH),
                        id,
                        &mismatch,
                    ));
                }
            }
        }
        // `initialize` and `ping` are gone from 2026-07-28, and the spec holds a server to
        // 404 for them. Refused here rather than in the engine (which answers `ping` in both
        // eras, for stdio keepalives): modern HTTP has no session to keep alive or to
        // initialize.
        if let Shape::Request { method, .. } = shape
            && REMOVED_IN_MODERN.contains(&method.as_ref())
        {
            return Err(error_response_with_id(
                StatusCode::NOT_FOUND,
                Some(crate::protocol::code::METHOD_NOT_FOUND),
                id,
                &format!(
                    "method '{method}' not found: {} has no handshake and no ping; send server/discover, or initialize without the {} MCP-Protocol-Version header for a legacy session",
                    ProtocolVersion::LATEST,
                    ProtocolVersion::LATEST
                ),
            ));
        }
        // Each modern request is served on its own: they are stateless, and two clients
        // may well use the same request id at the same time.
        return Ok((endpoint.server.session(), None, None));
    }
    if let Some((sid, found)) = named {
        return match found {
            Some((s, slot)) => Ok((s, None, Some((sid, slot)))),
            None => Err(error_response_with_id(
                StatusCode::NOT_FOUND,
                None,
                id,
                "not found: no such session (it ended or never existed); send initialize again",
            )),
        };
    }
    if matches!(shape, Shape::Request { method, .. } if method == methods::INITIALIZE) {
        if endpoint.config.stateless {
            return Ok((endpoint.server.session(), None, None));
        }
        return match endpoint.sessions.create(&endpoint.server, subject) {
            Ok((sid, s)) => Ok((s, Some(sid), None)),
            Err(full) => Err(error_response_with_id(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                id,
                &format!("service unavailable: {} sessions are open, the most this server keeps", full.cap),
            )),
        };
    }
    if endpoint.config.stateless {
        let version = header_version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        return Ok((endpoint.server.session_without_handshake(version), None, None));
    }
    if matches!(shape, Shape::Unreadable) {
        return Ok((endpoint.server.session(), None, None));
    }
    Err(error_response_with_id(
        StatusCode::BAD_REQUEST,
        None,
        id,
        "bad request: missing Mcp-Session-Id header; send initialize first",
    ))
}

/// Turn what the session sends into the HTTP answer: JSON when the first thing is the
/// response, SSE when notifications come first. A resumable answer not ready within the
/// endpoint's polling delay is closed early, to be polled.
async fn respond(pending: Pending, endpoint: &Endpoint) -> Response {
    let Pending { mut rx, new_session_id, answering, mut cancel_on_drop, channel } = pending;
    let cell = channel.as_ref().and_then(std::sync::Weak::upgrade).map(|c| c.stream_cell());
    let first = match (endpoint.config.sse_polling, &channel) {
        (Some(polling), Some(channel)) => match tokio::time::timeout(polling.after, rx.next()).await {
            Ok(first) => first,
            Err(_) => {
                if let Some(channel) = channel.upgrade()
                    && channel.begin_polling()
                {
                    let polled = sse::polled(&channel.stream_id(), polling.retry);
                    return with_session_id(polled, new_session_id.as_deref());
                }
                rx.next().await
            }
        },
        _ => rx.next().await,
    };
    let Some(first) = first else {
        // The call was cancelled (notifications/cancelled) or abandoned: nothing to send.
        return StatusCode::ACCEPTED.into_response();
    };
    if first.message.kind() != OutboundKind::Response {
        let stream = cell.and_then(|c| c.get().cloned());
        let answer = sse::response(first, rx, cancel_on_drop, stream);
        return with_session_id(answer, new_session_id.as_deref());
    }
    let first = first.message;
    if let Some(guard) = &mut cancel_on_drop {
        guard.disarm();
    }
    let code = first.error_code();
    let status = status_for(code, answering);
    let failed = status != StatusCode::OK || code.is_some();
    // A tool the token lacks a scope for, on a server that steps up: 403 and the challenge.
    let challenge = match code {
        Some(crate::server::INSUFFICIENT_SCOPE) => scope_challenge(first.as_str(), endpoint),
        _ => None,
    };
    // Made whole, not through `(status, text).into_response()`, which would name the body
    // `text/plain` only to have the header replaced.
    let mut response = Response::new(axum::body::Body::from(first.into_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(challenge) = challenge {
        *response.status_mut() = StatusCode::FORBIDDEN;
        response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
    }
    match new_session_id {
        // A failed initialize leaves no session behind, and names none.
        Some(id) if failed => {
            endpoint.sessions.forget(&id);
            response
        }
        id => with_session_id(response, id.as_deref()),
    }
}

#[cfg(test)]
mod tests {
    /// The size of what `f` returns, without calling it.
    fn returned_size<A, B, F>(_: fn(A, B) -> F) -> usize {
        std::mem::size_of::<F>()
    }

    /// hyper and the listener move a POST's future by value several times a request, a
    /// `memcpy` of its whole size each time (see [`post`](super::post)): it stays the size
    /// it was before issue 50 (880 bytes in a test build). Moving the headers into an `Arc`
    /// once per POST had made it 1,016, about 190 instructions a request in copies alone.
    #[test]
    fn a_post_future_stays_small() {
        let size = returned_size(super::post::<axum::body::Body>);
        assert!(size <= 896, "a POST's future is {size} bytes");
    }
}
