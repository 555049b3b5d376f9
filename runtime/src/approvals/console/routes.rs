//! The console's HTTP surface: its routes, and the checks each runs before it reads anything
//! (one `Host`/`Origin` each, `Host` this console's, `Origin` absent or this console's, the
//! session cookie, and for a decision the CSRF header and an `Origin` that must be present).
//!
//! | route | needs | does |
//! | --- | --- | --- |
//! | `GET /?token=…` | the token | sets the cookie, `303` to `/` |
//! | `GET /` | the cookie | the page |
//! | `GET /console.js`, `GET /console.css` | nothing | the script and style |
//! | `GET /api/prompts` | the cookie | pending and recently settled prompts |
//! | `POST /api/prompts/{id}/approve` | cookie, CSRF, Origin | `{}` or `{"input": "<JSON text>"}` |
//! | `POST /api/prompts/{id}/deny` | cookie, CSRF, Origin | `{"message": "…"}` |

use std::sync::Arc;
use std::time::Duration;

use crate::base64::URL;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use subtle::ConstantTimeEq as _;

use super::board::{Board, Outcome, Refused};
use crate::approvals::asker::Answer;

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("console.js");
const STYLE: &str = include_str!("console.css");

/// The header a decision carries its CSRF token in.
pub(super) const CSRF_HEADER: &str = "x-toolwire-csrf";

/// What every response carries: no inline code, nothing from elsewhere, no framing, no
/// sniffing, no caching, no referrer.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                   img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The deny message when the person gave none.
const DEFAULT_DENY_MESSAGE: &str = "a person at the approval console denied this call";

/// 32 random bytes from the OS CSPRNG as unpadded base64url.
pub(super) fn random_secret() -> String {
    let mut buf = [0u8; 32];
    crate::random::fill(&mut buf);
    URL.encode(buf)
}

/// The console's shared state, as its routes see it.
pub(super) struct Site {
    board: Arc<Board>,
    /// `127.0.0.1:<port>` and `localhost:<port>`: the only `Host` values served.
    hosts: [String; 2],
    cookie_name: String,
    token: String,
    csrf: String,
    poll_ms: u128,
}

impl Site {
    pub(super) fn new(board: Arc<Board>, port: u16, token: String, poll: Duration) -> Arc<Site> {
        Arc::new(Site {
            board,
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            cookie_name: format!("toolwire_console_{port}"),
            token,
            csrf: random_secret(),
            poll_ms: poll.as_millis(),
        })
    }
}

/// The router, with the security headers on every response.
pub(super) fn router(site: Arc<Site>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/console.js", get(script))
        .route("/console.css", get(style))
        .route("/api/prompts", get(prompts))
        .route("/api/prompts/{id}/approve", post(approve))
        .route("/api/prompts/{id}/deny", post(deny))
        .layer(axum::middleware::map_response(secure))
        .with_state(site)
}

async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// What a route needs beyond a good `Host`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    /// Nothing: the static script and style.
    Nothing,
    /// The session cookie.
    Session,
    /// The cookie, the CSRF header, and this console's `Origin`.
    Decision,
}

/// A refusal, as JSON (`{"error": …}`) under `/api`, as text elsewhere.
struct Refusal {
    status: StatusCode,
    message: String,
    json: bool,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        if self.json {
            json_response(self.status, &json!({"error": self.message}))
        } else {
            (self.status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], self.message).into_response()
        }
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn eq_secret(presented: &str, secret: &str) -> bool {
    bool::from(presented.as_bytes().ct_eq(secret.as_bytes()))
}

impl Site {
    fn check(&self, headers: &HeaderMap, need: Need, json: bool) -> Result<(), Refusal> {
        let refuse = |status, message: String| Refusal { status, message, json };
        for name in [header::HOST, header::ORIGIN] {
            if headers.get_all(&name).iter().nth(1).is_some() {
                return Err(refuse(
                    StatusCode::BAD_REQUEST,
                    format!("bad request: more than one {name} header"),
                ));
            }
        }
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
        if !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                format!("forbidden: the Host header is not this console's address ({})", self.hosts[0]),
            ));
        }
        let origin = headers.get(header::ORIGIN).map(|o| o.to_str().unwrap_or_default());
        if let Some(origin) = origin
            && !origin.strip_prefix("http://").is_some_and(|o| o.eq_ignore_ascii_case(host))
        {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                "forbidden: the Origin header is not this console's".into(),
            ));
        }
        if need == Need::Nothing {
            return Ok(());
        }
        if !self.has_session(headers) {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                "unauthorized: open the console with the address it printed; its token is missing or wrong"
                    .into(),
            ));
        }
        if need == Need::Decision {
            if origin.is_none() {
                return Err(refuse(
                    StatusCode::FORBIDDEN,
                    "forbidden: a decision needs this console's Origin header".into(),
                ));
            }
            let csrf = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
            if !eq_secret(csrf, &self.csrf) {
                return Err(refuse(
                    StatusCode::FORBIDDEN,
                    "forbidden: the CSRF token is missing or wrong; reload the console".into(),
                ));
            }
        }
        Ok(())
    }

    fn has_session(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(name, value)| name == self.cookie_name && eq_secret(value, &self.token))
    }
}

async fn page(State(site): State<Arc<Site>>, headers: HeaderMap, uri: Uri) -> Response {
    let token = uri.query().unwrap_or_default().split('&').find_map(|kv| kv.strip_prefix("token="));
    if let Some(token) = token {
        // The token is good once per visit: trade it for the cookie, and drop it from the
        // address bar (and from history) with a redirect.
        if let Err(refusal) = site.check(&headers, Need::Nothing, false) {
            return refusal.into_response();
        }
        if !eq_secret(token, &site.token) {
            let message = "unauthorized: the console's token in this address is wrong";
            return Refusal { status: StatusCode::UNAUTHORIZED, message: message.into(), json: false }
                .into_response();
        }
        let cookie = format!("{}={}; Path=/; HttpOnly; SameSite=Strict", site.cookie_name, site.token);
        return (StatusCode::SEE_OTHER, [(header::LOCATION, "/".to_owned()), (header::SET_COOKIE, cookie)])
            .into_response();
    }
    if let Err(refusal) = site.check(&headers, Need::Session, false) {
        return refusal.into_response();
    }
    let html = PAGE.replace("{{CSRF}}", &site.csrf).replace("{{POLL_MS}}", &site.poll_ms.to_string());
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

async fn script(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    match site.check(&headers, Need::Nothing, false) {
        Ok(()) => ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT).into_response(),
        Err(refusal) => refusal.into_response(),
    }
}

async fn style(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    match site.check(&headers, Need::Nothing, false) {
        Ok(()) => ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response(),
        Err(refusal) => refusal.into_response(),
    }
}

async fn prompts(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    match site.check(&headers, Need::Session, true) {
        Ok(()) => json_response(StatusCode::OK, &json!(site.board.snapshot())),
        Err(refusal) => refusal.into_response(),
    }
}

/// A decision's body: a JSON object, or nothing at all (`{}`).
fn body_object(body: &Bytes) -> Result<serde_json::Map<String, Value>, Refusal> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_slice(body) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Refusal {
            status: StatusCode::BAD_REQUEST,
            message: "bad request: the body must be a JSON object".into(),
            json: true,
        }),
    }
}

/// The edited arguments, from the text the person typed: JSON, and an object.
fn edited_input(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(format!(
            "the edited arguments must be a JSON object, not {}; nothing was decided",
            match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                Value::Array(_) => "an array",
                Value::Object(_) => unreachable!("matched above"),
            }
        )),
        Err(e) => Err(format!("the edited arguments are not valid JSON ({e}); nothing was decided")),
    }
}

async fn approve(
    State(site): State<Arc<Site>>,
    Path(id): Path<u64>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let decision = (|| {
        site.check(&headers, Need::Decision, true)?;
        let body = body_object(&body)?;
        Ok::<_, Refusal>(match body.get("input") {
            None | Some(Value::Null) => (Answer::allow(), Outcome::Approved),
            Some(Value::String(text)) => match edited_input(text) {
                Ok(input) => (Answer::allow_with(input), Outcome::ApprovedWithEdits),
                Err(message) => {
                    return Err(Refusal { status: StatusCode::UNPROCESSABLE_ENTITY, message, json: true });
                }
            },
            Some(_) => {
                return Err(Refusal {
                    status: StatusCode::BAD_REQUEST,
                    message: "bad request: `input` must be the edited arguments as JSON text".into(),
                    json: true,
                });
            }
        })
    })();
    match decision {
        Ok((answer, outcome)) => settle(&site, id, answer, outcome),
        Err(refusal) => refusal.into_response(),
    }
}

async fn deny(
    State(site): State<Arc<Site>>,
    Path(id): Path<u64>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let message = (|| {
        site.check(&headers, Need::Decision, true)?;
        let body = body_object(&body)?;
        let message = body.get("message").and_then(Value::as_str).unwrap_or_default().trim();
        Ok::<_, Refusal>(if message.is_empty() {
            DEFAULT_DENY_MESSAGE.to_owned()
        } else {
            message.to_owned()
        })
    })();
    match message {
        Ok(message) => settle(&site, id, Answer::deny(message.clone()), Outcome::Denied(message)),
        Err(refusal) => refusal.into_response(),
    }
}

fn settle(site: &Site, id: u64, answer: Answer, outcome: Outcome) -> Response {
    let text = outcome.text();
    match site.board.decide(id, answer, outcome) {
        Ok(()) => json_response(StatusCode::OK, &json!({"outcome_text": text})),
        Err(Refused::Unknown) => {
            json_response(StatusCode::NOT_FOUND, &json!({"error": format!("no prompt has id {id}")}))
        }
        Err(Refused::AlreadyDecided(earlier)) => json_response(
            StatusCode::CONFLICT,
            &json!({"error": format!("already decided ({})", earlier.text())}),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_must_be_a_json_object() {
        assert_eq!(edited_input(r#"{"a": 1}"#), Ok(json!({"a": 1})));
        assert_eq!(
            edited_input("[1]"),
            Err("the edited arguments must be a JSON object, not an array; nothing was decided".to_owned())
        );
        assert_eq!(
            edited_input("{\"a\": "),
            Err("the edited arguments are not valid JSON (EOF while parsing a value at line 1 column 6); nothing was decided".to_owned())
        );
    }

    #[test]
    fn secrets_are_43_base64url_characters_and_differ() {
        let (a, b) = (random_secret(), random_secret());
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
        assert!(eq_secret(&a, &a.clone()) && !eq_secret(&a, &b) && !eq_secret("", &a));
    }
}
