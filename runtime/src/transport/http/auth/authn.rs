//! Authentication: who is calling, from the request's parts, behind one trait
//! ([`Authenticate`]), called by every `/mcp` handler after the Host/Origin guard (the
//! endpoint's `admit`). What it returns is the request's [`Principal`], which the engine
//! hands every tool; what it refuses is answered here, before the body is read:
//!
//! | refusal | status | `WWW-Authenticate` |
//! | --- | --- | --- |
//! | [`Refusal::Unauthenticated`] (no credentials) | 401 | `Bearer` (with `resource_metadata` and `scope` under a [`ResourceServer`]) |
//! | [`Refusal::InvalidToken`] (expired, wrong audience, bad signature, …) | 401 | `Bearer error="invalid_token", error_description="…"` |
//! | [`Refusal::InsufficientScope`] | 403 | `Bearer error="insufficient_scope", scope="…"` |
//!
//! The implementations: [`BearerToken`] (the generated loopback token; its holder is the
//! host), and [`ResourceServer`], the MCP authorization spec's resource-server role: bearer
//! tokens checked by a pluggable [`VerifyToken`] (JWTs against a JWKS with feature `oauth`),
//! the scopes every call needs, and its RFC 9728 metadata at
//! `/.well-known/oauth-protected-resource`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::principal::Principal;

use super::token::BearerToken;
use crate::transport::http::response::error_response;

/// A boxed future, as [`Authenticate`] and [`VerifyToken`] return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Who is calling, from a request's method, URI and headers (never its body): a
/// [`Principal`], or a typed [`Refusal`].
///
/// ```
/// use toolwire::http::{Authenticate, BoxFuture, Refusal};
/// use toolwire::principal::Principal;
///
/// /// Lets in whoever sends `X-Demo-User`, as that user.
/// struct DemoHeader;
///
/// impl Authenticate for DemoHeader {
///     fn authenticate<'a>(
///         &'a self,
///         parts: &'a axum::http::request::Parts,
///     ) -> BoxFuture<'a, Result<Principal, Refusal>> {
///         Box::pin(async move {
///             let user = parts.headers.get("x-demo-user").and_then(|v| v.to_str().ok());
///             user.map(Principal::new).ok_or(Refusal::Unauthenticated)
///         })
///     }
/// }
/// ```
pub trait Authenticate: Send + Sync + 'static {
    /// The request's principal, or why it is refused.
    fn authenticate<'a>(&'a self, parts: &'a Parts) -> BoxFuture<'a, Result<Principal, Refusal>>;

    /// The resource server this authenticator stands for, when it is one: its refusals then
    /// name its metadata, and the router serves that metadata.
    fn resource_server(&self) -> Option<&ResourceServer> {
        None
    }
}

/// Why a request was not let in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// No credentials: 401.
    #[error("unauthorized: a valid bearer token is required")]
    Unauthenticated,
    /// Credentials that are not valid (expired, for another audience, a bad signature):
    /// 401 with `error="invalid_token"` and this description.
    #[error("unauthorized: the bearer token is not valid: {0}")]
    InvalidToken(String),
    /// Valid credentials without every scope the request needs: 403 with
    /// `error="insufficient_scope"` and the scopes needed, space-separated.
    #[error("forbidden: the bearer token lacks the scope this server requires: {0}")]
    InsufficientScope(String),
}

impl Refusal {
    /// The HTTP status it is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::InsufficientScope(_) => StatusCode::FORBIDDEN,
            _ => StatusCode::UNAUTHORIZED,
        }
    }

    /// The `WWW-Authenticate` challenge (RFC 6750 §3), naming `server`'s metadata (RFC 9728
    /// §5.1) and, on a 401, the scopes it requires (the MCP authorization spec's scope
    /// selection) when there is one.
    pub fn challenge(&self, server: Option<&ResourceServer>) -> String {
        let mut params: Vec<String> = Vec::new();
        match self {
            Refusal::Unauthenticated => {}
            Refusal::InvalidToken(why) => {
                params.push("error=\"invalid_token\"".to_owned());
                params.push(format!("error_description=\"{}\"", quoted(why)));
            }
            Refusal::InsufficientScope(scope) => {
                params.push("error=\"insufficient_scope\"".to_owned());
                params.push(format!("scope=\"{}\"", quoted(scope)));
            }
        }
        if let Some(server) = server {
            if !matches!(self, Refusal::InsufficientScope(_)) && !server.required_scopes.is_empty() {
                params.push(format!("scope=\"{}\"", quoted(&server.required_scopes.join(" "))));
            }
            params.push(format!("resource_metadata=\"{}\"", quoted(&server.metadata_url())));
        }
        if params.is_empty() { "Bearer".to_owned() } else { format!("Bearer {}", params.join(", ")) }
    }
}

/// `s` safe inside a quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped, controls dropped.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || !c.is_ascii() => {}
            c => out.push(c),
        }
    }
    out
}

impl Authenticate for BearerToken {
    /// `Authorization: Bearer <this token>`, compared in constant time; its holder is the host
    /// ([`Principal::host`]): whoever was handed the generated token by the program.
    fn authenticate<'a>(&'a self, parts: &'a Parts) -> BoxFuture<'a, Result<Principal, Refusal>> {
        let ok = parts.headers.get(header::AUTHORIZATION).is_some_and(|v| self.matches_header(v.as_bytes()));
        Box::pin(std::future::ready(if ok { Ok(Principal::host()) } else { Err(Refusal::Unauthenticated) }))
    }
}

/// Checks a bearer token's text and says whose it is: the pluggable half of a
/// [`ResourceServer`]. With feature `oauth`, [`JwksVerifier`](crate::http::JwksVerifier) checks JWT
/// access tokens against an authorization server's JWKS.
pub trait VerifyToken: Send + Sync + 'static {
    /// The principal `token` stands for, or [`Refusal::InvalidToken`] saying why not. The
    /// verifier checks the audience (RFC 8707: the token was issued for this resource).
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, Refusal>>;
}

impl<F> VerifyToken for F
where
    F: Fn(&str) -> Result<Principal, Refusal> + Send + Sync + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(std::future::ready(self(token)))
    }
}

/// The MCP authorization spec's resource-server role: an endpoint that takes OAuth 2.1
/// bearer tokens issued for it by the authorization servers it names.
///
/// - Each request's `Authorization: Bearer …` is checked by the [`VerifyToken`]; a missing
///   one is 401, an invalid one 401 with `error="invalid_token"`, both naming the metadata.
/// - A token without every [`required_scopes`](Self::required_scopes) is 403
///   `insufficient_scope` with the scopes needed.
/// - The router serves the RFC 9728 metadata at `/.well-known/oauth-protected-resource` and
///   at that path with the resource's path appended (`…/oauth-protected-resource/mcp`).
///
/// ```
/// use toolwire::http::{Refusal, ResourceServer};
/// use toolwire::principal::Principal;
///
/// let rs = ResourceServer::new("https://tools.example/mcp", |token: &str| match token {
///     "let-me-in" => Ok(Principal::new("alice").with_scopes(["mcp"])),
///     _ => Err(Refusal::InvalidToken("unknown token".into())),
/// })
/// .authorization_server("https://auth.example")
/// .required_scopes(["mcp"]);
/// assert_eq!(rs.metadata_url(), "https://tools.example/.well-known/oauth-protected-resource/mcp");
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    /// Read by the POST handler too: a step-up challenge names them (module `post`).
    pub(crate) required_scopes: Vec<String>,
    verifier: Arc<dyn VerifyToken>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// The resource at `resource` (its canonical URI, e.g. `https://tools.example/mcp`: what
    /// tokens must name as their audience), whose tokens `verifier` checks.
    pub fn new(resource: impl Into<String>, verifier: impl VerifyToken) -> ResourceServer {
        ResourceServer {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            verifier: Arc::new(verifier),
        }
    }

    /// Name an authorization server (its issuer URL) in the metadata, for clients to get
    /// tokens from.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> ResourceServer {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes the metadata says this resource understands (`scopes_supported`).
    pub fn scopes_supported<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes_supported.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Scopes every request needs: a token lacking one is 403 `insufficient_scope`. They are
    /// listed in `scopes_supported` too, and named in the 401's `scope`.
    pub fn required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        for s in scopes {
            let s = s.into();
            if !self.scopes_supported.contains(&s) {
                self.scopes_supported.push(s.clone());
            }
            self.required_scopes.push(s);
        }
        self
    }

    /// The resource's canonical URI.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Where its metadata is (RFC 9728 §3.1): the well-known path inserted between the
    /// resource's authority and its path.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{}", path.trim_end_matches('/'))
    }

    /// The paths the metadata is served at: the RFC 9728 one for the resource, and the bare
    /// well-known path (which clients of the 2025-03-26 era try).
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        let (_, path) = split_origin(&self.resource);
        let mut paths = vec!["/.well-known/oauth-protected-resource".to_owned()];
        let path = path.trim_end_matches('/');
        if !path.is_empty() {
            paths.push(format!("/.well-known/oauth-protected-resource{path}"));
        }
        paths
    }

    /// The RFC 9728 metadata document: `resource`, `authorization_servers`,
    /// `scopes_supported`, `bearer_methods_supported` (`["header"]`), in that order.
    pub fn metadata_json(&self) -> String {
        #[derive(serde::Serialize)]
        struct Metadata<'a> {
            resource: &'a str,
            authorization_servers: &'a [String],
            scopes_supported: &'a [String],
            bearer_methods_supported: [&'a str; 1],
        }
        serde_json::to_string(&Metadata {
            resource: &self.resource,
            authorization_servers: &self.authorization_servers,
            scopes_supported: &self.scopes_supported,
            bearer_methods_supported: ["header"],
        })
        .expect("strings always serialise")
    }
}

/// `https://host:1/a/b` as (`https://host:1`, `/a/b`).
fn split_origin(uri: &str) -> (&str, &str) {
    let after_scheme = uri.find("://").map_or(0, |i| i + 3);
    match uri[after_scheme..].find('/') {
        Some(i) => uri.split_at(after_scheme + i),
        None => (uri, ""),
    }
}

impl Authenticate for ResourceServer {
    fn authenticate<'a>(&'a self, parts: &'a Parts) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(async move {
            let Some(token) = bearer(parts) else { return Err(Refusal::Unauthenticated) };
            let principal = self.verifier.verify(token).await?;
            let missing: Vec<&str> =
                self.required_scopes.iter().map(String::as_str).filter(|s| !principal.has_scope(s)).collect();
            if !missing.is_empty() {
                return Err(Refusal::InsufficientScope(self.required_scopes.join(" ")));
            }
            Ok(principal)
        })
    }

    fn resource_server(&self) -> Option<&ResourceServer> {
        Some(self)
    }
}

/// The token of an `Authorization: Bearer <token>` header (the scheme case-insensitively).
fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim_start_matches(' ');
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Who sent a request, as `auth` says, or the answer refusing it: a JSON-RPC error with no
/// id, and its challenge.
pub(crate) async fn authenticate(auth: &dyn Authenticate, parts: &Parts) -> Result<Arc<Principal>, Response> {
    match auth.authenticate(parts).await {
        Ok(principal) => Ok(principal.into_shared()),
        Err(refusal) => Err(refused(&refusal, auth.resource_server())),
    }
}

/// [`BearerToken`]'s check as [`authenticate`] would run it through the trait, without the
/// boxed future or a principal made per request: `authorization` is the request's first
/// `Authorization` value.
#[allow(clippy::result_large_err)] // The refusal is the answer itself, as in `admit`.
pub(crate) fn bearer_token(
    token: &BearerToken,
    authorization: Option<&HeaderValue>,
) -> Result<Arc<Principal>, Response> {
    if authorization.is_some_and(|v| token.matches_header(v.as_bytes())) {
        Ok(Principal::shared_host())
    } else {
        Err(refused(&Refusal::Unauthenticated, None))
    }
}

/// The answer to a refused request: its status, its JSON-RPC error, and the challenge.
fn refused(refusal: &Refusal, resource_server: Option<&ResourceServer>) -> Response {
    let mut response = error_response(refusal.status(), None, &refusal.to_string());
    let challenge = refusal.challenge(resource_server);
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    response
}

/// The router's RFC 9728 metadata answer.
pub(crate) fn metadata_response(json: &str) -> Response {
    let mut response = Response::new(axum::body::Body::from(json.to_owned()));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rs() -> ResourceServer {
        ResourceServer::new("http://127.0.0.1:8080/mcp", |_: &str| Err(Refusal::InvalidToken("no".into())))
            .authorization_server("http://127.0.0.1:9000")
            .required_scopes(["mcp", "tools"])
    }

    #[test]
    fn challenges_name_the_metadata_and_the_scopes() {
        let server = rs();
        assert_eq!(Refusal::Unauthenticated.challenge(None), "Bearer");
        assert_eq!(
            Refusal::Unauthenticated.challenge(Some(&server)),
            "Bearer scope=\"mcp tools\", resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\""
        );
        assert_eq!(
            Refusal::InvalidToken("the token \"x\" expired".into()).challenge(Some(&server)),
            "Bearer error=\"invalid_token\", error_description=\"the token \\\"x\\\" expired\", scope=\"mcp tools\", resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\""
        );
        assert_eq!(
            Refusal::InsufficientScope("mcp tools".into()).challenge(Some(&server)),
            "Bearer error=\"insufficient_scope\", scope=\"mcp tools\", resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\""
        );
    }

    #[test]
    fn metadata_paths_and_document() {
        let server = rs();
        assert_eq!(
            server.metadata_paths(),
            ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
        );
        assert_eq!(
            server.metadata_json(),
            r#"{"resource":"http://127.0.0.1:8080/mcp","authorization_servers":["http://127.0.0.1:9000"],"scopes_supported":["mcp","tools"],"bearer_methods_supported":["header"]}"#
        );
        let bare = ResourceServer::new("https://tools.example", |_: &str| Err(Refusal::Unauthenticated));
        assert_eq!(bare.metadata_url(), "https://tools.example/.well-known/oauth-protected-resource");
        assert_eq!(bare.metadata_paths(), ["/.well-known/oauth-protected-resource"]);
    }
}
