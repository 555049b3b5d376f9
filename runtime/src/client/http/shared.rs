//! What one HTTP connection to a server holds ([`Shared`]: the endpoint, the configured
//! headers, the session and version, the authorizer, the 2024-11-05 [`Stream`] once open),
//! with the constants and failure helpers both of its transports use. The Streamable HTTP
//! exchange (`link.rs`) and the 2024-11-05 HTTP+SSE one (`legacy_sse.rs`) each add their
//! methods to it; the legacy one never calls back into the streamable one, which hands it a
//! message to send when the server speaks only the old transport.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use tokio::task::JoinHandle;

use crate::client::authorizer::Authorizer;
use crate::client::conn::{Conn, Failure, Out};
use crate::client::options::HttpTransportKind;

pub(super) const SESSION: &str = "mcp-session-id";
pub(super) const VERSION: &str = "mcp-protocol-version";
pub(super) const LAST_EVENT_ID: &str = "last-event-id";
/// How many times one request is sent again after its [`Authorizer`] renewed credentials.
pub(super) const AUTH_RETRIES: u32 = 2;

/// How long to wait before resuming a stream that gave no `retry`.
pub(super) const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// How many resumptions in a row may bring no new event before a request fails.
pub(super) const RESUME_ATTEMPTS: u32 = 5;
/// Why a request whose stream ended without its answer fails.
pub(super) const STREAM_CLOSED: &str = "closed the SSE stream before answering";

pub(super) struct Shared {
    pub(super) uri: Uri,
    pub(super) headers: Vec<(HeaderName, HeaderValue)>,
    pub(super) timeout: Duration,
    pub(super) client: HyperClient<HttpsConnector<HttpConnector>, Full<Bytes>>,
    pub(super) conn: Arc<Conn>,
    pub(super) session: Mutex<Option<String>>,
    pub(super) version: Mutex<Option<String>>,
    /// The `initialize` request as first sent, replayed when the session is lost.
    pub(super) init: Mutex<Option<String>>,
    /// The standalone GET stream of a legacy session.
    pub(super) listener: Mutex<Option<JoinHandle<()>>>,
    /// The endpoint as configured, for the authorizer.
    pub(super) endpoint: String,
    /// What supplies the `Authorization` header (and any other credential headers).
    pub(super) authorizer: Option<Arc<dyn Authorizer>>,
    /// Streamable HTTP, the 2024-11-05 HTTP+SSE transport, or the first falling back to the second.
    pub(super) kind: HttpTransportKind,
    /// The 2024-11-05 transport's SSE stream, once opened (or why it could not be).
    pub(super) legacy: tokio::sync::OnceCell<Result<Stream, Failure>>,
}

/// An open 2024-11-05 SSE stream: where to post, and the task reading the stream.
pub(super) struct Stream {
    pub(super) endpoint: Uri,
    pub(super) reader: JoinHandle<()>,
}

/// The headers an [`Authorizer`] gave for one request.
pub(super) type AuthHeaders = Vec<(HeaderName, HeaderValue)>;

impl Shared {
    pub(super) fn gone(&self, out: &Out, failure: Failure) {
        match out.id {
            Some(id) => self.conn.fail(id, failure),
            None => {
                tracing::warn!(server = %self.conn.server, "a message could not be delivered: {failure:?}")
            }
        }
    }
}

/// The reason a request answered 503 with a JSON-RPC error fails with: `answered HTTP 503
/// (service unavailable)`.
pub(super) const SERVICE_UNAVAILABLE: &str = "answered HTTP 503 (service unavailable)";

/// A status without a JSON-RPC error body: a 4xx other than 408 and 429 is one trying
/// again will not change ([`Failure::Http`]); anything else (5xx, 408, 429) leaves the
/// request's fate open ([`Failure::Lost`]).
pub(super) fn status_failure(status: StatusCode) -> Failure {
    let code = status.as_u16();
    if status.is_client_error() && code != 408 && code != 429 {
        Failure::Http(code)
    } else {
        Failure::Lost(format!("answered HTTP {code}"))
    }
}

/// The reason a failed exchange gives, for a caller that only reports it.
pub(super) fn failure_reason(failure: Failure) -> String {
    match failure {
        Failure::Gone(reason) | Failure::Lost(reason) => reason,
        Failure::Http(status) => format!("answered HTTP {status}"),
        Failure::Auth(f) => f.reason,
        other => format!("{other:?}"),
    }
}

/// An error and its sources, joined: hyper's top-level message alone says little.
pub(super) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}
