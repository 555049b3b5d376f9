//! What a POST must be before it is routed: media types (`Accept`, `Content-Type`), a body
//! that arrives whole and within the limit, the era it speaks, and in the modern era headers
//! that say what the body says.

use axum::BoxError;
use axum::body::{Bytes, HttpBody};
use axum::http::{StatusCode, header};
use axum::response::Response;

use super::heads::{Heads, Seen};
use super::params;
use super::peek::Shape;
use super::response::error_response;
use crate::protocol::{Era, ProtocolVersion};

/// 406 unless `Accept` names both media types a streamable-HTTP client must take; 415 unless
/// the body is `application/json`.
// A refusal is the answer itself, once per request at most: boxing it buys nothing.
#[allow(clippy::result_large_err)]
pub(super) fn check_media(heads: &Heads<'_>) -> Result<(), Response> {
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

/// The whole body: 413 past `limit`; 400 naming what was wrong when it fails to arrive
/// (cut short, or chunked wrongly). Any body will do (hyper's as it came, on toolwire's
/// listener: boxing it as axum's `Body` would cost an allocation a request); its trailers,
/// if any, are passed over.
pub(super) async fn read_body<B>(body: B, limit: usize, heads: &Heads<'_>) -> Result<Bytes, Response>
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    let too_large = || {
        error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            &format!("payload too large: the body is over the {limit}-byte limit"),
        )
    };
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
    error_response(StatusCode::BAD_REQUEST, None, &message)
}

/// A request in the modern era: its `_meta` or its header says 2026-07-28.
pub(super) fn is_modern(shape: &Shape<'_>, header_version: Option<ProtocolVersion>) -> bool {
    let meta_modern = match shape {
        Shape::Request { meta_version: Some(v), .. } => {
            ProtocolVersion::parse(v).is_some_and(|v| v.era() == Era::Modern)
        }
        _ => false,
    };
    meta_modern || header_version.is_some_and(|v| v.era() == Era::Modern)
}

/// The modern era routes on headers, so they must say what the body says.
pub(super) fn check_modern_headers(heads: &Heads<'_>, shape: &Shape<'_>) -> Result<(), String> {
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
    let names_something = matches!(method.as_ref(), "tools/call" | "prompts/get" | "resources/read");
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
