//! What a POST must be before it is routed: media types (`Accept`, `Content-Type`), a body
//! that arrives whole and within the limit, the era it speaks, and in the modern era headers
//! that say what the body says; and what becomes of a body a request is answered without
//! ([`unread`]).
//!
//! # A refusal the client can read
//!
//! Some requests are answered from their headers alone: 401 and 403 (the guard, the
//! authenticator), 406 and 415 (the media types), 413 (a `Content-Length` over the limit), a
//! GET or DELETE refused or served, the drain's 503. Their bodies are still on their way. A
//! server that answers and closes with bytes unread makes the kernel reset the connection
//! (RFC 9112 §9.6), and a client still writing its body (most write it whole before they read)
//! sees `ConnectionResetError`, never the status; and hyper, finding the body dropped unread,
//! closes a keep-alive connection after the answer without saying so, so the client's next
//! request on it fails. Every such answer goes through [`unread`], on both ways a request
//! comes in (toolwire's listener and an app's own `mcp_router`):
//!
//! - a body within the endpoint's `max_body` is read and discarded before the answer, for at
//!   most [`DISCARD_WITHIN`]: the same bytes the server would read to serve the request, so
//!   a client without a token makes it read no more than one with a token could. Read whole,
//!   the connection is kept, and the client's next request on it is served;
//! - a body declared over `max_body` (the 413): the answer comes at once and says
//!   `Connection: close`, and the body is read and discarded behind it, in a task of its
//!   own, up to [`DISCARD_MAX`] bytes and for at most [`DISCARD_WITHIN`], so a client that
//!   writes its whole body before it reads gets to read the 413. One declared over
//!   [`DISCARD_MAX`] is not read at all: such a client may see the reset;
//! - a client that sent `Expect: 100-continue` waits for a go-ahead before it sends the body
//!   (hyper gives it when the body is read): nothing is read, and the answer says
//!   `Connection: close`;
//! - a body within `max_body` not read whole within [`DISCARD_WITHIN`] (or that runs past
//!   its limit, undeclared): the answer says `Connection: close`.
//!
//! A refusal made after the body was partly read (413 past the limit of a chunked body, a
//! body cut short or chunked wrongly) says `Connection: close` too (`read_body`).

use std::time::Duration;

use axum::BoxError;
use axum::body::{Bytes, HttpBody};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

use super::heads::{Heads, Seen};
use super::params;
use super::peek::Shape;
use crate::protocol::{Era, ProtocolVersion, methods};
use crate::transport::http::response::{closing, error_response};

/// 406 unless `Accept` names both media types a streamable-HTTP client must take; 415 unless
/// the body is `application/json`.
// A refusal is the answer itself, once per request at most: boxing it buys nothing.
#[allow(clippy::result_large_err)]
pub(crate) fn check_media(heads: &Heads<'_>) -> Result<(), Response> {
    if !accepts_both(heads) {
        return Err(error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            "not acceptable: the Accept header must name both application/json and text/event-stream",
        ));
    }
    let is_json = heads.content_type.first.is_some_and(|v| {
        // What clients send, compared whole before the value is taken apart.
        v.as_bytes() == b"application/json"
            || v.to_str().is_ok_and(|v| {
                v.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
            })
    });
    if !is_json {
        return Err(error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            "unsupported media type: POST a JSON body (application/json)",
        ));
    }
    Ok(())
}

/// How long a client is given to finish sending a body its answer does not use: 5 seconds,
/// `max_body` (4 MiB by default) at a little under 1 MB/s. Past it the answer goes with
/// `Connection: close`.
pub(super) const DISCARD_WITHIN: Duration = Duration::from_secs(5);

/// The most bytes of a body declared over `max_body` that are read and thrown away behind
/// its 413: 64 MiB, 16 times the default `max_body`. A client that declares more is not one
/// to spend the time on.
pub(super) const DISCARD_MAX: u64 = 64 * 1024 * 1024;

/// `answer`, given with the request's `body` unread (see the module's header): the body read
/// and discarded first when it is within `limit` bytes and arrives within [`DISCARD_WITHIN`],
/// and the connection kept; else the answer says `Connection: close` (and a body declared
/// over the limit is discarded behind it).
pub(crate) async fn unread<B>(answer: Response, body: B, limit: usize, headers: &HeaderMap) -> Response
where
    B: HttpBody<Data = Bytes> + Send + 'static,
{
    if body.is_end_stream() {
        return answer;
    }
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let waits_to_send =
        headers.get_all(header::EXPECT).iter().any(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if waits_to_send {
        return closing(answer);
    }
    if let Some(declared) = declared.filter(|n| *n > limit as u64) {
        if declared <= DISCARD_MAX {
            tokio::spawn(discard(body, declared));
        }
        return closing(answer);
    }
    if discard(body, limit as u64).await { answer } else { closing(answer) }
}

/// Read `body` to its end and throw it away: `true` when it ended within `limit` bytes and
/// [`DISCARD_WITHIN`].
async fn discard<B: HttpBody<Data = Bytes>>(body: B, limit: u64) -> bool {
    let mut body = std::pin::pin!(body);
    let reading = async {
        let mut total = 0u64;
        while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
            let Ok(frame) = frame else { return false };
            if let Ok(chunk) = frame.into_data() {
                total += chunk.len() as u64;
                if total > limit {
                    return false;
                }
            }
        }
        true
    };
    tokio::time::timeout(DISCARD_WITHIN, reading).await.unwrap_or(false)
}

/// 413 for a body over `limit` bytes.
pub(crate) fn too_large(limit: usize) -> Response {
    closing(error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        &format!("payload too large: the body is over the {limit}-byte limit"),
    ))
}

/// Whether the request's `Content-Length` is over `limit`: 413 at once, not waited for (a
/// client may send nothing more until it is answered).
pub(crate) fn declared_too_large(heads: &Heads<'_>, limit: usize) -> bool {
    heads.content_length.text().and_then(|v| v.parse::<u64>().ok()).is_some_and(|n| n > limit as u64)
}

/// The whole body: 413 past `limit`; 400 naming what was wrong when it fails to arrive (cut
/// short, or chunked wrongly). Any body will do (hyper's as it came, on toolwire's listener:
/// boxing it as axum's `Body` would cost an allocation a request); its trailers, if any, are
/// passed over. A refusal here leaves the rest of the body unread, and says `Connection:
/// close` (module header).
pub(crate) async fn read_body<B>(body: B, limit: usize, heads: &Heads<'_>) -> Result<Bytes, Response>
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    let too_large = || too_large(limit);
    let declared = heads.content_length.text().and_then(|v| v.parse::<u64>().ok());
    let mut body = std::pin::pin!(body);
    // A body of one chunk (most are: hyper reads a small request whole) is answered as it
    // came, with no vector made to hold it (a malloc and a free a request).
    let mut first: Option<Bytes> = None;
    let mut more: Vec<Bytes> = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(|e| body_failed(&axum::Error::new(e), declared))?;
        let Ok(chunk) = frame.into_data() else { continue };
        total += chunk.len();
        if total > limit {
            return Err(too_large());
        }
        match first {
            None => first = Some(chunk),
            Some(_) => more.push(chunk),
        }
    }
    Ok(match first {
        None => Bytes::new(),
        Some(first) if more.is_empty() => first,
        Some(first) => {
            more.insert(0, first);
            Bytes::from(more.concat())
        }
    })
}

/// 400 for a body that failed to arrive, naming why (from hyper's I/O error).
fn body_failed(error: &axum::Error, declared: Option<u64>) -> Response {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let io = std::iter::from_fn(|| {
        let current = source?;
        source = current.source();
        Some(current)
    })
    .find_map(|e| e.downcast_ref::<std::io::Error>());
    let framing = match declared {
        Some(n) => format!("Content-Length: {n}"),
        None => "chunked".to_owned(),
    };
    let message = match io {
        Some(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && declared.is_some() => {
            format!("bad request: the body was cut short: the connection closed before its end ({framing})")
        }
        Some(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            format!("bad request: the body was cut short: the connection closed before its last chunk ({e})")
        }
        Some(e) => format!("bad request: the body's chunked encoding is invalid: {e}"),
        None => format!("bad request: the body could not be read: {error}"),
    };
    closing(error_response(StatusCode::BAD_REQUEST, None, &message))
}

/// A request in the modern era: its `_meta` or its header says 2026-07-28.
pub(crate) fn is_modern(shape: &Shape<'_>, header_version: Option<ProtocolVersion>) -> bool {
    let meta_modern = match shape {
        Shape::Request { meta_version: Some(v), .. } => {
            ProtocolVersion::parse(v).is_some_and(|v| v.era() == Era::Modern)
        }
        _ => false,
    };
    meta_modern || header_version.is_some_and(|v| v.era() == Era::Modern)
}

/// The modern era routes on headers, so they must say what the body says.
pub(crate) fn check_modern_headers(heads: &Heads<'_>, shape: &Shape<'_>) -> Result<(), String> {
    let Shape::Request { method, name, meta_version, .. } = shape else { return Ok(()) };
    // The version header must say what `_meta` says (a missing `_meta` version is the
    // engine's -32602, not a mismatch).
    if let Some(body_version) = meta_version {
        match heads.protocol_version.text() {
            None => {
                return Err(format!(
                    "header mismatch: the MCP-Protocol-Version header is missing; the body's _meta says '{body_version}'"
                ));
            }
            Some(h) if h != body_version.as_ref() => {
                return Err(format!(
                    "header mismatch: MCP-Protocol-Version is '{h}' but the body's _meta says '{body_version}'"
                ));
            }
            Some(_) => {}
        }
    }
    let header_method = heads.method.text();
    if header_method != Some(method.as_ref()) {
        let what = match header_method {
            None => {
                format!("header mismatch: the Mcp-Method header is missing; the body's method is '{method}'")
            }
            Some(h) => format!("header mismatch: Mcp-Method is '{h}' but the body's method is '{method}'"),
        };
        return Err(what);
    }
    // The tasks extension routes its methods by the task (`Mcp-Name: <taskId>`, SEP-2663).
    let names_something = matches!(
        method.as_ref(),
        methods::TOOLS_CALL
            | methods::PROMPTS_GET
            | methods::RESOURCES_READ
            | methods::TASKS_GET
            | methods::TASKS_UPDATE
            | methods::TASKS_CANCEL
    );
    if names_something {
        // The name may travel Base64-encoded (`=?base64?…?=`); it is compared decoded.
        let decoded = heads.name.first.map(|v| params::decode(v.as_bytes()));
        let header_name = match &decoded {
            None => None,
            Some(Ok(n)) => Some(n.as_str()),
            Some(Err(why)) => return Err(format!("header mismatch: Mcp-Name {why}")),
        };
        if header_name != name.as_deref() {
            let what = format!(
                "header mismatch: Mcp-Name is {} but the body names {}",
                header_name.map_or("missing".to_owned(), |h| format!("'{h}'")),
                name.as_deref().map_or("nothing".to_owned(), |n| format!("'{n}'")),
            );
            return Err(what);
        }
    }
    Ok(())
}

/// Whether `Accept` names both media types a streamable-HTTP client must take.
fn accepts_both(heads: &Heads<'_>) -> bool {
    // What the official SDKs send, compared whole before the list is taken apart.
    if let Seen { first: Some(only), repeated: false } = heads.accept
        && only.as_bytes() == b"application/json, text/event-stream"
    {
        return true;
    }
    let mut json = false;
    let mut sse = false;
    for value in heads.map.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let media = item.split(';').next().unwrap_or("").trim();
            json |= media.eq_ignore_ascii_case("application/json");
            sse |= media.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{HeaderMap, HeaderValue};

    fn headers(accept: &[&'static str], content_type: Option<&'static str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        for a in accept {
            h.append(header::ACCEPT, HeaderValue::from_static(a));
        }
        if let Some(c) = content_type {
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(c));
        }
        h
    }

    fn status(h: &HeaderMap) -> Option<StatusCode> {
        check_media(&Heads::of(h)).err().map(|r| r.status())
    }

    #[test]
    fn media_types_are_read_whatever_their_spelling() {
        let json = Some("application/json");
        for accept in [
            &["application/json, text/event-stream"][..],
            &["text/event-stream, application/json"],
            &["Application/JSON;q=0.9 ,  text/event-stream;q=1"],
            &["application/json", "text/event-stream"],
            &["application/json, text/event-stream", "text/html"],
        ] {
            assert_eq!(status(&headers(accept, json)), None, "{accept:?}");
        }
        for content_type in ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON"] {
            let h = headers(&["application/json, text/event-stream"], Some(content_type));
            assert_eq!(status(&h), None, "{content_type}");
        }
        for accept in
            [&["application/json"][..], &["text/event-stream"], &[], &["application/json, text/html"]]
        {
            assert_eq!(status(&headers(accept, json)), Some(StatusCode::NOT_ACCEPTABLE), "{accept:?}");
        }
        for content_type in [None, Some("text/plain"), Some("application/jsonx")] {
            let h = headers(&["application/json, text/event-stream"], content_type);
            assert_eq!(status(&h), Some(StatusCode::UNSUPPORTED_MEDIA_TYPE), "{content_type:?}");
        }
    }

    fn closes(r: &Response) -> bool {
        r.headers().get(header::CONNECTION).is_some_and(|v| v.as_bytes() == b"close")
    }

    /// An answer given with the body unread: a body within the limit is read first and the
    /// connection kept; one declared over it, one the client waits to send (`Expect:
    /// 100-continue`), or one that runs past the limit closes the connection instead.
    #[tokio::test]
    async fn an_unread_body_is_discarded_within_the_limit_or_the_connection_closes() {
        let body = |chunks: Vec<&'static str>| {
            let stream = futures_util::stream::iter(
                chunks
                    .into_iter()
                    .map(|c| Ok::<_, std::convert::Infallible>(Bytes::from_static(c.as_bytes()))),
            );
            Body::from_stream(stream)
        };
        let answer = || error_response(StatusCode::UNAUTHORIZED, None, "unauthorized");
        let mut h = HeaderMap::new();
        let kept = unread(answer(), body(vec!["12345", "67890"]), 10, &h).await;
        assert_eq!((kept.status(), closes(&kept)), (StatusCode::UNAUTHORIZED, false));
        let over = unread(answer(), body(vec!["12345", "678901"]), 10, &h).await;
        assert!(closes(&over), "read past the limit");
        assert!(!closes(&unread(answer(), Body::empty(), 10, &h).await), "no body");
        h.insert(header::CONTENT_LENGTH, HeaderValue::from_static("11"));
        // Declared over the limit: answered at once (this body would never end), read behind.
        let pending =
            Body::from_stream(futures_util::stream::pending::<Result<Bytes, std::convert::Infallible>>());
        assert!(closes(&unread(answer(), pending, 10, &h).await), "declared over the limit");
        h.insert(header::CONTENT_LENGTH, HeaderValue::from_static("5"));
        h.insert(header::EXPECT, HeaderValue::from_static("100-continue"));
        let pending =
            Body::from_stream(futures_util::stream::pending::<Result<Bytes, std::convert::Infallible>>());
        assert!(closes(&unread(answer(), pending, 10, &h).await), "waiting for 100 Continue");
    }

    /// A body is read whole however it is cut into chunks (none, one, several, some empty),
    /// and refused past the limit whatever the chunks.
    #[tokio::test]
    async fn a_body_is_read_whole_from_any_chunks_and_refused_past_the_limit() {
        let read = |chunks: Vec<&'static str>, limit: usize| async move {
            let stream = futures_util::stream::iter(
                chunks
                    .into_iter()
                    .map(|c| Ok::<_, std::convert::Infallible>(Bytes::from_static(c.as_bytes()))),
            );
            let h = HeaderMap::new();
            read_body(Body::from_stream(stream), limit, &Heads::of(&h)).await.map_err(|r| r.status())
        };
        assert_eq!(read(vec![], 10).await, Ok(Bytes::new()));
        assert_eq!(read(vec!["{}"], 10).await, Ok(Bytes::from_static(b"{}")));
        let whole = read(vec!["{\"a\"", "", ":", "1}"], 10).await;
        assert_eq!(whole, Ok(Bytes::from_static(b"{\"a\":1}")));
        assert_eq!(read(vec!["12345", "67890"], 10).await.map(|b| b.len()), Ok(10));
        assert_eq!(read(vec!["12345", "678901"], 10).await, Err(StatusCode::PAYLOAD_TOO_LARGE));
        assert_eq!(read(vec!["12345678901"], 10).await, Err(StatusCode::PAYLOAD_TOO_LARGE));
    }
}
