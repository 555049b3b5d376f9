//! [`Authorizer`]: the one seam between the HTTP transport and whatever supplies its
//! credentials (the OAuth client of [`oauth`](super::oauth), feature `client-oauth`, or an
//! application's own).
//!
//! The HTTP link asks it for an `Authorization` header before each exchange, and tells it
//! about a 401 or 403 with the response's `WWW-Authenticate`; the authorizer decides whether
//! new credentials are worth sending the request once more. A refusal at HTTP level comes
//! before the server ran anything, so sending it again cannot run a tool twice.

use std::future::Future;
use std::pin::Pin;

/// A boxed future an [`Authorizer`] returns.
pub type AuthFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, AuthFailure>> + Send + 'a>>;

/// Why an [`Authorizer`] could not authorize a request, in our words.
///
/// With `needs_person` the request fails as
/// [`ClientError::AuthorizationRequired`](super::ClientError::AuthorizationRequired) (a person
/// must authorize this client again); otherwise as
/// [`ClientError::AuthorizationFailed`](super::ClientError::AuthorizationFailed). Neither is an
/// outage, and trying again as is will not help.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
#[non_exhaustive]
pub struct AuthFailure {
    /// What went wrong, in our words (never an authorization server's).
    pub reason: String,
    /// Whether only a person authorizing again can fix it.
    pub needs_person: bool,
}

impl AuthFailure {
    /// A failure a person authorizing again can fix.
    pub fn needs_person(reason: impl Into<String>) -> AuthFailure {
        AuthFailure { reason: reason.into(), needs_person: true }
    }

    /// A failure of the flow itself (discovery, a mismatch, a refusal).
    pub fn failed(reason: impl Into<String>) -> AuthFailure {
        AuthFailure { reason: reason.into(), needs_person: false }
    }
}

/// An HTTP exchange about to be made: the request an [`Authorizer`] gives credentials for
/// (named apart from the transport seam's [`Outgoing`](super::Outgoing), the messages a
/// transport sends).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Exchange<'a> {
    /// The MCP endpoint's URL, as configured.
    pub endpoint: &'a str,
    /// `POST`, `GET` or `DELETE`.
    pub method: &'a str,
}

/// A request the server refused with 401 or 403.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RefusedExchange<'a> {
    /// The MCP endpoint's URL, as configured.
    pub endpoint: &'a str,
    /// 401 or 403.
    pub status: u16,
    /// The response's `WWW-Authenticate` header, when it had one (and it was text).
    pub www_authenticate: Option<&'a str>,
    /// The `Authorization` header the refused request carried, if any.
    pub sent: Option<&'a str>,
    /// The response's `DPoP-Nonce` header (RFC 9449 §9), if any.
    pub dpop_nonce: Option<&'a str>,
}

/// What supplies an HTTP server's credentials: set with
/// [`HttpServer::authorizer`](super::HttpServer::authorizer).
///
/// The HTTP link calls [`authorization`](Self::authorization) before every exchange (POST,
/// GET, DELETE) and sends the headers it gives (`Authorization`, and a `DPoP` proof where the
/// token is bound to a key). On a 401 or 403 it calls
/// [`refused`](Self::refused): `Ok(true)` sends the request once more with a fresh
/// [`authorization`](Self::authorization) (at most twice for one request); `Ok(false)` fails
/// it as [`ClientError::Unauthorized`](super::ClientError::Unauthorized); `Err` fails it with
/// the [`AuthFailure`].
pub trait Authorizer: Send + Sync + 'static {
    /// The credential headers (name, value) for `request`: none, or `Authorization` and
    /// whatever else proves the caller (a `DPoP` proof).
    fn authorization<'a>(&'a self, request: Exchange<'a>) -> AuthFuture<'a, Vec<(String, String)>>;

    /// The server refused a request: get new credentials if that can help.
    fn refused<'a>(&'a self, refusal: RefusedExchange<'a>) -> AuthFuture<'a, bool>;
}
