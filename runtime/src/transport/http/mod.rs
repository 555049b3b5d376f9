//! Streamable HTTP at `/mcp`, on axum: framing, sessions and who may call; no tool logic.
//!
//! | request | answer |
//! | --- | --- |
//! | any path but `/mcp` | 404 |
//! | a bad `Host`, a foreign `Origin` | 403, before anything else |
//! | no or a wrong bearer token | 401 with `WWW-Authenticate: Bearer` |
//! | POST whose `Accept` does not name both `application/json` and `text/event-stream` | 406 |
//! | POST that is not `application/json` | 415 |
//! | a body over the limit | 413 |
//! | an unsupported `MCP-Protocol-Version` | 400 |
//! | POST of a notification or a response | 202, no body |
//! | POST of a request | 200: JSON, or SSE when progress must stream before the result |
//! | legacy: `initialize` | a new session, its id in `Mcp-Session-Id` |
//! | legacy: no `Mcp-Session-Id` | 400; an unknown or ended one: 404 |
//! | modern (2026-07-28): `Mcp-Method`/`Mcp-Name` missing or not matching the body | 400, -32020 |
//! | modern: an unknown method | 404, -32601 |
//! | GET | 405: this server sends nothing unasked over HTTP |
//! | DELETE with a session id | ends the session (204); unknown: 404 |
//!
//! Legacy sessions have an idle TTL and a cap. In stateless mode (for replicas behind a
//! load balancer) no session ids are issued: each legacy request is served by a fresh
//! session, brought up with the version its `MCP-Protocol-Version` header names.

mod guard;
mod peek;
mod sessions;
mod sse;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::mpsc;

use crate::protocol::{Era, Outbound, OutboundKind, ProtocolVersion};
use crate::serve::BearerToken;
use crate::server::{Server, Session, Sink};

pub(crate) use guard::Guard;
use peek::{Shape, peek};
use sessions::Sessions;

/// Default cap on a POST body: 4 MiB.
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// Default idle time after which a legacy session ends: 10 minutes.
pub const DEFAULT_SESSION_IDLE_TTL: Duration = Duration::from_secs(600);
/// Default cap on live legacy sessions.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// JSON-RPC code for a request whose `Mcp-Method`/`Mcp-Name` headers do not match its body.
pub const HEADER_MISMATCH: i64 = -32020;

/// Who may call the endpoint.
#[derive(Debug, Clone)]
pub enum Auth {
    /// A bearer token the caller must present.
    Bearer(BearerToken),
    /// No authentication: only for a server that something else already fences off. Asked
    /// for by name, never a default.
    None,
}

/// How the HTTP endpoint behaves; build with [`HttpConfig::builder`].
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub(crate) guard: Guard,
    pub(crate) stateless: bool,
    pub(crate) max_body: usize,
    pub(crate) session_idle_ttl: Duration,
    pub(crate) max_sessions: usize,
}

impl HttpConfig {
    /// Start with `auth` (there is no default: say which).
    pub fn builder(auth: Auth) -> HttpConfigBuilder {
        let token = match auth {
            Auth::Bearer(t) => Some(t),
            Auth::None => None,
        };
        HttpConfigBuilder {
            config: HttpConfig {
                guard: Guard { token, ..Guard::default() },
                stateless: false,
                max_body: DEFAULT_MAX_BODY,
                session_idle_ttl: DEFAULT_SESSION_IDLE_TTL,
                max_sessions: DEFAULT_MAX_SESSIONS,
            },
        }
    }
}

/// Builds an [`HttpConfig`].
#[derive(Debug, Clone)]
pub struct HttpConfigBuilder {
    config: HttpConfig,
}

impl HttpConfigBuilder {
    /// Accept this `Host` (e.g. `tools.internal` or `tools.internal:8443`) besides the
    /// loopback names.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.config.guard.allowed_hosts.push(host.into());
        self
    }

    /// Accept requests carrying this `Origin` (e.g. `https://app.example`) besides loopback ones.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.config.guard.allowed_origins.push(origin.into());
        self
    }

    /// Issue no session ids; serve every request on its own (for many replicas behind a
    /// load balancer).
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.config.stateless = stateless;
        self
    }

    /// Refuse bodies over `bytes` with 413.
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.config.max_body = bytes;
        self
    }

    /// End legacy sessions idle this long.
    pub fn session_idle_ttl(mut self, ttl: Duration) -> Self {
        self.config.session_idle_ttl = ttl;
        self
    }

    /// Refuse new legacy sessions (503) beyond this many.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.config.max_sessions = n.max(1);
        self
    }

    /// Finish.
    pub fn build(self) -> HttpConfig {
        self.config
    }
}

struct Endpoint {
    server: Server,
    config: HttpConfig,
    sessions: Sessions,
    /// Serves modern (stateless, `_meta`-carrying) requests; it holds no handshake state.
    modern: Session,
}

/// The MCP endpoint as an axum [`Router`]: `/mcp` and nothing else. Mount it into an
/// existing app with `Router::merge`, or serve it on its own.
///
/// ```
/// use toolwire::{Auth, HttpConfig, Server, ServerOptions, mcp_router, tool, tools};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let server = Server::new(tools![hello].unwrap(), ServerOptions::builder("demo", "0.1.0").build());
/// let app = axum::Router::new()
///     .route("/healthz", axum::routing::get(|| async { "ok" }))
///     .merge(mcp_router(server, HttpConfig::builder(Auth::None).stateless(true).build()));
/// # let _ = app;
/// ```
pub fn mcp_router(server: Server, config: HttpConfig) -> Router {
    let sessions = Sessions::new(config.session_idle_ttl, config.max_sessions);
    let modern = server.session();
    let endpoint = Arc::new(Endpoint { server, config, sessions, modern });
    let sweeper = Arc::downgrade(&endpoint);
    let period = endpoint.config.session_idle_ttl.max(Duration::from_secs(1));
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        // Idle sessions go even when no new one is made; the task ends with the endpoint.
        handle.spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                match sweeper.upgrade() {
                    Some(e) => e.sessions.sweep(),
                    None => break,
                }
            }
        });
    }
    Router::new()
        .route("/mcp", axum::routing::any(handle))
        .fallback(|| async {
            error_response(StatusCode::NOT_FOUND, None, "not found: the MCP endpoint is /mcp")
        })
        .with_state(endpoint)
}

async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    if let Err(refusal) = endpoint.config.guard.check(request.headers()) {
        let mut response = error_response(refusal.status, None, refusal.message);
        if refusal.www_authenticate {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        return response;
    }
    let method = request.method().clone();
    if method == Method::POST {
        post(&endpoint, request).await
    } else if method == Method::DELETE {
        delete(&endpoint, request.headers())
    } else {
        let mut response = error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            None,
            "method not allowed: this endpoint takes POST (and DELETE to end a session)",
        );
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        response
    }
}

fn delete(endpoint: &Endpoint, headers: &HeaderMap) -> Response {
    match session_id(headers) {
        None => error_response(
            StatusCode::BAD_REQUEST,
            None,
            "bad request: DELETE needs an Mcp-Session-Id header",
        ),
        Some(id) if endpoint.sessions.remove(id) => StatusCode::NO_CONTENT.into_response(),
        Some(_) => error_response(
            StatusCode::NOT_FOUND,
            None,
            "not found: no such session (it ended or never existed)",
        ),
    }
}

async fn post(endpoint: &Endpoint, request: Request) -> Response {
    let headers = request.headers().clone();
    if !accepts_both(&headers) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            "not acceptable: the Accept header must name both application/json and text/event-stream",
        );
    }
    let is_json = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if !is_json {
        return error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            "unsupported media type: POST a JSON body (application/json)",
        );
    }
    let limit = endpoint.config.max_body;
    let body: Bytes = match axum::body::to_bytes(request.into_body(), limit).await {
        Ok(b) => b,
        Err(_) => {
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                &format!("payload too large: the body is over the {limit}-byte limit"),
            );
        }
    };
    let header_version =
        match headers.get("mcp-protocol-version").map(|v| v.to_str().ok().and_then(ProtocolVersion::parse)) {
            None => None,
            Some(Some(v)) => Some(v),
            Some(None) => {
                let supported: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
                return error_response(
                    StatusCode::BAD_REQUEST,
                    Some(crate::protocol::code::UNSUPPORTED_PROTOCOL_VERSION),
                    &format!(
                        "bad request: unsupported MCP-Protocol-Version; supported: {}",
                        supported.join(", ")
                    ),
                );
            }
        };
    let Ok(text) = std::str::from_utf8(&body) else {
        return error_response(
            StatusCode::BAD_REQUEST,
            Some(crate::protocol::code::PARSE_ERROR),
            "parse error: the body is not UTF-8",
        );
    };
    let shape = peek(text);

    // Which session serves it.
    let mut new_session_id = None;
    let session = if let Some(id) = session_id(&headers) {
        match endpoint.sessions.get(id) {
            Some(s) => s,
            None => {
                return error_response(
                    StatusCode::NOT_FOUND,
                    None,
                    "not found: no such session (it ended or never existed); send initialize again",
                );
            }
        }
    } else if matches!(&shape, Shape::Request { method, .. } if method == "initialize") {
        if endpoint.config.stateless {
            endpoint.server.session()
        } else {
            match endpoint.sessions.create(&endpoint.server) {
                Ok((id, s)) => {
                    new_session_id = Some(id);
                    s
                }
                Err(full) => {
                    return error_response(
                        StatusCode::SERVICE_UNAVAILABLE,
                        None,
                        &format!(
                            "service unavailable: {} sessions are open, the most this server keeps",
                            full.cap
                        ),
                    );
                }
            }
        }
    } else if is_modern(&shape, header_version) {
        if let Err(mismatch) = check_modern_headers(&headers, &shape) {
            return error_response(StatusCode::BAD_REQUEST, Some(HEADER_MISMATCH), &mismatch);
        }
        endpoint.modern.clone()
    } else if endpoint.config.stateless {
        let session = endpoint.server.session();
        bring_up(&session, header_version.unwrap_or(ProtocolVersion::LATEST_LEGACY));
        session
    } else if matches!(shape, Shape::Unreadable) {
        endpoint.modern.clone()
    } else {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            "bad request: missing Mcp-Session-Id header; send initialize first",
        );
    };

    let expects_reply = match &shape {
        Shape::Request { .. } | Shape::Unreadable => true,
        Shape::Batch { has_requests } => *has_requests,
        Shape::NoReply => false,
    };
    let (tx, rx) = mpsc::unbounded_channel::<Outbound>();
    let sink: Arc<dyn Sink> = Arc::new(move |m: Outbound| {
        let _ = tx.send(m);
    });
    session.handle(text, &sink);
    drop(sink);
    if !expects_reply {
        return StatusCode::ACCEPTED.into_response();
    }
    let modern = is_modern(&shape, header_version);
    respond(rx, new_session_id, modern, matches!(shape, Shape::Unreadable), endpoint).await
}

/// Turn what the session sends into the HTTP answer: JSON when the first thing is the
/// response, SSE when notifications come first.
async fn respond(
    mut rx: mpsc::UnboundedReceiver<Outbound>,
    new_session_id: Option<String>,
    modern: bool,
    unreadable: bool,
    endpoint: &Endpoint,
) -> Response {
    let Some(first) = rx.recv().await else {
        // The call was cancelled (notifications/cancelled) or abandoned: nothing to send.
        return StatusCode::ACCEPTED.into_response();
    };
    if first.kind() != OutboundKind::Response {
        return with_session_id(sse::response(first, rx), new_session_id.as_deref());
    }
    let text = first.into_string();
    let status = status_for(&text, modern, unreadable);
    let failed = status != StatusCode::OK || error_code(&text).is_some();
    let mut response = (status, text).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    match new_session_id {
        // A failed initialize leaves no session behind, and names none.
        Some(id) if failed => {
            endpoint.sessions.remove(&id);
            response
        }
        id => with_session_id(response, id.as_deref()),
    }
}

fn with_session_id(mut response: Response, id: Option<&str>) -> Response {
    if let Some(v) = id.and_then(|id| HeaderValue::from_str(id).ok()) {
        response.headers_mut().insert("mcp-session-id", v);
    }
    response
}

/// The HTTP status for a JSON-RPC response: 400 for a parse error, 404 for an unknown
/// method in the modern era, 200 otherwise.
fn status_for(text: &str, modern: bool, unreadable: bool) -> StatusCode {
    let code = error_code(text);
    match code {
        Some(c)
            if c == crate::protocol::code::PARSE_ERROR
                || (unreadable && c == crate::protocol::code::INVALID_REQUEST) =>
        {
            StatusCode::BAD_REQUEST
        }
        Some(c) if modern && c == crate::protocol::code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        Some(c) if modern && c == crate::protocol::code::UNSUPPORTED_PROTOCOL_VERSION => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

fn error_code(text: &str) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct E {
        error: Option<C>,
    }
    #[derive(serde::Deserialize)]
    struct C {
        code: i64,
    }
    serde_json::from_str::<E>(text).ok()?.error.map(|c| c.code)
}

/// A request in the modern era: its `_meta` or its header says 2026-07-28.
fn is_modern(shape: &Shape<'_>, header_version: Option<ProtocolVersion>) -> bool {
    let meta_modern = match shape {
        Shape::Request { meta_version: Some(v), .. } => {
            ProtocolVersion::parse(v).is_some_and(|v| v.era() == Era::Modern)
        }
        _ => false,
    };
    meta_modern || header_version.is_some_and(|v| v.era() == Era::Modern)
}

/// The modern era routes on headers, so they must say what the body says.
fn check_modern_headers(headers: &HeaderMap, shape: &Shape<'_>) -> Result<(), String> {
    let Shape::Request { method, name, .. } = shape else { return Ok(()) };
    let header_method = headers.get("mcp-method").and_then(|v| v.to_str().ok());
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
        let header_name = headers.get("mcp-name").and_then(|v| v.to_str().ok());
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

/// Bring a fresh stateless session through the legacy handshake at `version`, so a request
/// that arrives without one (stateless mode) is served as if it had.
fn bring_up(session: &Session, version: ProtocolVersion) {
    let discard: Arc<dyn Sink> = Arc::new(|_m: Outbound| {});
    let init = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"stateless-http\",\"version\":\"0\"}}}}}}",
        version.as_str()
    );
    session.handle(&init, &discard);
    session.handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &discard);
}

fn session_id(headers: &HeaderMap) -> Option<&str> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok())
}

/// Whether `Accept` names both media types a streamable-HTTP client must take.
fn accepts_both(headers: &HeaderMap) -> bool {
    let mut json = false;
    let mut sse = false;
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let media = item.split(';').next().unwrap_or("").trim();
            json |= media.eq_ignore_ascii_case("application/json");
            sse |= media.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// A JSON-RPC error body (no id: the request was refused before it was read) with `status`.
fn error_response(status: StatusCode, code: Option<i64>, message: &str) -> Response {
    let code = code.unwrap_or(match status {
        StatusCode::NOT_FOUND => crate::protocol::code::METHOD_NOT_FOUND,
        _ => crate::protocol::code::INVALID_REQUEST,
    });
    let body = serde_json::json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}});
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}
