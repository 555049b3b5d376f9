//! A small OAuth authorization server on loopback, for the resource-server tests: it serves
//! its JWKS (one RS256 and one ES256 key, the test keys in `tests/fixtures/auth/`), counts
//! how often the JWKS is fetched, mints access tokens with chosen claims, and hands them out
//! at `POST /token` (form fields `sub`, `scope`, `aud`) for peers that fetch their own.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
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
        Claims { sub: sub.into(), scope: scope.into(), aud: aud.into(), expires_in: 3600, tenant: None, typ: Some("JWT".into()) }
    }
}

struct Keys {
    rs: EncodingKey,
    es: EncodingKey,
    jwks: String,
    issuer: String,
    fetches: AtomicUsize,
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
        let keys =
            Arc::new(Keys { rs, es, jwks, issuer: format!("http://{addr}"), fetches: AtomicUsize::new(0) });
        let server = AuthServer { keys, addr };
        let (jwks_keys, token_server) = (Arc::clone(&server.keys), server.clone());
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
                        let field = |name: &str| {
                            body.split('&')
                                .filter_map(|kv| kv.split_once('='))
                                .find(|(k, _)| *k == name)
                                .map(|(_, v)| v.replace('+', " ").replace("%3A", ":").replace("%2F", "/"))
                                .unwrap_or_default()
                        };
                        let token =
                            server.mint(Alg::Rs256, &Claims::new(&field("sub"), &field("scope"), &field("aud")));
                        let body = serde_json::json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600});
                        ([("content-type", "application/json")], body.to_string())
                    }
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

    /// A signed access token saying `claims`, issued by this server.
    pub fn mint(&self, alg: Alg, claims: &Claims) -> String {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
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
