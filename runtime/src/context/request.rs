//! The request a call came in: its id, its session's id, its `_meta`, the client's name and,
//! over HTTP, its headers. A tool reads them from its [`Context`](super::Context)
//! ([`Context::request`](super::Context::request) and the accessors beside it) or takes a
//! [`CallRequest`] parameter (`#[tool]` injects it); no thread-local holds them.
//!
//! What a server copies out of the request for its calls is what costs least to keep: the
//! id (an integer, as clients send them, costs nothing), the session's id and the headers
//! (shared, one reference count each), and `_meta` (one copy, only when the request has
//! one).

use std::mem::ManuallyDrop;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::protocol::RequestId;

/// What a server keeps of a call's request (crate-private: tools read [`CallRequest`]).
///
/// Every call has an id, and over HTTP its headers (shared with the POST: one reference
/// count); few have a session's id or a `_meta`, so those two are boxed together and made
/// only when one is there (a legacy stdio call and a stateless HTTP one have neither).
///
/// Its fields are dropped by hand ([`Drop`] below): a call with nothing to free (a number id,
/// no headers, no rest) pays three inline tests, not a call to the drop glue.
#[derive(Clone, Default)]
pub(crate) struct RequestParts {
    id: ManuallyDrop<Option<RequestId>>,
    #[cfg(feature = "http")]
    headers: ManuallyDrop<Option<Arc<axum::http::HeaderMap>>>,
    rest: ManuallyDrop<Option<Box<Rest>>>,
}

impl Drop for RequestParts {
    #[inline]
    fn drop(&mut self) {
        #[cfg(feature = "http")]
        let headers = self.headers.is_some();
        #[cfg(not(feature = "http"))]
        let headers = false;
        if headers || self.rest.is_some() || matches!(*self.id, Some(RequestId::String(_))) {
            self.free();
        }
    }
}

/// The parts of a request most calls do not have.
#[derive(Clone)]
struct Rest {
    session_id: Option<Arc<str>>,
    meta: Option<Box<RawValue>>,
}

impl RequestParts {
    /// The parts of the request `id`, its session's id and its `_meta` (copied only here,
    /// when there is one).
    #[inline]
    pub(crate) fn new(id: Option<RequestId>, session_id: Option<Arc<str>>, meta: Option<&RawValue>) -> Self {
        let rest = match (session_id, meta) {
            (None, None) => None,
            (session_id, meta) => Some(Box::new(Rest { session_id, meta: meta.map(RawValue::to_owned) })),
        };
        RequestParts {
            id: ManuallyDrop::new(id),
            #[cfg(feature = "http")]
            headers: ManuallyDrop::new(None),
            rest: ManuallyDrop::new(rest),
        }
    }

    /// Drop what these parts hold.
    #[cold]
    fn free(&mut self) {
        drop(std::mem::take(&mut *self.id));
        #[cfg(feature = "http")]
        drop(std::mem::take(&mut *self.headers));
        drop(std::mem::take(&mut *self.rest));
    }

    /// These parts, with the HTTP request's headers.
    #[cfg(feature = "http")]
    #[inline]
    pub(crate) fn with_headers(mut self, headers: Option<Arc<axum::http::HeaderMap>>) -> Self {
        drop(std::mem::replace(&mut *self.headers, headers));
        self
    }

    /// The request as a tool reads it, `client_name` from the call's peer.
    pub(crate) fn view<'a>(&'a self, client_name: Option<&'a str>) -> CallRequest<'a> {
        let rest = self.rest.as_deref();
        CallRequest {
            id: self.id.as_ref(),
            session_id: rest.and_then(|r| r.session_id.as_deref()),
            meta: rest.and_then(|r| r.meta.as_deref()),
            client_name,
            #[cfg(feature = "http")]
            headers: self.headers.as_deref(),
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
