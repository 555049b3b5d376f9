//! The authorization server's endpoints as a client uses them: registration (RFC 7591), the
//! authorization request with PKCE (RFC 7636, `S256`) and a resource indicator (RFC 8707),
//! the authorization response's checks (`state`, RFC 9207 `iss`), and the token endpoint
//! (authorization code, refresh, client credentials) with the client authentication the
//! registration calls for: `client_secret_basic`, `client_secret_post`, `none`, or a signed
//! JWT (`private_key_jwt`, RFC 7523).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use url::Url;
use url::form_urlencoded::Serializer;

use super::discovery::AuthServer;
use super::dpop::Dpop;
use super::fetch::{Answer, Fetch};
use super::store::{Registration, Tokens};
use crate::base64::{HEADER, URL};

/// The PKCE verifier and its `S256` challenge.
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl Pkce {
    /// A fresh verifier: 32 random bytes, base64url (43 characters, RFC 7636 §4.1).
    pub(crate) fn new() -> Pkce {
        let verifier = random_token();
        let challenge = URL.encode(hmac_sha256::Hash::hash(verifier.as_bytes()));
        Pkce { verifier, challenge }
    }
}

/// 32 random bytes, base64url: a PKCE verifier, a `state`, a JWT id.
pub(crate) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    crate::random::fill(&mut bytes);
    URL.encode(bytes)
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// How a client proves who it is at the token endpoint, beside its registration.
#[derive(Clone)]
pub(crate) enum Assertion {
    /// A private key (PEM) and its JWS algorithm (`ES256`, `RS256`, ...).
    Jwt { pem: String, algorithm: String },
}

/// The authorization request's URL.
pub(crate) fn authorization_url(
    server: &AuthServer,
    client_id: &str,
    redirect_uri: &str,
    pkce: &Pkce,
    state: &str,
    scopes: &[String],
    resource: &str,
) -> Result<String, String> {
    let mut url = Url::parse(&server.authorization_endpoint).map_err(|_| {
        format!("the authorization endpoint '{}' is not a URL", server.authorization_endpoint)
    })?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", state);
        if !scopes.is_empty() {
            q.append_pair("scope", &scopes.join(" "));
        }
        // OpenID Connect Core §11: `offline_access` is honoured only with consent asked for.
        if scopes.iter().any(|s| s == "offline_access") {
            q.append_pair("prompt", "consent");
        }
        q.append_pair("resource", resource);
    }
    Ok(url.into())
}

/// Read the authorization response (the URL the person's browser was sent back to): its
/// `state` must be ours, its `iss` the issuer's (RFC 9207 §2.4, compared as strings, and
/// required when the server said it sends one) before anything else in it is believed.
/// `Ok` is the code; `Err` says why not, and whether a person declined.
pub(crate) fn read_callback(
    server: &AuthServer,
    callback: &str,
    state: &str,
) -> Result<String, (String, bool)> {
    let url =
        Url::parse(callback).map_err(|_| ("the authorization response is not a URL".to_owned(), false))?;
    let param = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    if param("state").as_deref() != Some(state) {
        return Err((
            "the authorization response's state is not the one sent; it was not used (a forged or stale response)"
                .to_owned(),
            false,
        ));
    }
    match param("iss") {
        Some(iss) if iss != server.issuer => {
            return Err((
                format!(
                    "the authorization response came from issuer '{iss}', not '{}'; it was not used (RFC 9207)",
                    server.issuer
                ),
                false,
            ));
        }
        None if server.iss_parameter_supported => {
            return Err((
                format!(
                    "the authorization response has no iss, though {} says it sends one; it was not used (RFC 9207)",
                    server.issuer
                ),
                false,
            ));
        }
        _ => {}
    }
    if let Some(error) = param("error") {
        let declined = error == "access_denied";
        let reason = if declined {
            "the person did not authorize the client (access_denied)".to_owned()
        } else {
            format!("the authorization server refused the authorization request ({})", sanitize(&error))
        };
        return Err((reason, declined));
    }
    param("code").ok_or_else(|| ("the authorization response has no code".to_owned(), false))
}

/// Register the client (RFC 7591), asking for the authentication method the server supports
/// that a public native client would choose.
pub(crate) async fn register(
    fetch: &Fetch,
    server: &AuthServer,
    endpoint: &str,
    metadata: &Value,
) -> Result<Registration, String> {
    let method = if server.supports_auth("none") {
        "none"
    } else if server.supports_auth("client_secret_basic") {
        "client_secret_basic"
    } else {
        "client_secret_post"
    };
    let mut body = metadata.clone();
    body["token_endpoint_auth_method"] = json!(method);
    let answer = fetch.post_json(endpoint, &body).await?;
    if !answer.ok {
        return Err(format!(
            "the authorization server {} refused to register the client: {}",
            server.issuer,
            oauth_error(&answer)
        ));
    }
    let client_id = answer.json.get("client_id").and_then(Value::as_str).ok_or_else(|| {
        format!("the authorization server {} registered the client without a client_id", server.issuer)
    })?;
    let secret = answer.json.get("client_secret").and_then(Value::as_str).map(str::to_owned);
    let auth_method = match answer.json.get("token_endpoint_auth_method").and_then(Value::as_str) {
        Some(m) => m.to_owned(),
        None if secret.is_none() => "none".to_owned(),
        None => method.to_owned(),
    };
    Ok(Registration {
        issuer: server.issuer.clone(),
        client_id: client_id.to_owned(),
        client_secret: secret,
        auth_method,
        dynamic: true,
    })
}

/// A grant's own parameters.
pub(crate) enum Grant<'a> {
    Code {
        code: &'a str,
        redirect_uri: &'a str,
        verifier: &'a str,
    },
    Refresh {
        refresh_token: &'a str,
    },
    ClientCredentials {
        scopes: &'a [String],
    },
    /// RFC 7523 §2.1: a JWT the client was issued (a workload's identity) as the grant.
    JwtBearer {
        assertion: &'a str,
        scopes: &'a [String],
    },
}

/// Why a token request failed.
pub(crate) struct TokenError {
    pub(crate) reason: String,
    /// `invalid_grant`: the code or refresh token is no good (a person must sign in again).
    pub(crate) invalid_grant: bool,
    /// `invalid_client`: the server no longer knows the client (a revoked registration).
    pub(crate) invalid_client: bool,
}

/// Ask the token endpoint for tokens.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn request_tokens(
    fetch: &Fetch,
    issuer: &str,
    token_endpoint: &str,
    registration: &Registration,
    assertion: Option<&Assertion>,
    grant: Grant<'_>,
    resource: &str,
    requested: Vec<String>,
    dpop: Option<&Dpop>,
) -> Result<Tokens, TokenError> {
    let failed = |reason: String| TokenError { reason, invalid_grant: false, invalid_client: false };
    let mut tries = 0;
    let answer = loop {
        tries += 1;
        let (form, authorization) =
            token_form(issuer, registration, assertion, &grant, resource).map_err(failed)?;
        let proof = dpop.map(|d| d.proof("POST", token_endpoint, None));
        let answer = fetch
            .post_form(token_endpoint, form, authorization.as_deref(), proof.as_deref())
            .await
            .map_err(failed)?;
        if let (Some(d), Some(nonce)) = (dpop, &answer.dpop_nonce) {
            d.set_nonce(token_endpoint, nonce);
        }
        // RFC 9449 §8: a server that wants a nonce says so once; the proof is made again with it.
        let wants_nonce = answer.json.get("error").and_then(Value::as_str) == Some("use_dpop_nonce");
        if answer.ok || !wants_nonce || answer.dpop_nonce.is_none() || dpop.is_none() || tries == 2 {
            break answer;
        }
    };
    if !answer.ok {
        let code = answer.json.get("error").and_then(Value::as_str).unwrap_or_default();
        return Err(TokenError {
            reason: format!("the token endpoint of {} refused the request: {}", issuer, oauth_error(&answer)),
            invalid_grant: code == "invalid_grant",
            invalid_client: code == "invalid_client",
        });
    }
    let j = &answer.json;
    let access_token = j.get("access_token").and_then(Value::as_str).ok_or_else(|| {
        failed(format!("the token endpoint of {} answered without an access_token", issuer))
    })?;
    let token_type = j.get("token_type").and_then(Value::as_str).unwrap_or("Bearer");
    let dpop_bound = dpop.is_some() && token_type.eq_ignore_ascii_case("dpop");
    if !token_type.eq_ignore_ascii_case("bearer") && !dpop_bound {
        return Err(failed(format!(
            "the token endpoint of {} issued a '{}' token; this client sends Bearer and DPoP tokens only",
            issuer,
            sanitize(token_type)
        )));
    }
    let granted = j.get("scope").and_then(Value::as_str).map(super::challenge::split_scopes);
    Ok(Tokens {
        access_token: access_token.to_owned(),
        token_type: if dpop_bound { "DPoP" } else { "Bearer" }.to_owned(),
        refresh_token: j.get("refresh_token").and_then(Value::as_str).map(str::to_owned),
        expires_at: j.get("expires_in").and_then(Value::as_u64).map(|s| now() + s),
        granted: granted.unwrap_or_else(|| requested.clone()),
        requested,
        issuer: issuer.to_owned(),
        token_endpoint: token_endpoint.to_owned(),
        resource: resource.to_owned(),
    })
}

/// Exchange an enterprise identity provider's ID token for an identity assertion grant
/// (ID-JAG, SEP-990) for the authorization server `audience` and `resource` (RFC 8693).
pub(crate) async fn exchange_for_id_jag(
    fetch: &Fetch,
    idp_token_endpoint: &str,
    idp_client_id: &str,
    id_token: &str,
    audience: &str,
    resource: &str,
) -> Result<String, String> {
    let form = {
        let mut form = Serializer::new(String::new());
        form.append_pair("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange")
            .append_pair("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag")
            .append_pair("audience", audience)
            .append_pair("resource", resource)
            .append_pair("subject_token", id_token)
            .append_pair("subject_token_type", "urn:ietf:params:oauth:token-type:id_token")
            .append_pair("client_id", idp_client_id);
        form.finish()
    };
    let answer = fetch.post_form(idp_token_endpoint, form, None, None).await?;
    if !answer.ok {
        return Err(format!(
            "the identity provider at {idp_token_endpoint} refused to exchange the ID token: {}",
            oauth_error(&answer)
        ));
    }
    answer.json.get("access_token").and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
        format!("the identity provider at {idp_token_endpoint} answered the exchange without a token")
    })
}

/// A token request's form and `Authorization` header.
fn token_form(
    issuer: &str,
    registration: &Registration,
    assertion: Option<&Assertion>,
    grant: &Grant<'_>,
    resource: &str,
) -> Result<(String, Option<String>), String> {
    let mut form = Serializer::new(String::new());
    match grant {
        Grant::Code { code, redirect_uri, verifier } => {
            form.append_pair("grant_type", "authorization_code")
                .append_pair("code", code)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("code_verifier", verifier);
        }
        Grant::Refresh { refresh_token } => {
            form.append_pair("grant_type", "refresh_token").append_pair("refresh_token", refresh_token);
        }
        Grant::JwtBearer { assertion, scopes } => {
            form.append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
                .append_pair("assertion", assertion);
            if !scopes.is_empty() {
                form.append_pair("scope", &scopes.join(" "));
            }
        }
        Grant::ClientCredentials { scopes } => {
            form.append_pair("grant_type", "client_credentials");
            if !scopes.is_empty() {
                form.append_pair("scope", &scopes.join(" "));
            }
        }
    }
    form.append_pair("resource", resource);
    let mut authorization = None;
    match (assertion, registration.auth_method.as_str()) {
        (Some(Assertion::Jwt { pem, algorithm }), _) => {
            let jwt = client_assertion(&registration.client_id, issuer, pem, algorithm)?;
            form.append_pair("client_id", &registration.client_id)
                .append_pair(
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                )
                .append_pair("client_assertion", &jwt);
        }
        (None, "client_secret_basic") => {
            let secret = registration.client_secret.as_deref().unwrap_or_default();
            // RFC 6749 §2.3.1: each form-encoded, then joined with a colon.
            let pair = format!("{}:{}", form_encode(&registration.client_id), form_encode(secret));
            authorization = Some(format!("Basic {}", HEADER.encode(pair.as_bytes())));
        }
        (None, "client_secret_post") => {
            form.append_pair("client_id", &registration.client_id)
                .append_pair("client_secret", registration.client_secret.as_deref().unwrap_or_default());
        }
        (None, _) => {
            form.append_pair("client_id", &registration.client_id);
        }
    }
    Ok((form.finish(), authorization))
}

/// A client assertion (RFC 7523 §2.2): `iss` and `sub` the client, `aud` the issuer, valid
/// for 5 minutes, signed with `pem`.
fn client_assertion(client_id: &str, issuer: &str, pem: &str, algorithm: &str) -> Result<String, String> {
    use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
    let alg: Algorithm = algorithm
        .parse()
        .map_err(|_| format!("'{algorithm}' is not a JWS algorithm this client signs with"))?;
    let key = match alg {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|e| format!("the client's private key could not be read as {algorithm} PEM: {e}"))?;
    let now = now();
    let claims = json!({
        "iss": client_id, "sub": client_id, "aud": issuer,
        "iat": now, "exp": now + 300, "jti": random_token(),
    });
    encode(&Header::new(alg), &claims, &key)
        .map_err(|e| format!("the client assertion could not be signed: {e}"))
}

/// `application/x-www-form-urlencoded` of one value.
fn form_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// An OAuth error answer as a short text of ours: the `error` code (a token from a fixed
/// vocabulary, shown cleaned), never the server's free-text description.
fn oauth_error(answer: &Answer) -> String {
    match answer.json.get("error").and_then(Value::as_str) {
        Some(code) => format!("HTTP {}, error {}", answer.status, sanitize(code)),
        None => format!("HTTP {}", answer.status),
    }
}

/// A server-given token shown in our messages: printable ASCII only, at most 64 characters.
fn sanitize(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_graphic()).take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(iss_supported: bool) -> AuthServer {
        AuthServer {
            issuer: "https://as.example.com".into(),
            authorization_endpoint: "https://as.example.com/authorize?x=1".into(),
            token_endpoint: "https://as.example.com/token".into(),
            registration_endpoint: None,
            scopes_supported: None,
            grant_types_supported: None,
            auth_methods_supported: None,
            iss_parameter_supported: iss_supported,
            cimd_supported: false,
            pkce_s256: true,
            dpop_es256: false,
        }
    }

    #[test]
    fn pkce_is_s256_of_a_43_character_verifier() {
        let p = Pkce::new();
        assert_eq!(p.verifier.len(), 43);
        // RFC 7636 appendix B.
        let known = URL.encode(hmac_sha256::Hash::hash(b"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
        assert_eq!(known, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        let url = authorization_url(
            &server(false),
            "c",
            "http://127.0.0.1:9/cb",
            &p,
            "st",
            &["a".into(), "b".into()],
            "https://mcp.example.com/mcp",
        )
        .unwrap();
        assert!(url.starts_with("https://as.example.com/authorize?x=1&response_type=code&client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb&code_challenge="), "{url}");
        assert!(
            url.ends_with(
                "&code_challenge_method=S256&state=st&scope=a+b&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"
            ),
            "{url}"
        );
    }

    #[test]
    fn the_callback_is_checked_before_it_is_believed() {
        let ok = "http://127.0.0.1:9/cb?code=abc&state=st&iss=https%3A%2F%2Fas.example.com";
        assert_eq!(read_callback(&server(true), ok, "st").unwrap(), "abc");
        let err = |s: &AuthServer, url: &str| read_callback(s, url, "st").unwrap_err();
        assert_eq!(
            err(&server(false), "http://127.0.0.1:9/cb?code=abc&state=other").0,
            "the authorization response's state is not the one sent; it was not used (a forged or stale response)"
        );
        assert_eq!(
            err(
                &server(false),
                "http://127.0.0.1:9/cb?code=abc&state=st&iss=https%3A%2F%2Fas.example.com%2F"
            )
            .0,
            "the authorization response came from issuer 'https://as.example.com/', not 'https://as.example.com'; it was not used (RFC 9207)"
        );
        assert_eq!(
            err(&server(true), "http://127.0.0.1:9/cb?code=abc&state=st").0,
            "the authorization response has no iss, though https://as.example.com says it sends one; it was not used (RFC 9207)"
        );
        assert_eq!(
            read_callback(&server(false), "http://127.0.0.1:9/cb?code=abc&state=st", "st").unwrap(),
            "abc"
        );
        // An error from the wrong issuer is not acted on; a declined one needs a person.
        let wrong = "http://127.0.0.1:9/cb?error=access_denied&state=st&iss=https%3A%2F%2Fevil.example.com";
        assert!(
            err(&server(false), wrong)
                .0
                .starts_with("the authorization response came from issuer 'https://evil.example.com'")
        );
        assert_eq!(
            err(&server(false), "http://127.0.0.1:9/cb?error=access_denied&state=st"),
            ("the person did not authorize the client (access_denied)".to_owned(), true)
        );
        assert_eq!(
            err(&server(false), "http://127.0.0.1:9/cb?error=server_error%0A%1b[31m&state=st").0,
            "the authorization server refused the authorization request (server_error[31m)"
        );
        assert_eq!(
            err(&server(false), "http://127.0.0.1:9/cb?state=st").0,
            "the authorization response has no code"
        );
    }
}
