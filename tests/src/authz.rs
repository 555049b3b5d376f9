//! A small OAuth authorization server on loopback, for the resource-server tests: it serves
//! its JWKS (one RS256 and one ES256 key, the test keys in `tests/fixtures/auth/`), counts
//! how often the JWKS is fetched, mints access tokens with chosen claims, and hands them out
//! at `POST /token` (form fields `sub`, `scope`, `aud`) for peers that fetch their own.
//!
//! For a client that runs the whole MCP authorization flow (the Python SDK's
//! `OAuthClientProvider`), it also serves that flow, and no more of OAuth than it needs:
//! its RFC 8414 metadata at `/.well-known/oauth-authorization-server`, dynamic client
//! registration (RFC 7591, public clients only: `token_endpoint_auth_method` `none`) at
//! `POST /register`, and the authorization code grant with PKCE (S256 only, RFC 7636):
//! `GET /authorize` consents at once for its one user, [`USER`] (no page, no login), and
//! redirects to the client's registered `redirect_uri` with a one-time code; `POST /token`
//! with `grant_type=authorization_code` checks the code's client, redirect URI and PKCE
//! verifier, and mints a token for the `scope` and `resource` (RFC 8707: the audience) that
//! were asked for at `/authorize`. No refresh tokens, no client secrets, no consent screen.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};

/// Which of the two keys signs a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alg {
    /// RSA, key id `rs-1`.
    Rs256,
    /// P-256 ECDSA, key id `es-1`.
    Es256,
}

/// What a minted token says.
#[derive(Debug, Clone)]
pub struct Claims {
    /// `sub`.
    pub sub: String,
    /// `scope`, space-separated.
    pub scope: String,
    /// `aud`.
    pub aud: String,
    /// `exp`, as seconds from now (negative: already expired).
    pub expires_in: i64,
    /// `tenant`, when set.
    pub tenant: Option<String>,
    /// The header's `typ` (`JWT`, what `jsonwebtoken` writes, unless set; `None`: no `typ`).
    pub typ: Option<String>,
}

impl Claims {
    /// A token for `sub` with `scope`, for audience `aud`, valid for an hour.
    pub fn new(sub: &str, scope: &str, aud: &str) -> Claims {
        Claims {
            sub: sub.into(),
            scope: scope.into(),
            aud: aud.into(),
            expires_in: 3600,
            tenant: None,
            typ: Some("JWT".into()),
        }
    }
}

/// The one user the authorization endpoint consents for.
pub const USER: &str = "alice";

/// A code handed out at `/authorize`, waiting to be redeemed at `/token`.
struct Grant {
    client_id: String,
    redirect_uri: String,
    /// The PKCE `code_challenge` (S256).
    challenge: String,
    scope: String,
    resource: String,
}

struct Keys {
    rs: EncodingKey,
    es: EncodingKey,
    jwks: String,
    issuer: String,
    fetches: AtomicUsize,
    /// Registered clients: their redirect URIs, by client id.
    clients: Mutex<HashMap<String, Vec<String>>>,
    /// Codes not yet redeemed.
    codes: Mutex<HashMap<String, Grant>>,
    /// Codes redeemed for a token.
    redeemed: AtomicUsize,
}

/// The running authorization server.
#[derive(Clone)]
pub struct AuthServer {
    keys: Arc<Keys>,
    /// Where it listens.
    pub addr: SocketAddr,
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(crate::tests_dir().join("fixtures/auth").join(name))
        .expect("the test keys are in tests/fixtures/auth")
}

impl AuthServer {
    /// Start it on an ephemeral loopback port (within a tokio runtime).
    pub async fn start() -> AuthServer {
        let rs = EncodingKey::from_rsa_pem(&fixture("rs256.pem")).expect("an RSA PKCS#8 key");
        let es = EncodingKey::from_ec_pem(&fixture("es256.pem")).expect("a P-256 PKCS#8 key");
        let mut rs_jwk = Jwk::from_encoding_key(&rs, Algorithm::RS256).unwrap();
        rs_jwk.common.key_id = Some("rs-1".into());
        let mut es_jwk = Jwk::from_encoding_key(&es, Algorithm::ES256).unwrap();
        es_jwk.common.key_id = Some("es-1".into());
        let jwks = serde_json::to_string(&JwkSet { keys: vec![rs_jwk, es_jwk] }).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let keys = Arc::new(Keys {
            rs,
            es,
            jwks,
            issuer: format!("http://{addr}"),
            fetches: AtomicUsize::new(0),
            clients: Mutex::default(),
            codes: Mutex::default(),
            redeemed: AtomicUsize::new(0),
        });
        let server = AuthServer { keys, addr };
        let (jwks_keys, token_server) = (Arc::clone(&server.keys), server.clone());
        let (metadata, register, authorize) = (server.clone(), server.clone(), server.clone());
        let app = axum::Router::new()
            .route(
                "/jwks.json",
                axum::routing::get(move || {
                    let keys = Arc::clone(&jwks_keys);
                    async move {
                        keys.fetches.fetch_add(1, Ordering::SeqCst);
                        ([("content-type", "application/json")], keys.jwks.clone())
                    }
                }),
            )
            .route(
                "/token",
                axum::routing::post(move |body: String| {
                    let server = token_server.clone();
                    async move {
                        let fields = form(&body);
                        let field = |name: &str| fields.get(name).cloned().unwrap_or_default();
                        let (status, body) = if field("grant_type") == "authorization_code" {
                            server.redeem(&fields)
                        } else {
                            let token = server
                                .mint(Alg::Rs256, &Claims::new(&field("sub"), &field("scope"), &field("aud")));
                            (200, serde_json::json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600}))
                        };
                        let status = axum::http::StatusCode::from_u16(status).unwrap();
                        (status, [("content-type", "application/json"), ("cache-control", "no-store")], body.to_string())
                    }
                }),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || {
                    let issuer = metadata.issuer().to_owned();
                    async move {
                        let body = serde_json::json!({
                            "issuer": issuer,
                            "authorization_endpoint": format!("{issuer}/authorize"),
                            "token_endpoint": format!("{issuer}/token"),
                            "registration_endpoint": format!("{issuer}/register"),
                            "jwks_uri": format!("{issuer}/jwks.json"),
                            "response_types_supported": ["code"],
                            "grant_types_supported": ["authorization_code"],
                            "code_challenge_methods_supported": ["S256"],
                            "token_endpoint_auth_methods_supported": ["none"],
                        });
                        ([("content-type", "application/json")], body.to_string())
                    }
                }),
            )
            .route(
                "/register",
                axum::routing::post(move |body: String| {
                    let server = register.clone();
                    async move {
                        let (status, body) = server.register(&body);
                        let status = axum::http::StatusCode::from_u16(status).unwrap();
                        (status, [("content-type", "application/json")], body.to_string())
                    }
                }),
            )
            .route(
                "/authorize",
                axum::routing::get(move |uri: axum::http::Uri| {
                    let server = authorize.clone();
                    async move { server.authorize(uri.query().unwrap_or_default()) }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        server
    }

    /// Its issuer URL (`http://127.0.0.1:<port>`).
    pub fn issuer(&self) -> &str {
        &self.keys.issuer
    }

    /// Its JWKS URL.
    pub fn jwks_url(&self) -> String {
        format!("{}/jwks.json", self.keys.issuer)
    }

    /// How many times the JWKS has been fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.keys.fetches.load(Ordering::SeqCst)
    }

    /// How many authorization codes have been redeemed for a token at `/token`.
    pub fn codes_redeemed(&self) -> usize {
        self.keys.redeemed.load(Ordering::SeqCst)
    }

    /// `POST /register` (RFC 7591): a public client with the redirect URIs it names; its
    /// metadata is echoed back with its new `client_id`.
    fn register(&self, body: &str) -> (u16, serde_json::Value) {
        let refuse = |why: &str| {
            (400, serde_json::json!({"error": "invalid_client_metadata", "error_description": why}))
        };
        let Ok(serde_json::Value::Object(mut metadata)) = serde_json::from_str(body) else {
            return refuse("the body is not a JSON object");
        };
        let uris: Vec<String> = match metadata.get("redirect_uris").and_then(|v| v.as_array()) {
            Some(uris) if !uris.is_empty() => {
                uris.iter().filter_map(|u| u.as_str()).map(str::to_owned).collect()
            }
            _ => return refuse("redirect_uris is required"),
        };
        if metadata.get("token_endpoint_auth_method").and_then(|v| v.as_str()).is_some_and(|m| m != "none") {
            return refuse("only public clients (token_endpoint_auth_method none) are registered here");
        }
        let mut clients = self.keys.clients.lock().unwrap();
        let client_id = format!("client-{}", clients.len() + 1);
        clients.insert(client_id.clone(), uris);
        metadata.insert("client_id".into(), client_id.into());
        metadata.insert("token_endpoint_auth_method".into(), "none".into());
        metadata.insert("client_id_issued_at".into(), now().into());
        (201, serde_json::Value::Object(metadata))
    }

    /// `GET /authorize`: [`USER`] consents at once; a redirect with a code, or 400 saying why
    /// not (never a redirect to a URI the client did not register).
    fn authorize(&self, query: &str) -> axum::response::Response {
        use axum::response::IntoResponse as _;
        let q = form(query);
        let get = |name: &str| q.get(name).cloned().unwrap_or_default();
        let (client_id, redirect_uri) = (get("client_id"), get("redirect_uri"));
        let registered = self.keys.clients.lock().unwrap().get(&client_id).cloned();
        let refusal = match registered {
            None => Some(format!("unknown client_id '{client_id}'")),
            Some(uris) if !uris.contains(&redirect_uri) => {
                Some(format!("redirect_uri '{redirect_uri}' is not registered"))
            }
            Some(_) if get("response_type") != "code" => Some("response_type must be code".to_owned()),
            Some(_) if get("code_challenge_method") != "S256" || get("code_challenge").is_empty() => {
                Some("PKCE with code_challenge_method S256 is required".to_owned())
            }
            Some(_) if get("resource").is_empty() => Some("resource (RFC 8707) is required".to_owned()),
            Some(_) => None,
        };
        if let Some(why) = refusal {
            return (axum::http::StatusCode::BAD_REQUEST, why).into_response();
        }
        let code = format!("code-{}-{}", now(), self.keys.codes.lock().unwrap().len() + 1);
        let grant = Grant {
            client_id,
            redirect_uri: redirect_uri.clone(),
            challenge: get("code_challenge"),
            scope: get("scope"),
            resource: get("resource"),
        };
        self.keys.codes.lock().unwrap().insert(code.clone(), grant);
        let separator = if redirect_uri.contains('?') { '&' } else { '?' };
        let location =
            format!("{redirect_uri}{separator}code={code}&state={}", percent_encode(&get("state")));
        (axum::http::StatusCode::FOUND, [("location", location)]).into_response()
    }

    /// `POST /token` with `grant_type=authorization_code`: the code redeemed once, for the
    /// client and redirect URI it was given to, with the PKCE verifier of its challenge.
    fn redeem(&self, fields: &HashMap<String, String>) -> (u16, serde_json::Value) {
        use base64::Engine as _;
        use sha2::Digest as _;
        let get = |name: &str| fields.get(name).cloned().unwrap_or_default();
        let invalid =
            |why: &str| (400, serde_json::json!({"error": "invalid_grant", "error_description": why}));
        let Some(grant) = self.keys.codes.lock().unwrap().remove(&get("code")) else {
            return invalid("unknown or already redeemed code");
        };
        if grant.client_id != get("client_id") || grant.redirect_uri != get("redirect_uri") {
            return invalid("the code was issued to another client or redirect_uri");
        }
        let verifier = sha2::Sha256::digest(get("code_verifier").as_bytes());
        if base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(verifier) != grant.challenge {
            return invalid("code_verifier does not match the code_challenge");
        }
        self.keys.redeemed.fetch_add(1, Ordering::SeqCst);
        let token = self.mint(Alg::Rs256, &Claims::new(USER, &grant.scope, &grant.resource));
        (
            200,
            serde_json::json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": grant.scope}),
        )
    }

    /// A signed access token saying `claims`, issued by this server.
    pub fn mint(&self, alg: Alg, claims: &Claims) -> String {
        let now = now();
        let mut body = serde_json::json!({
            "iss": self.keys.issuer,
            "sub": claims.sub,
            "aud": claims.aud,
            "scope": claims.scope,
            "iat": now,
            "exp": now + claims.expires_in,
        });
        if let Some(t) = &claims.tenant {
            body["tenant"] = t.clone().into();
        }
        let (header, key) = match alg {
            Alg::Rs256 => {
                (Header { kid: Some("rs-1".into()), ..Header::new(Algorithm::RS256) }, &self.keys.rs)
            }
            Alg::Es256 => {
                (Header { kid: Some("es-1".into()), ..Header::new(Algorithm::ES256) }, &self.keys.es)
            }
        };
        let header = Header { typ: claims.typ.clone(), ..header };
        jsonwebtoken::encode(&header, &body, key).expect("the test keys sign")
    }

    /// A token whose claims were changed after `claims` were signed: its signature no
    /// longer verifies. `forged_sub` is the subject it claims.
    pub fn mint_forged(&self, claims: &Claims, forged_sub: &str) -> String {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let token = self.mint(Alg::Rs256, claims);
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut body: serde_json::Value = serde_json::from_slice(&b64.decode(&parts[1]).unwrap()).unwrap();
        body["sub"] = forged_sub.into();
        parts[1] = b64.encode(body.to_string());
        parts.join(".")
    }
}

/// Seconds since the epoch.
fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// The fields of an `application/x-www-form-urlencoded` text (a body, or a query).
fn form(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
