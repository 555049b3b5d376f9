//! The request a call came in: its id, its session's id, its `_meta`, the client's name and,
//! over HTTP, its headers. A tool reads them from its [`Context`](super::Context)
//! ([`Context::request`](super::Context::request) and the accessors beside it) or takes a
//! [`CallRequest`] parameter (`#[tool]` injects it); no thread-local holds them.
//!
//! A server keeps the request only for a call whose code can read it
//! ([`ToolInfo::reads_request`](crate::ToolInfo::reads_request): `#[tool]` says it for a fn
//! that takes anything from its context): then one box of its id, its session's id, its
//! `_meta` and, over HTTP, a copy of its headers. Every other call keeps a null pointer, and
//! an HTTP request's headers stay where the transport read them, lent to interceptors.

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::protocol::RequestId;

/// What a server keeps of a call's request (crate-private: tools read [`CallRequest`]):
/// made, in a box of its own, only for code that can read it (a tool whose
/// [`ToolInfo::reads_request`](crate::ToolInfo::reads_request) says so), so that a call of
/// any other keeps one null pointer in its context.
#[derive(Clone, Default)]
pub(crate) struct RequestParts {
    id: Option<RequestId>,
    session_id: Option<Arc<str>>,
    meta: Option<Box<RawValue>>,
    #[cfg(feature = "http")]
    headers: Option<Arc<axum::http::HeaderMap>>,
}

impl RequestParts {
    /// The parts of the request `id`: its session's id and its `_meta` (copied here).
    pub(crate) fn new(id: Option<RequestId>, session_id: Option<Arc<str>>, meta: Option<&RawValue>) -> Self {
        RequestParts {
            id,
            session_id,
            meta: meta.map(RawValue::to_owned),
            #[cfg(feature = "http")]
            headers: None,
        }
    }

    /// These parts, with the HTTP request's headers.
    #[cfg(feature = "http")]
    pub(crate) fn with_headers(mut self, headers: Option<Arc<axum::http::HeaderMap>>) -> Self {
        self.headers = headers;
        self
    }

    /// The request as a tool reads it, `client_name` from the call's peer; all `None` but
    /// the name when nothing was kept.
    pub(crate) fn view<'a>(parts: Option<&'a RequestParts>, client_name: Option<&'a str>) -> CallRequest<'a> {
        CallRequest {
            id: parts.and_then(|p| p.id.as_ref()),
            session_id: parts.and_then(|p| p.session_id.as_deref()),
            meta: parts.and_then(|p| p.meta.as_deref()),
            client_name,
            #[cfg(feature = "http")]
            headers: parts.and_then(|p| p.headers.as_deref()),
        }
    }
}

/// The request a call came in, borrowed from its [`Context`](super::Context): see
/// [`Context::request`](super::Context::request). As a `#[tool]` parameter it is injected,
/// never advertised:
///
/// ```
/// use toolwire::context::CallRequest;
///
/// /// Say who asked, and how.
/// #[toolwire::tool(read_only)]
/// fn whoami(request: CallRequest<'_>) -> String {
///     format!(
///         "client {} (request {}, session {})",
///         request.client_name.unwrap_or("unknown"),
///         request.id.map(ToString::to_string).unwrap_or_default(),
///         request.session_id.unwrap_or("none"),
///     )
/// }
/// # use toolwire::Tool;
/// # assert_eq!(whoami {}.info().input_schema().as_str(), r#"{"additionalProperties":false,"type":"object"}"#);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct CallRequest<'a> {
    /// The request's JSON-RPC id; `None` for a call made without a server.
    pub id: Option<&'a RequestId>,
    /// The HTTP session's id (`Mcp-Session-Id`, legacy era); `None` over stdio, in process,
    /// and for a modern (sessionless) request.
    pub session_id: Option<&'a str>,
    /// The request's `_meta`, raw, exactly as the client sent it (`progressToken`, a modern
    /// request's version and client, `traceparent`, and the client's own keys).
    pub meta: Option<&'a RawValue>,
    /// The client's self-reported name (`clientInfo.name`, from `initialize` or a modern
    /// request's `_meta`): display it, never trust it.
    pub client_name: Option<&'a str>,
    /// The HTTP request's headers, when the call came over HTTP.
    #[cfg(feature = "http")]
    pub headers: Option<&'a axum::http::HeaderMap>,
}
