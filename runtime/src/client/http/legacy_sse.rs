//! The 2024-11-05 HTTP+SSE transport, on the same hyper client, TLS, headers and SSE parser as
//! Streamable HTTP: chosen with [`HttpTransportKind::LegacySse`], or reached by the spec's
//! fallback from [`HttpTransportKind::Auto`] when the `initialize` POST is answered 400, 404
//! or 405 (2025-03-26, "Backwards Compatibility").
//!
//! - Before the first message, the client sends `GET` to the URL (`Accept: text/event-stream`,
//!   the configured headers and bearer) and waits, up to [`HttpServer::timeout`](super::super::HttpServer::timeout),
//!   for the stream's first `endpoint` event. Its data is the URL to post messages to,
//!   resolved against the stream's URL; one on another origin (scheme, host, port) is refused,
//!   since every POST carries this connection's credentials.
//! - Each message is one `POST` to that endpoint (the configured headers, no session or version
//!   header: the session lives in the endpoint's URL). A 2xx means accepted; the answer comes
//!   on the stream. Any other status is read as Streamable HTTP reads it (401/403 refused
//!   credentials, a JSON-RPC error body, another status).
//! - Every `message` event (or event without a type) on the stream is a message from the
//!   server; events of other types are ignored.
//! - The stream is the connection: when it ends or breaks, the connection is closed with
//!   `closed its SSE stream at <url>`. Every request in flight then fails as a lost
//!   exchange (its outcome unknown: a tool call that must not be re-run fails as
//!   [`RemoteError::OutcomeUnknown`](crate::tool::RemoteError::OutcomeUnknown), others as
//!   unavailable), and so does every later one. The transport does not reopen the stream:
//!   a new stream is a new session, which would need a new handshake.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode, Uri};
use tokio::sync::oneshot;

use super::shared::{Shared, Stream, error_chain};
use super::sse::SseParser;
use super::tls::{tls_error, tls_reason};
use crate::client::conn::{Failure, Out};
use crate::client::options::HttpTransportKind;
use crate::protocol::methods;
use crate::sync::lock;

/// Why the SSE stream could not be opened: `sse` when the server did answer with one (it
/// is a 2024-11-05 server that failed), or not (it is none).
struct Refusal {
    sse: bool,
    failure: Failure,
}

impl Shared {
    /// Whether messages go over the 2024-11-05 transport: configured so, or fallen back to.
    pub(super) fn is_legacy(&self) -> bool {
        self.kind == HttpTransportKind::LegacySse || self.legacy.initialized()
    }

    /// Whether `status`, the answer to `out`'s Streamable HTTP POST, is the spec's signal to
    /// try the 2024-11-05 transport: 400, 404 or 405 to the first `initialize` of an `Auto`
    /// connection (not a replayed one, which has a session).
    pub(super) fn falls_back(&self, out: &Out, status: StatusCode) -> bool {
        self.kind == HttpTransportKind::Auto
            && out.method.as_deref() == Some(methods::INITIALIZE)
            && lock(&self.session).is_none()
            && matches!(status.as_u16(), 400 | 404 | 405)
    }

    /// Stop reading the SSE stream, if one is open.
    pub(super) fn stop_legacy(&self) {
        if let Some(Ok(stream)) = self.legacy.get() {
            stream.reader.abort();
        }
    }

    /// Try the 2024-11-05 transport after the Streamable HTTP POST of `initialize` was
    /// answered `status`: true when its SSE stream is open (or failed after the server
    /// answered with one: the failure is kept for the exchange to report). False when the GET
    /// got no SSE stream: not a 2024-11-05 server either, and the POST's answer is read as
    /// Streamable HTTP reads it (`answered HTTP 404`, a JSON-RPC error body).
    pub(super) async fn fall_back(self: &Arc<Self>, status: StatusCode) -> bool {
        tracing::info!(server = %self.conn.server, url = %self.uri, status = status.as_u16(), "trying the 2024-11-05 HTTP+SSE transport");
        let opened = match Arc::clone(self).open().await {
            Ok(stream) => Ok(stream),
            Err(Refusal { sse: true, failure }) => Err(failure),
            Err(Refusal { sse: false, failure }) => {
                tracing::debug!(server = %self.conn.server, ?failure, "no 2024-11-05 SSE stream either");
                return false;
            }
        };
        // Only the first message falls back, so the cell is empty; were it not, this
        // stream would be the one to stop.
        use tokio::sync::SetError::{AlreadyInitializedError, InitializingError};
        if let Err(AlreadyInitializedError(Ok(stream)) | InitializingError(Ok(stream))) =
            self.legacy.set(opened)
        {
            stream.reader.abort();
        }
        true
    }

    /// Send `out` over the 2024-11-05 transport, opening its SSE stream first when this is
    /// the first message. A refusal that is not "accepted" comes back for the caller to read
    /// as it reads any answer (`Shared::read`); a message that could not be sent is failed here.
    pub(super) async fn legacy_exchange(self: Arc<Self>, out: &Out) -> Option<Response<Incoming>> {
        let opened = self
            .legacy
            .get_or_init(|| async { Arc::clone(&self).open().await.map_err(|refusal| refusal.failure) })
            .await;
        let endpoint = match opened {
            Ok(stream) => stream.endpoint.clone(),
            Err(failure) => {
                self.gone(out, failure.clone());
                return None;
            }
        };
        let req =
            self.legacy_request(Method::POST, endpoint.clone()).header(CONTENT_TYPE, "application/json");
        let req = match req.body(Full::new(Bytes::from(out.json.clone()))) {
            Ok(req) => req,
            Err(e) => {
                self.gone(out, Failure::Gone(e.to_string()));
                return None;
            }
        };
        let resp = match tokio::time::timeout(self.timeout, self.client.request(req)).await {
            Ok(Ok(resp)) => resp,
            Ok(Err(e)) => {
                let reason = format!("could not be reached at {endpoint}: {}", unreachable(&e, &endpoint));
                let failure = if e.is_connect() { Failure::Gone(reason) } else { Failure::Lost(reason) };
                self.gone(out, failure);
                return None;
            }
            Err(_) => {
                let secs = crate::tool::fmt_secs(self.timeout);
                self.gone(out, Failure::Lost(format!("did not answer at {endpoint} within {secs}s")));
                return None;
            }
        };
        if resp.status().is_success() {
            // "Accepted": the answer comes on the stream.
            let _ = tokio::time::timeout(self.timeout, resp.into_body().collect()).await;
            return None;
        }
        Some(resp)
    }

    /// A request of this transport (the stream's `GET`, a message's `POST`) with what every
    /// one carries: the configured headers and bearer token, as Streamable HTTP sends them.
    fn legacy_request(&self, method: Method, uri: Uri) -> hyper::http::request::Builder {
        let mut req = Request::builder().method(method).uri(uri);
        for (k, v) in &self.headers {
            req = req.header(k, v);
        }
        req
    }

    /// `GET` the SSE stream and wait for its `endpoint` event.
    async fn open(self: Arc<Self>) -> Result<Stream, Refusal> {
        let uri = self.uri.clone();
        let no_sse = |failure| Refusal { sse: false, failure };
        let req = self.legacy_request(Method::GET, uri.clone()).header(ACCEPT, "text/event-stream");
        let req = req.body(Full::new(Bytes::new())).map_err(|e| no_sse(Failure::Gone(e.to_string())))?;
        let secs = crate::tool::fmt_secs(self.timeout);
        let resp = match tokio::time::timeout(self.timeout, self.client.request(req)).await {
            Ok(Ok(resp)) => resp,
            Ok(Err(e)) => {
                let reason = format!("could not be reached at {uri}: {}", unreachable(&e, &uri));
                return Err(no_sse(Failure::Gone(reason)));
            }
            Err(_) => {
                return Err(no_sse(Failure::Gone(format!("did not answer the GET at {uri} within {secs}s"))));
            }
        };
        let status = resp.status();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(no_sse(Failure::Http(status.as_u16())));
        }
        if status != StatusCode::OK {
            let reason =
                format!("answered the GET for its SSE stream at {uri} with HTTP {}", status.as_u16());
            return Err(no_sse(Failure::Gone(reason)));
        }
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("no content type")
            .to_owned();
        if !content_type.starts_with("text/event-stream") {
            return Err(no_sse(Failure::Gone(format!(
                "answered the GET for its SSE stream at {uri} with '{content_type}', not an SSE stream"
            ))));
        }
        let (tx, rx) = oneshot::channel();
        let reader = tokio::spawn(Arc::clone(&self).read_stream(resp.into_body(), tx));
        let endpoint = match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(found)) => found,
            Ok(Err(_)) => {
                Err(Failure::Gone(format!("closed its SSE stream at {uri} before the 'endpoint' event")))
            }
            Err(_) => Err(Failure::Gone(format!(
                "sent no 'endpoint' event on its SSE stream at {uri} within {secs}s"
            ))),
        };
        match endpoint {
            Ok(endpoint) => {
                tracing::debug!(server = %self.conn.server, %endpoint, "the SSE stream is open");
                Ok(Stream { endpoint, reader })
            }
            Err(failure) => {
                reader.abort();
                Err(Refusal { sse: true, failure })
            }
        }
    }

    /// Read the SSE stream to its end: the `endpoint` event goes to `endpoint`, each message
    /// to the client; its end closes the connection.
    async fn read_stream(
        self: Arc<Self>,
        mut body: Incoming,
        endpoint: oneshot::Sender<Result<Uri, Failure>>,
    ) {
        let mut parser = SseParser::default();
        let mut endpoint = Some(endpoint);
        while let Some(Ok(frame)) = body.frame().await {
            let Ok(data) = frame.into_data() else { continue };
            parser.feed(&data, |event| match event.event.as_deref() {
                Some("endpoint") => {
                    if let Some(tx) = endpoint.take() {
                        let _ = tx.send(resolve(&self.uri, event.data.as_deref().unwrap_or("")));
                    }
                }
                None | Some("message") => {
                    if let Some(data) = event.data {
                        self.conn.on_text(&data);
                    }
                }
                Some(other) => {
                    tracing::debug!(server = %self.conn.server, event = other, "an SSE event skipped")
                }
            });
        }
        // Before the endpoint, the opener reports it (the sender dropped); after, the
        // connection is over.
        if endpoint.is_none() {
            tracing::info!(server = %self.conn.server, url = %self.uri, "the SSE stream ended");
            self.conn.shut(format!("closed its SSE stream at {}", self.uri));
        }
    }
}

/// The `endpoint` event's URL, resolved against the stream's `base`; refused when it is not
/// a URL or names another origin.
fn resolve(base: &Uri, endpoint: &str) -> Result<Uri, Failure> {
    let bad = || Failure::Gone(format!("sent an 'endpoint' event that is not a URL: '{endpoint}'"));
    let endpoint = endpoint.trim();
    let absolute = if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        endpoint.parse::<Uri>().map_err(|_| bad())?
    } else {
        let path = if endpoint.starts_with('/') {
            endpoint.to_owned()
        } else {
            // A relative path: beside the stream's last path segment.
            let dir = base.path().rsplit_once('/').map_or("", |(dir, _)| dir);
            format!("{dir}/{endpoint}")
        };
        let scheme = base.scheme_str().unwrap_or("http");
        let authority = base.authority().map_or("", |a| a.as_str());
        format!("{scheme}://{authority}{path}").parse::<Uri>().map_err(|_| bad())?
    };
    let same_origin = absolute.scheme() == base.scheme()
        && absolute.host().map(str::to_ascii_lowercase) == base.host().map(str::to_ascii_lowercase)
        && absolute.port_u16() == base.port_u16();
    if !same_origin {
        return Err(Failure::Gone(format!(
            "sent an 'endpoint' event on another origin ({absolute}), refused: messages there would carry this connection's credentials"
        )));
    }
    Ok(absolute)
}

/// Why a connection failed, in our words for TLS.
fn unreachable(e: &hyper_util::client::legacy::Error, uri: &Uri) -> String {
    match tls_error(e) {
        Some(tls) => tls_reason(tls, uri),
        None => error_chain(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(base: &str, endpoint: &str) -> Result<String, Failure> {
        resolve(&base.parse().unwrap(), endpoint).map(|u| u.to_string())
    }

    #[test]
    fn endpoints_resolve_against_the_stream_and_stay_on_its_origin() {
        let base = "http://127.0.0.1:8000/sse";
        assert_eq!(
            resolved(base, "/messages/?session_id=ab").unwrap(),
            "http://127.0.0.1:8000/messages/?session_id=ab"
        );
        assert_eq!(
            resolved("http://h:1/a/sse", "message?sessionId=1").unwrap(),
            "http://h:1/a/message?sessionId=1"
        );
        assert_eq!(resolved(base, "http://127.0.0.1:8000/m?x=1").unwrap(), "http://127.0.0.1:8000/m?x=1");
        assert_eq!(
            resolved(base, "http://evil.example:8000/m"),
            Err(Failure::Gone(
                "sent an 'endpoint' event on another origin (http://evil.example:8000/m), refused: messages there would carry this connection's credentials".into()
            ))
        );
        assert!(resolved(base, "https://127.0.0.1:8000/m").is_err());
        assert_eq!(
            resolved(base, "/a b"),
            Err(Failure::Gone("sent an 'endpoint' event that is not a URL: '/a b'".into()))
        );
    }
}
