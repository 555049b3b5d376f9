//! [`JwksVerifier`] (feature `oauth`): JWT access tokens checked against an authorization
//! server's JSON Web Key Set, the [`VerifyToken`] of a [`ResourceServer`](crate::http::ResourceServer).
//!
//! - The JWKS is fetched over HTTP(S) on first use, cached, and fetched again once it is
//!   older than [`refresh`](JwksVerifier::refresh), or sooner when a token names a key id the
//!   cache lacks (the authorization server rotated its keys), at most once per
//!   [`DEFAULT_MIN_REFETCH`]. One fetch at a time: concurrent verifications wait for it.
//! - A token must be signed with an accepted algorithm (RS256 and ES256 by default) by a key
//!   of the set, be unexpired (60 s of leeway), name this resource in `aud` (RFC 8707), and
//!   come from the configured issuer when one is set.
//! - Its header's `typ` must say it is an access token (RFC 9068 §4: `at+jwt`), or say
//!   nothing more than that it is a JWT: [`DEFAULT_TOKEN_TYPES`], and no `typ` at all, by
//!   default ([`JwksVerifier::token_types`], [`JwksVerifier::untyped`]). A JWT the same
//!   authorization server signed for another purpose (a logout token, `logout+jwt`; an ID
//!   token typed `id_token+jwt`) names its kind, and is refused. Types are compared as
//!   media types (RFC 7515 §4.1.9): without regard to case, and with or without the
//!   `application/` prefix.
//! - Its principal: `sub`; scopes from `scope` (space-separated, RFC 8693 §4.2) or `scp`
//!   (an array); roles from `roles`; the tenant from `tenant`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::Uri;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};

use crate::principal::Principal;
use crate::sync::lock;

use super::authn::{BoxFuture, Refusal, VerifyToken};

/// How long a fetched JWKS is used before it is fetched again: 5 minutes.
pub const DEFAULT_JWKS_REFRESH: Duration = Duration::from_secs(300);
/// The least time between two fetches of the JWKS, however many unknown key ids arrive: 10 s.
pub const DEFAULT_MIN_REFETCH: Duration = Duration::from_secs(10);
/// The most a JWKS document may weigh: 256 KiB.
const MAX_JWKS_BYTES: usize = 256 * 1024;
/// The `typ` header values an access token may carry by default: `at+jwt` (RFC 9068 §4)
/// and the plain `JWT` many authorization servers stamp on every token they sign.
pub const DEFAULT_TOKEN_TYPES: [&str; 2] = ["at+jwt", "JWT"];

/// Verifies JWT access tokens against the JWKS at a URL, for one resource (audience).
///
/// ```no_run
/// use toolwire::http::{Auth, JwksVerifier, ResourceServer};
///
/// let resource = "https://tools.example/mcp";
/// let verifier = JwksVerifier::new("https://auth.example/.well-known/jwks.json", resource)
///     .unwrap()
///     .issuer("https://auth.example");
/// let auth = Auth::resource_server(
///     ResourceServer::new(resource, verifier).authorization_server("https://auth.example"),
/// );
/// # let _ = auth;
/// ```
pub struct JwksVerifier {
    jwks_uri: Uri,
    audience: String,
    issuer: Option<String>,
    algorithms: Vec<Algorithm>,
    /// The accepted `typ` values, as [`media_type`] writes them.
    token_types: Vec<String>,
    /// Whether a token with no `typ` is accepted.
    untyped: bool,
    refresh: Duration,
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
    cache: Mutex<Option<Cached>>,
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Clone)]
struct Cached {
    keys: Arc<JwkSet>,
    fetched: Instant,
}

impl std::fmt::Debug for JwksVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwksVerifier")
            .field("jwks_uri", &self.jwks_uri)
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// Why a [`JwksVerifier`] could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JwksError {
    /// The JWKS URL does not parse, or is not `http`/`https`.
    #[error("the JWKS URL '{0}' is not an http or https URL")]
    BadUrl(String),
}

impl JwksVerifier {
    /// Verify tokens for `audience` (the resource's canonical URI) with the keys at
    /// `jwks_uri`.
    pub fn new(jwks_uri: &str, audience: impl Into<String>) -> Result<JwksVerifier, JwksError> {
        let uri: Uri = jwks_uri.parse().map_err(|_| JwksError::BadUrl(jwks_uri.to_owned()))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err(JwksError::BadUrl(jwks_uri.to_owned()));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map(|b| {
                let mut roots = rustls::RootCertStore::empty();
                roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
                b.with_root_certificates(roots).with_no_client_auth()
            })
            .expect("ring supports the default protocol versions");
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        let connector = HttpsConnector::from((http, Arc::new(tls)));
        Ok(JwksVerifier {
            jwks_uri: uri,
            audience: audience.into(),
            issuer: None,
            algorithms: vec![Algorithm::RS256, Algorithm::ES256],
            token_types: DEFAULT_TOKEN_TYPES.iter().map(|t| media_type(t)).collect(),
            untyped: true,
            refresh: DEFAULT_JWKS_REFRESH,
            client: Client::builder(TokioExecutor::new()).build(connector),
            cache: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
        })
    }

    /// Accept only tokens whose `iss` is `issuer`.
    pub fn issuer(mut self, issuer: impl Into<String>) -> JwksVerifier {
        self.issuer = Some(issuer.into());
        self
    }

    /// Accept tokens signed with these algorithms (default RS256 and ES256), named by
    /// [`Algorithm`](crate::http::Algorithm) (re-exported from `jsonwebtoken`, so no dependency of
    /// your own is needed): `.algorithms([Algorithm::EdDSA])`.
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> JwksVerifier {
        self.algorithms = algorithms.into_iter().collect();
        self
    }

    /// Accept tokens whose header's `typ` is one of `types` (default [`DEFAULT_TOKEN_TYPES`]),
    /// compared as media types: without regard to case, `application/` prefix or not. To take
    /// RFC 9068 at its word, `.token_types(["at+jwt"]).untyped(false)`.
    pub fn token_types<S: AsRef<str>>(mut self, types: impl IntoIterator<Item = S>) -> JwksVerifier {
        self.token_types = types.into_iter().map(|t| media_type(t.as_ref())).collect();
        self
    }

    /// Whether a token whose header has no `typ` is accepted (default: yes, as many
    /// authorization servers leave it out).
    pub fn untyped(mut self, accepted: bool) -> JwksVerifier {
        self.untyped = accepted;
        self
    }

    /// Refused unless the header's `typ` is one this verifier accepts; why, in words.
    fn check_type(&self, typ: Option<&str>) -> Result<(), Refusal> {
        let accepted = match typ {
            None => self.untyped,
            Some(t) => self.token_types.contains(&media_type(t)),
        };
        if accepted {
            return Ok(());
        }
        let wanted = self.token_types.join(", ");
        Err(Refusal::InvalidToken(match typ {
            None => format!("its header has no typ; this server accepts only typ {wanted}"),
            Some(t) => format!(
                "its typ '{}' is not an access token's (RFC 9068: at+jwt); this server accepts typ {}",
                t.escape_default(),
                if wanted.is_empty() { "(none)".to_owned() } else { wanted }
            ),
        }))
    }

    /// Fetch the JWKS again once it is this old (default [`DEFAULT_JWKS_REFRESH`]).
    pub fn refresh(mut self, after: Duration) -> JwksVerifier {
        self.refresh = after;
        self
    }

    fn cached(&self) -> Option<Cached> {
        lock(&self.cache).clone()
    }

    /// The key set: the cached one while it is fresh (and, when `stale_ok_since` is given,
    /// fetched after it), else fetched now.
    async fn keys(&self, refetch_if_older_than: Option<Duration>) -> Result<Arc<JwkSet>, Refusal> {
        let fresh = |c: &Cached| {
            let age = c.fetched.elapsed();
            age < self.refresh && refetch_if_older_than.is_none_or(|min| age < min)
        };
        if let Some(c) = self.cached().filter(|c| fresh(c)) {
            return Ok(c.keys);
        }
        let _one_at_a_time = self.fetching.lock().await;
        // Someone else may have fetched while we waited.
        if let Some(c) = self.cached().filter(|c| fresh(c) || c.fetched.elapsed() < Duration::from_millis(50))
        {
            return Ok(c.keys);
        }
        match self.fetch().await {
            Ok(keys) => {
                let keys = Arc::new(keys);
                *lock(&self.cache) = Some(Cached { keys: Arc::clone(&keys), fetched: Instant::now() });
                Ok(keys)
            }
            Err(why) => {
                tracing::warn!(jwks = %self.jwks_uri, %why, "the JWKS could not be fetched");
                // A stale set beats none while the authorization server is away.
                self.cached().map(|c| c.keys).ok_or_else(|| {
                    Refusal::InvalidToken("the authorization server's keys could not be fetched".to_owned())
                })
            }
        }
    }

    async fn fetch(&self) -> Result<JwkSet, String> {
        let request = hyper::Request::get(self.jwks_uri.clone())
            .header(hyper::header::ACCEPT, "application/json")
            .body(Empty::<Bytes>::new())
            .map_err(|e| e.to_string())?;
        let response = tokio::time::timeout(Duration::from_secs(10), self.client.request(request))
            .await
            .map_err(|_| "no answer within 10 s".to_owned())?
            .map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        let body = Limited::new(response.into_body(), MAX_JWKS_BYTES)
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        serde_json::from_slice(&body).map_err(|e| format!("not a JWKS: {e}"))
    }

    async fn check(&self, token: &str) -> Result<Principal, Refusal> {
        let invalid = |why: &str| Refusal::InvalidToken(why.to_owned());
        let header = jsonwebtoken::decode_header(token).map_err(|_| invalid("it is not a JWT"))?;
        // Before any key is fetched: a token of another kind is refused whoever signed it.
        self.check_type(header.typ.as_deref())?;
        if !self.algorithms.contains(&header.alg) {
            return Err(Refusal::InvalidToken(format!(
                "it is signed with {:?}, which this server does not accept",
                header.alg
            )));
        }
        let find = |keys: &JwkSet| match &header.kid {
            Some(kid) => keys.find(kid).cloned(),
            None => keys.keys.first().cloned(),
        };
        let mut jwk = find(&*self.keys(None).await?);
        if jwk.is_none() {
            // A key id we have not seen: the authorization server may have rotated its keys.
            jwk = find(&*self.keys(Some(DEFAULT_MIN_REFETCH)).await?);
        }
        let Some(jwk) = jwk else {
            return Err(Refusal::InvalidToken(match &header.kid {
                Some(kid) => format!("no key of the authorization server has the id '{kid}'"),
                None => "the authorization server publishes no keys".to_owned(),
            }));
        };
        let key = DecodingKey::from_jwk(&jwk).map_err(|_| invalid("its key cannot verify a signature"))?;
        let mut validation = Validation::new(header.alg);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "aud", "sub"]);
        if let Some(iss) = &self.issuer {
            validation.set_issuer(&[iss]);
        }
        let data =
            jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(token, &key, &validation)
                .map_err(|e| {
                    invalid(match e.kind() {
                        ErrorKind::ExpiredSignature => "it has expired",
                        ErrorKind::ImmatureSignature => "it is not valid yet",
                        ErrorKind::InvalidAudience => "it was not issued for this resource (its audience)",
                        ErrorKind::InvalidIssuer => "it was not issued by the expected authorization server",
                        ErrorKind::InvalidSignature => "its signature does not verify",
                        ErrorKind::MissingRequiredClaim(_) => "it lacks one of the claims exp, aud and sub",
                        ErrorKind::InvalidAlgorithm => "its algorithm does not match its key",
                        _ => "it could not be decoded",
                    })
                })?;
        Ok(principal_of(&data.claims))
    }
}

/// A `typ` value as it is compared: lower case, without the `application/` prefix that
/// RFC 7515 §4.1.9 says to leave out (and to assume when there is no `/`).
fn media_type(typ: &str) -> String {
    let t = typ.trim().to_ascii_lowercase();
    match t.strip_prefix("application/") {
        Some(rest) => rest.to_owned(),
        None => t,
    }
}

/// The principal a verified token's claims describe.
fn principal_of(claims: &serde_json::Map<String, serde_json::Value>) -> Principal {
    let strings = |v: Option<&serde_json::Value>| -> Vec<String> {
        match v {
            Some(serde_json::Value::String(s)) => {
                s.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect()
            }
            Some(serde_json::Value::Array(a)) => {
                a.iter().filter_map(|v| v.as_str()).map(str::to_owned).collect()
            }
            _ => Vec::new(),
        }
    };
    let sub = claims.get("sub").and_then(|v| v.as_str()).unwrap_or_default();
    let mut principal = Principal::new(sub)
        .with_scopes(strings(claims.get("scope")))
        .with_scopes(strings(claims.get("scp")))
        .with_roles(strings(claims.get("roles")));
    if let Some(tenant) = claims.get("tenant").and_then(|v| v.as_str()) {
        principal = principal.with_tenant(tenant);
    }
    principal
}

impl VerifyToken for JwksVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(self.check(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_become_a_principal() {
        let claims = serde_json::json!({"sub": "alice", "scope": "a b", "scp": ["c"], "roles": ["admin"], "tenant": "acme"});
        let p = principal_of(claims.as_object().unwrap());
        assert_eq!(p.subject(), "alice");
        assert_eq!(p.scopes().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(p.has_role("admin") && p.tenant() == Some("acme") && !p.is_host());
        assert!(matches!(JwksVerifier::new("ftp://x/jwks", "r"), Err(JwksError::BadUrl(_))));
    }

    fn why(refused: Result<(), Refusal>) -> String {
        match refused {
            Err(Refusal::InvalidToken(why)) => why,
            other => panic!("not an invalid_token refusal: {other:?}"),
        }
    }

    #[test]
    fn an_access_token_or_a_plain_jwt_is_accepted_and_another_kind_of_jwt_is_refused() {
        let v = JwksVerifier::new("http://127.0.0.1:1/jwks", "r").unwrap();
        for typ in
            [None, Some("at+jwt"), Some("AT+JWT"), Some("application/at+jwt"), Some("JWT"), Some("jwt")]
        {
            assert!(v.check_type(typ).is_ok(), "{typ:?}");
        }
        for typ in ["logout+jwt", "application/logout+jwt", "secevent+jwt", "id_token+jwt", "dpop+jwt", ""] {
            assert_eq!(
                why(v.check_type(Some(typ))),
                format!(
                    "its typ '{typ}' is not an access token's (RFC 9068: at+jwt); this server accepts typ at+jwt, jwt"
                )
            );
        }
        let strict =
            JwksVerifier::new("http://127.0.0.1:1/jwks", "r").unwrap().token_types(["at+jwt"]).untyped(false);
        assert!(strict.check_type(Some("application/AT+JWT")).is_ok());
        assert_eq!(
            why(strict.check_type(Some("JWT"))),
            "its typ 'JWT' is not an access token's (RFC 9068: at+jwt); this server accepts typ at+jwt"
        );
        assert_eq!(
            why(strict.check_type(None)),
            "its header has no typ; this server accepts only typ at+jwt"
        );
    }

    /// The type is read from the header before any key is fetched (the JWKS URL here
    /// answers nothing).
    #[tokio::test]
    async fn a_logout_token_is_refused_before_the_keys_are_fetched() {
        use crate::base64::URL;
        let header = URL.encode(br#"{"alg":"RS256","typ":"logout+jwt","kid":"rs-1"}"#);
        let claims = URL.encode(br#"{"sub":"alice","aud":"r","exp":9999999999}"#);
        let token = format!("{header}.{claims}.c2ln");
        let v = JwksVerifier::new("http://127.0.0.1:1/jwks", "r").unwrap();
        let refused = v.check(&token).await.unwrap_err();
        assert!(
            matches!(&refused, Refusal::InvalidToken(why) if why.starts_with("its typ 'logout+jwt'")),
            "{refused:?}"
        );
    }
}
