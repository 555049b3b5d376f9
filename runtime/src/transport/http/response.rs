//! The answers the transport writes itself: JSON-RPC error bodies with their HTTP status,
//! the status a JSON-RPC answer maps to, and the unsupported-version refusal.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::read::names::MCP_SESSION_ID;
use super::read::peek::Shape;
use crate::json::json_string;
use crate::protocol::{Era, ProtocolVersion, code};

/// What the HTTP status of an answer depends on besides the answer itself.
#[derive(Debug, Clone, Copy)]
pub(super) struct Answering {
    /// The request was served in the modern era.
    pub(super) modern: bool,
    /// The body could not be routed (not JSON, or not a JSON-RPC object).
    pub(super) unreadable: bool,
    /// The request's `_meta` lacks the protocol version or the client capabilities.
    pub(super) meta_incomplete: bool,
}

/// The HTTP status for a JSON-RPC response whose error code (for a single error response)
/// is `code`: 400 for a parse error; in the modern era, 404 for an unknown method and 400
/// for an unsupported version, a missing required client capability (-32021) or a `_meta`
/// missing its required keys (-32602); 200 otherwise.
pub(super) fn status_for(code: Option<i64>, answering: Answering) -> StatusCode {
    let Some(c) = code else { return StatusCode::OK };
    let modern = answering.modern;
    if c == code::PARSE_ERROR || (answering.unreadable && c == code::INVALID_REQUEST) {
        StatusCode::BAD_REQUEST
    } else if modern && c == code::METHOD_NOT_FOUND {
        StatusCode::NOT_FOUND
    } else if modern
        && (c == code::UNSUPPORTED_PROTOCOL_VERSION
            || c == code::MISSING_REQUIRED_CLIENT_CAPABILITY
            || (c == code::INVALID_PARAMS && answering.meta_incomplete))
    {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// A JSON-RPC error body (no id: the request was refused before it was read) with `status`.
pub(super) fn error_response(status: StatusCode, code: Option<i64>, message: &str) -> Response {
    error_response_with_id(status, code, None, message)
}

/// A JSON-RPC error body with `status`, answering the request whose id (as JSON text) is
/// `id`, when the body was read far enough to know it.
pub(super) fn error_response_with_id(
    status: StatusCode,
    code: Option<i64>,
    id: Option<&str>,
    message: &str,
) -> Response {
    error_body(status, code, id, message, None)
}

fn error_body(
    status: StatusCode,
    code: Option<i64>,
    id: Option<&str>,
    message: &str,
    data: Option<&str>,
) -> Response {
    let code = code.unwrap_or(match status {
        StatusCode::NOT_FOUND => code::METHOD_NOT_FOUND,
        _ => code::INVALID_REQUEST,
    });
    let mut body = String::from("{\"jsonrpc\":\"2.0\",");
    if let Some(id) = id {
        body.push_str("\"id\":");
        body.push_str(id);
        body.push(',');
    }
    body.push_str(&format!("\"error\":{{\"code\":{code},\"message\":{}", json_string(message)));
    if let Some(data) = data {
        body.push_str(",\"data\":");
        body.push_str(data);
    }
    body.push_str("}}");
    let mut r = (status, body).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// 400 with an `UnsupportedProtocolVersionError` (-32022) for an `MCP-Protocol-Version`
/// header naming no version this server knows. `supported` lists what the request could
/// use instead: the modern versions (what `server/discover` lists) when it speaks the
/// modern way, with a `_meta` version; the handshake versions otherwise.
pub(super) fn unsupported_version(requested: &[u8], id: Option<&str>, shape: &Shape<'_>) -> Response {
    let modern_style = matches!(shape, Shape::Request { meta_version: Some(_), .. });
    let era = if modern_style { Era::Modern } else { Era::Legacy };
    let supported: Vec<&str> = ProtocolVersion::of_era(era).map(|v| v.as_str()).collect();
    let requested = String::from_utf8_lossy(requested);
    let data = format!(
        "{{\"supported\":[{}],\"requested\":{}}}",
        supported.iter().map(|v| json_string(v)).collect::<Vec<_>>().join(","),
        json_string(&requested)
    );
    error_body(
        StatusCode::BAD_REQUEST,
        Some(code::UNSUPPORTED_PROTOCOL_VERSION),
        id,
        &format!(
            "bad request: unsupported MCP-Protocol-Version; supported: {}; got {}",
            supported.join(", "),
            json_string(&requested)
        ),
        Some(&data),
    )
}

/// `response` saying `Connection: close`: the connection ends once it is written (hyper
/// reads the header and closes after it).
pub(crate) fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// `response` with `Mcp-Session-Id: id`, when there is one.
pub(super) fn with_session_id(mut response: Response, id: Option<&str>) -> Response {
    if let Some(v) = id.and_then(|id| HeaderValue::from_str(id).ok()) {
        response.headers_mut().insert(MCP_SESSION_ID, v);
    }
    response
}

/// `body`, holding `guard` until the body is written out or dropped: how a request stays
/// counted (in flight on its connection, or against a drain) until its answer has left.
/// Boxed as axum's `Body`, for a response that goes back through axum; hyper takes a
/// [`Holding`] as it is.
pub(crate) fn holding<G: Send + Unpin + 'static>(body: axum::body::Body, guard: G) -> axum::body::Body {
    axum::body::Body::new(Holding::new(body, guard))
}

/// A body holding a guard (see [`holding`]).
pub(crate) struct Holding<G> {
    body: axum::body::Body,
    _guard: G,
}

impl<G> Holding<G> {
    /// `body`, holding `guard` until it is written out or dropped.
    pub(crate) fn new(body: axum::body::Body, guard: G) -> Holding<G> {
        Holding { body, _guard: guard }
    }
}

impl<G: Unpin> hyper::body::Body for Holding<G> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}
