//! `DELETE /mcp`: a legacy session ended by its client (here, or through the shared store
//! when sessions roam between replicas).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::endpoint::{Endpoint, admit};
use super::read::heads::Heads;
use super::read::inbound;
use super::response::error_response;

/// DELETE: end a legacy session (204; unknown: 404).
pub(super) async fn delete(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let answer = end_session(&endpoint, &parts).await;
    inbound::unread(answer, body, endpoint.config.max_body, &parts.headers).await
}

/// The answer to a DELETE: the session ended, or why not.
async fn end_session(endpoint: &Endpoint, parts: &axum::http::request::Parts) -> Response {
    let heads = Heads::of(&parts.headers);
    let principal = match admit(endpoint, parts, &heads).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let ended = match (heads.session_id(), &endpoint.roaming) {
        (None, _) => None,
        (Some(id), None) => Some(endpoint.sessions.remove(id, principal.subject())),
        (Some(id), Some(r)) => match r.end(&endpoint.sessions, id, principal.subject()).await {
            Ok(ended) => Some(ended),
            Err(refused) => return refused.response(None),
        },
    };
    match ended {
        None => error_response(
            StatusCode::BAD_REQUEST,
            None,
            "bad request: DELETE needs an Mcp-Session-Id header",
        ),
        Some(true) => StatusCode::NO_CONTENT.into_response(),
        Some(false) => error_response(
            StatusCode::NOT_FOUND,
            None,
            "not found: no such session (it ended or never existed)",
        ),
    }
}
