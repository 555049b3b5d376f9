//! The Streamable HTTP exchange: [`HttpLink`] (started by the client, one task sending each
//! outbound message) and the POST, GET, resumption and re-initialisation methods of
//! [`Shared`]. The parent module's header has the table of what each answer means.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::protocol::param_headers::header_value;

use super::shared::*;
use super::sse::{Cursor, SseParser};
use super::tls::{connector, tls_error, tls_reason};
use crate::client::authorizer::{AuthFailure, Exchange, RefusedExchange};
use crate::client::conn::{Conn, Failure, Out, rpc_failure};
use crate::client::error::{ClientError, SharedError};
use crate::client::options::{ClientOptions, HttpServer};
use crate::protocol::ProtocolVersion;
use crate::sync::lock;

/// A Streamable HTTP connection.
pub(crate) struct HttpLink {
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl HttpLink {
    /// Start serving `conn` over HTTP.
    pub(crate) fn start(
        cfg: &HttpServer,
        conn: &Arc<Conn>,
        mut outbox: mpsc::UnboundedReceiver<Out>,
        _options: &ClientOptions,
    ) -> Result<HttpLink, ClientError> {
        let config = |problem: String, source: SharedError| ClientError::Config {
            server: conn.server.clone(),
            problem,
            source: Some(source),
        };
        let uri: Uri =
            cfg.url.parse().map_err(|e| config(format!("'{}' is not a URL", cfg.url), Arc::new(e)))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err(ClientError::UnsupportedScheme { server: conn.server.clone(), url: cfg.url.clone() });
        }
        let connector = connector(cfg).map_err(|(problem, e)| config(problem, Arc::new(e)))?;
        let configured = cfg.resolved_headers().map_err(|problem| ClientError::Config {
            server: conn.server.clone(),
            problem,
            source: None,
        })?;
        let mut headers = Vec::new();
        for (k, v) in &configured {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|e| config(format!("'{k}' is not a header name"), Arc::new(e)))?;
            let value = HeaderValue::from_str(v)
                .map_err(|e| config(format!("the value of header '{k}' is not valid"), Arc::new(e)))?;
            headers.push((name, value));
        }
        let authorizer = cfg.authorizer_ref();
        if authorizer.is_some() {
            headers.retain(|(name, _)| name != AUTHORIZATION);
        }
        let shared = Arc::new(Shared {
            uri,
            headers,
            timeout: cfg.timeout,
            // No idle pool: a kept-alive connection to a server that restarted fails the next
            // POST with "connection closed before message completed".
            client: HyperClient::builder(TokioExecutor::new()).pool_max_idle_per_host(0).build(connector),
            conn: Arc::clone(conn),
            session: Mutex::default(),
            version: Mutex::default(),
            init: Mutex::default(),
            listener: Mutex::default(),
            endpoint: cfg.url.clone(),
            authorizer,
            kind: cfg.kind,
            legacy: tokio::sync::OnceCell::new(),
        });
        let s = Arc::clone(&shared);
        let task = tokio::spawn(async move {
            while let Some(out) = outbox.recv().await {
                // Notifications and responses are delivered in order before anything sent
                // after them (`notifications/initialized` precedes the first list); a request
                // runs on its own, since its SSE stream may last as long as the call.
                if out.id.is_some() {
                    tokio::spawn(Arc::clone(&s).exchange(out));
                    continue;
                }
                Arc::clone(&s).exchange(out).await;
            }
        });
        Ok(HttpLink { shared, task })
    }

    /// Record the negotiated version for the `MCP-Protocol-Version` header.
    pub(crate) fn set_protocol_version(&self, version: &str) {
        *lock(&self.shared.version) = Some(version.to_owned());
    }

    /// End the session: `DELETE` with its id (a 405 or an error is fine).
    pub(crate) async fn close(&self) {
        self.task.abort();
        self.shared.stop_legacy();
        if let Some(l) = lock(&self.shared.listener).take() {
            l.abort();
        }
        let Some(session) = lock(&self.shared.session).take() else { return };
        let auth = self.shared.authorize(Method::DELETE).await.unwrap_or_default();
        let mut req = Request::builder().method(Method::DELETE).uri(self.shared.uri.clone());
        for (k, v) in self.shared.headers.iter().chain(&auth) {
            req = req.header(k, v);
        }
        req = req.header(SESSION, session);
        if let Some(v) = lock(&self.shared.version).clone() {
            req = req.header(VERSION, v);
        }
        if let Ok(req) = req.body(Full::new(Bytes::new())) {
            let _ = tokio::time::timeout(self.shared.timeout, self.shared.client.request(req)).await;
        }
    }
}

impl Drop for HttpLink {
    fn drop(&mut self) {
        self.task.abort();
        self.shared.stop_legacy();
        if let Some(l) = lock(&self.shared.listener).take() {
            l.abort();
        }
    }
}

impl Shared {
    /// A request to the endpoint with what every exchange carries: the configured headers
    /// (credentials), the session id and the protocol version once known.
    fn request(
        &self,
        method: Method,
        accept: &'static str,
        auth: &AuthHeaders,
    ) -> hyper::http::request::Builder {
        let mut req = Request::builder().method(method).uri(self.uri.clone()).header(ACCEPT, accept);
        for (k, v) in self.headers.iter().chain(auth) {
            req = req.header(k, v);
        }
        if let Some(s) = lock(&self.session).clone() {
            req = req.header(SESSION, s);
        }
        if let Some(v) = self.protocol_version() {
            req = req.header(VERSION, v);
        }
        req
    }

    fn post(&self, out: &Out, auth: &AuthHeaders) -> Result<Request<Full<Bytes>>, String> {
        let mut req = self
            .request(Method::POST, "application/json, text/event-stream", auth)
            .header(CONTENT_TYPE, "application/json");
        if let Some(m) = &out.method {
            req = req.header("mcp-method", m);
        }
        if let Some(n) = &out.name {
            req = req.header("mcp-name", header_value(n));
        }
        // A tool call's `Mcp-Param-*`, already encoded (`protocol::param_headers::mirror`).
        for (name, value) in &out.headers {
            req = req.header(name.as_str(), value.as_str());
        }
        req.body(Full::new(Bytes::from(out.json.clone()))).map_err(|e| e.to_string())
    }

    fn protocol_version(&self) -> Option<String> {
        lock(&self.version)
            .clone()
            .or_else(|| self.conn.version())
            .or_else(|| self.conn.is_modern().then(|| ProtocolVersion::V2026_07_28.as_str().to_owned()))
    }

    /// A `GET` of the endpoint's SSE stream: the session's standalone stream, or with
    /// `last_id` the resumption of a stream that broke.
    fn get(&self, last_id: Option<&str>, auth: &AuthHeaders) -> Result<Request<Full<Bytes>>, String> {
        let mut req = self.request(Method::GET, "text/event-stream", auth);
        if let Some(id) = last_id {
            req = req.header(LAST_EVENT_ID, header_value(id));
        }
        req.body(Full::new(Bytes::new())).map_err(|e| e.to_string())
    }

    /// POST `out`. A failure to connect (TLS included) is [`Failure::Gone`]: the request
    /// never left. One after the request may have been written is [`Failure::Lost`].
    async fn send(&self, out: &Out) -> Result<Response<Incoming>, Failure> {
        self.send_authorized(out).await.map(|(resp, _)| resp)
    }

    /// [`send`](Self::send), with the `Authorization` header the request carried.
    async fn send_authorized(&self, out: &Out) -> Result<(Response<Incoming>, Option<HeaderValue>), Failure> {
        let auth = self.authorize(Method::POST).await?;
        let req = self.post(out, &auth).map_err(Failure::Gone)?;
        let sent = req.headers().get(AUTHORIZATION).cloned();
        match tokio::time::timeout(self.timeout, self.client.request(req)).await {
            Ok(Ok(resp)) => Ok((resp, sent)),
            Ok(Err(e)) => {
                let reason = match tls_error(&e) {
                    Some(tls) => {
                        tracing::debug!(server = %self.conn.server, error = %error_chain(&e), "TLS failed");
                        format!("could not be reached at {}: {}", self.uri, tls_reason(tls, &self.uri))
                    }
                    None => format!("could not be reached at {}: {}", self.uri, error_chain(&e)),
                };
                Err(if e.is_connect() { Failure::Gone(reason) } else { Failure::Lost(reason) })
            }
            Err(_) => Err(Failure::Lost(format!(
                "did not answer at {} within {}s",
                self.uri,
                crate::tool::fmt_secs(self.timeout)
            ))),
        }
    }

    /// Ask the authorizer (if any) for the credential headers of a `method` request.
    async fn authorize(&self, method: Method) -> Result<AuthHeaders, Failure> {
        let Some(authorizer) = &self.authorizer else { return Ok(Vec::new()) };
        let outgoing = Exchange { endpoint: &self.endpoint, method: method.as_str() };
        let given = authorizer.authorization(outgoing).await.map_err(Failure::Auth)?;
        given
            .into_iter()
            .map(|(k, v)| {
                let bad = || {
                    Failure::Auth(AuthFailure::failed(format!(
                        "the authorizer gave a header '{k}' that is not valid"
                    )))
                };
                Ok((
                    HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad())?,
                    HeaderValue::from_str(&v).map_err(|_| bad())?,
                ))
            })
            .collect()
    }

    /// Tell the authorizer about a 401 or 403; true when the request should be sent again.
    async fn refused(&self, resp: &Response<Incoming>, sent: Option<HeaderValue>) -> Result<bool, Failure> {
        let Some(authorizer) = &self.authorizer else { return Ok(false) };
        let header = |name| resp.headers().get(name).and_then(|v: &HeaderValue| v.to_str().ok());
        let refusal = RefusedExchange {
            endpoint: &self.endpoint,
            status: resp.status().as_u16(),
            www_authenticate: header(WWW_AUTHENTICATE.as_str()),
            sent: sent.as_ref().and_then(|v| v.to_str().ok()),
            dpop_nonce: header("dpop-nonce"),
        };
        authorizer.refused(refusal).await.map_err(Failure::Auth)
    }

    /// One message over the 2024-11-05 transport, its refusal (if any) read as any answer is.
    async fn exchange_legacy(self: Arc<Self>, out: Out) {
        if let Some(resp) = Arc::clone(&self).legacy_exchange(&out).await {
            self.read(&out, resp).await;
        }
    }

    /// One message's exchange, re-initialising once if the session was lost.
    async fn exchange(self: Arc<Self>, out: Out) {
        if self.is_legacy() {
            return self.exchange_legacy(out).await;
        }
        // 2026-07-28 over HTTP has no client notifications: closing the request's SSE stream
        // (which happens once its caller gives up) is the cancellation.
        if self.conn.is_modern() && out.method.as_deref() == Some("notifications/cancelled") {
            return;
        }
        if out.method.as_deref() == Some("initialize") {
            *lock(&self.init) = Some(out.json.clone());
        }
        let mut retried = false;
        let mut auth_retries = 0;
        loop {
            let (resp, sent) = match self.send_authorized(&out).await {
                Ok(r) => r,
                Err(failure) => return self.gone(&out, failure),
            };
            let status = resp.status();
            if (status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN)
                && auth_retries < AUTH_RETRIES
            {
                match self.refused(&resp, sent).await {
                    Ok(true) => {
                        auth_retries += 1;
                        continue;
                    }
                    Ok(false) => {}
                    Err(failure) => return self.gone(&out, failure),
                }
            }
            if self.falls_back(&out, status) && self.fall_back(status).await {
                return self.exchange_legacy(out).await;
            }
            let had_session = lock(&self.session).is_some();
            let lost = had_session
                && out.method.as_deref() != Some("initialize")
                && (status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST);
            if lost && !retried {
                retried = true;
                *lock(&self.session) = None;
                // The server did not take the request under the lost session: whatever
                // ends the fresh start, the request was never run.
                if let Err(failure) = self.reinitialize().await {
                    return self.gone(&out, failure);
                }
                continue;
            }
            if let Some(s) = resp.headers().get(SESSION).and_then(|v| v.to_str().ok()) {
                *lock(&self.session) = Some(s.to_owned());
            }
            if out.method.as_deref() == Some("initialize")
                && status.is_success()
                && lock(&self.session).is_some()
            {
                self.open_listener().await;
            }
            return self.read(&out, resp).await;
        }
    }

    /// Open the session's GET stream and wait until the server has answered it, before the
    /// `initialize` answer is read: the server may send its first notifications (TS v1 sends
    /// `list_changed`) the moment `notifications/initialized` arrives, and a stream opened
    /// after that misses them.
    async fn open_listener(self: &Arc<Self>) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let listener = tokio::spawn(Arc::clone(self).listen(Some(tx)));
        if let Some(old) = lock(&self.listener).replace(listener) {
            old.abort();
        }
        let _ = tokio::time::timeout(self.timeout, rx).await;
    }

    /// The standalone `GET` stream of a legacy session, on which a server sends requests and
    /// notifications not tied to one of ours (`roots/list`, `elicitation/create`,
    /// `notifications/tools/list_changed`). Reopened after a second when it ends; given up
    /// on when the server does not offer one (405) or the session is gone.
    async fn listen(self: Arc<Self>, mut opened: Option<tokio::sync::oneshot::Sender<()>>) {
        let mut cursor = Cursor::default();
        loop {
            if lock(&self.session).is_none() {
                return;
            }
            let Ok(auth) = self.authorize(Method::GET).await else { return };
            let Ok(req) = self.get(cursor.last_id(), &auth) else { return };
            let resp = tokio::time::timeout(self.timeout, self.client.request(req)).await;
            if let Some(tx) = opened.take() {
                let _ = tx.send(());
            }
            let resp = match resp {
                Ok(Ok(r)) if r.status() == StatusCode::OK => r,
                _ => return,
            };
            let none = Out { json: String::new(), id: None, method: None, name: None, headers: Vec::new() };
            self.read_sse(&none, resp.into_body(), &mut cursor).await;
            if self.conn.closed_reason().is_some() {
                return;
            }
            tokio::time::sleep(self.retry_delay(&cursor)).await;
        }
    }

    /// A fresh `initialize` (the one first sent) and `notifications/initialized`. A failure
    /// is [`Failure::Gone`] (the request waiting for it was never run), or
    /// [`Failure::Http`] when the fresh start was refused with a status trying again will
    /// not change (401, 403, ...).
    async fn reinitialize(self: &Arc<Self>) -> Result<(), Failure> {
        let never_run = |f: Failure| Failure::Gone(failure_reason(f));
        let Some(init) = lock(&self.init).clone() else {
            return Err(Failure::Gone("lost its session".into()));
        };
        let out =
            Out { json: init, id: None, method: Some("initialize".into()), name: None, headers: Vec::new() };
        let resp = self.send(&out).await.map_err(never_run)?;
        if !resp.status().is_success() {
            return Err(match status_failure(resp.status()) {
                http @ Failure::Http(_) => http,
                _ => {
                    Failure::Gone(format!("refused a fresh initialize with HTTP {}", resp.status().as_u16()))
                }
            });
        }
        if let Some(s) = resp.headers().get(SESSION).and_then(|v| v.to_str().ok()) {
            *lock(&self.session) = Some(s.to_owned());
            self.open_listener().await;
        }
        // The answer repeats the first one; read and drop it.
        let _ = resp.into_body().collect().await;
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let out = Out {
            json: note.into(),
            id: None,
            method: Some("notifications/initialized".into()),
            name: None,
            headers: Vec::new(),
        };
        let _ = self.send(&out).await.map_err(never_run)?.into_body().collect().await;
        tracing::info!(server = %self.conn.server, "re-initialised after the server lost the session");
        Ok(())
    }

    async fn read(&self, out: &Out, resp: Response<Incoming>) {
        let status = resp.status();
        let sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/event-stream"));
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return;
        }
        if status.is_success() && sse {
            let mut cursor = Cursor::default();
            if self.read_sse(out, resp.into_body(), &mut cursor).await {
                self.resume(out, cursor).await;
            }
            return;
        }
        let body = match tokio::time::timeout(self.timeout, resp.into_body().collect()).await {
            Ok(Ok(b)) => b.to_bytes(),
            _ => {
                self.gone(out, Failure::Lost("broke off its answer".into()));
                return;
            }
        };
        let text = String::from_utf8_lossy(&body);
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return self.gone(out, Failure::Http(status.as_u16()));
        }
        if status.is_success() {
            self.conn.on_text(&text);
        } else if let Some(error) =
            serde_json::from_str::<Value>(&text).ok().and_then(|v| v.get("error").cloned())
        {
            // An error body answers the request this POST carried, whatever its id says
            // (TS v1 servers send `"id": null`). With 503 the server refused it for now (RFC
            // 9110: it cannot handle it at present): not run, and worth sending again.
            let failure = if status == StatusCode::SERVICE_UNAVAILABLE {
                Failure::Gone(SERVICE_UNAVAILABLE.into())
            } else {
                rpc_failure(&error)
            };
            if let Some(id) = out.id {
                self.conn.fail(id, failure);
            }
        } else {
            self.gone(out, status_failure(status));
        }
        if let Some(id) = out.id.filter(|id| self.conn.is_pending(*id))
            && status.is_success()
        {
            self.conn.fail(id, Failure::Lost("answered without a response to the request".into()));
        }
    }

    /// Read an SSE stream to its end, handing each message to the peer and recording event
    /// ids and `retry` in `cursor`. True when the stream ended while `out`'s request still
    /// waits for its answer; false once it has one (or its caller gave up).
    async fn read_sse(&self, out: &Out, mut body: Incoming, cursor: &mut Cursor) -> bool {
        let mut parser = SseParser::default();
        loop {
            // Wake up now and then to drop the stream of a request its caller abandoned.
            let frame = match tokio::time::timeout(Duration::from_millis(250), body.frame()).await {
                Err(_) => {
                    if out.id.is_some_and(|id| !self.conn.is_pending(id)) {
                        return false;
                    }
                    continue;
                }
                Ok(f) => f,
            };
            match frame {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        parser.feed(&data, |event| {
                            cursor.advance(&event);
                            if let Some(data) = event.data {
                                self.conn.on_text(&data);
                            }
                        });
                    }
                }
                Some(Err(_)) | None => break,
            }
            if out.id.is_some_and(|id| !self.conn.is_pending(id)) {
                return false;
            }
        }
        out.id.is_some_and(|id| self.conn.is_pending(id))
    }

    /// The wait before reopening a stream: its `retry`, or a second; never over the timeout.
    fn retry_delay(&self, cursor: &Cursor) -> Duration {
        cursor.retry.unwrap_or(DEFAULT_RETRY).min(self.timeout)
    }

    /// Resume the SSE stream of `out`'s request, which ended before the answer, with `GET`
    /// and `Last-Event-ID` (see the module doc); fail the request when that cannot be done.
    async fn resume(&self, out: &Out, mut cursor: Cursor) {
        let Some(id) = out.id else { return };
        let mut fruitless = 0;
        let reason = loop {
            let Some(last) = cursor.last_id().map(str::to_owned) else { break STREAM_CLOSED.to_owned() };
            if self.conn.is_modern() {
                break STREAM_CLOSED.to_owned();
            }
            if fruitless == RESUME_ATTEMPTS {
                break format!(
                    "{STREAM_CLOSED}, and {RESUME_ATTEMPTS} attempts to resume it brought nothing"
                );
            }
            fruitless += 1;
            if !self.wait_while_pending(id, self.retry_delay(&cursor)).await {
                return;
            }
            let Ok(auth) = self.authorize(Method::GET).await else { break STREAM_CLOSED.to_owned() };
            let Ok(req) = self.get(Some(&last), &auth) else { break STREAM_CLOSED.to_owned() };
            tracing::debug!(server = %self.conn.server, id, last_event_id = %last, "resuming an SSE stream");
            let resp = match tokio::time::timeout(self.timeout, self.client.request(req)).await {
                Ok(Ok(resp)) => resp,
                // No connection (or no answer) yet: the network may come back; try again.
                Ok(Err(_)) | Err(_) => continue,
            };
            let sse = resp
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|ct| ct.starts_with("text/event-stream"));
            if resp.status() != StatusCode::OK || !sse {
                // 405: the server keeps no streams to resume; 404 or 400: the session is gone.
                tracing::debug!(server = %self.conn.server, status = resp.status().as_u16(), "the SSE stream cannot be resumed");
                break STREAM_CLOSED.to_owned();
            }
            if !self.read_sse(out, resp.into_body(), &mut cursor).await {
                return;
            }
            if cursor.last_id() != Some(last.as_str()) {
                fruitless = 0;
            }
        };
        if self.conn.is_pending(id) {
            self.conn.fail(id, Failure::Lost(reason));
        }
    }

    /// Sleep `delay`, waking now and then; false as soon as request `id` no longer waits.
    async fn wait_while_pending(&self, id: i64, delay: Duration) -> bool {
        let until = tokio::time::Instant::now() + delay;
        loop {
            if !self.conn.is_pending(id) {
                return false;
            }
            let now = tokio::time::Instant::now();
            if now >= until {
                return true;
            }
            tokio::time::sleep((until - now).min(Duration::from_millis(250))).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_header_values_are_base64_encoded() {
        assert_eq!(header_value("get_weather"), "get_weather");
        assert_eq!(header_value("file:///a b.txt"), "file:///a b.txt");
        assert_eq!(header_value("café"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
        assert_eq!(header_value("a\nbc"), "=?base64?YQpiYw==?=");
    }
}
