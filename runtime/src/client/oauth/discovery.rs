//! Finding who authorizes a server: its protected resource metadata (RFC 9728), checked to
//! name this server, then its authorization server's metadata (RFC 8414, then OpenID Connect
//! Discovery), checked to name the issuer it was fetched for.
//!
//! | step | where the client looks, in order |
//! | --- | --- |
//! | resource metadata | the `resource_metadata` URL of the 401's `WWW-Authenticate`; else `/.well-known/oauth-protected-resource/<path>` (the endpoint's path); else `/.well-known/oauth-protected-resource` |
//! | authorization server metadata, issuer with a path `/t` | `/.well-known/oauth-authorization-server/t`, `/.well-known/openid-configuration/t`, `/t/.well-known/openid-configuration` |
//! | authorization server metadata, issuer without a path | `/.well-known/oauth-authorization-server`, `/.well-known/openid-configuration` |
//!
//! A server with no resource metadata anywhere is taken as a 2025-03-26 server: its own
//! origin is the authorization server, whose metadata is looked for as above, and without
//! metadata the endpoints `/authorize`, `/token` and `/register` at that origin are used.
//!
//! Refused, each with a reason naming the documents involved: resource metadata whose
//! `resource` is not this server (another origin, or a path this endpoint is not under);
//! authorization server metadata whose `issuer` is not, character for character, the issuer
//! it was fetched for (RFC 8414 §3.3), which is then not used at all; metadata without PKCE's
//! `S256` in `code_challenge_methods_supported`, for the authorization code grant (checked
//! there: a client acting on its own behalf needs no PKCE).

use serde_json::Value;
use url::Url;

use super::challenge::Challenge;
use super::fetch::Fetch;

/// An authorization server, as its metadata describes it.
#[derive(Debug, Clone)]
pub(crate) struct AuthServer {
    /// Its issuer identifier (RFC 8414), checked against the metadata document.
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) grant_types_supported: Option<Vec<String>>,
    pub(crate) auth_methods_supported: Option<Vec<String>>,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub(crate) iss_parameter_supported: bool,
    /// `client_id_metadata_document_supported`.
    pub(crate) cimd_supported: bool,
    /// Whether it offers PKCE with `S256` (the authorization code grant requires it).
    pub(crate) pkce_s256: bool,
    /// Whether it binds tokens to a DPoP key signed with ES256 (`dpop_signing_alg_values_supported`).
    pub(crate) dpop_es256: bool,
}

impl AuthServer {
    /// Whether the metadata lists `method` among the token endpoint's client authentication
    /// methods (RFC 8414's default, when it lists none, is `client_secret_basic`).
    pub(crate) fn supports_auth(&self, method: &str) -> bool {
        match &self.auth_methods_supported {
            Some(list) => list.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }
}

/// What discovery found for one MCP endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Discovered {
    /// The `resource` parameter (RFC 8707): the resource metadata's, else the endpoint's.
    pub(crate) resource: String,
    /// The resource metadata's `scopes_supported`.
    pub(crate) scopes_supported: Option<Vec<String>>,
    /// Whether the resource metadata says it takes DPoP-bound tokens
    /// (`dpop_signing_alg_values_supported` or `dpop_bound_access_tokens_required`, RFC 9449 §5.2).
    pub(crate) resource_dpop: bool,
    pub(crate) server: AuthServer,
}

/// Discover the authorization server of `endpoint`, after a 401 carrying `challenge`.
pub(crate) async fn discover(
    fetch: &Fetch,
    endpoint: &str,
    challenge: &Challenge,
) -> Result<Discovered, String> {
    let url = Url::parse(endpoint).map_err(|_| format!("'{endpoint}' is not a URL"))?;
    let Some((prm_url, prm)) = resource_metadata(fetch, &url, challenge).await? else {
        // No resource metadata: a 2025-03-26 server, authorized by its own origin.
        let origin = url.origin().ascii_serialization();
        let server = match auth_server_metadata(fetch, &origin).await? {
            Some(server) => server,
            None => default_endpoints(&origin),
        };
        return Ok(Discovered {
            resource: canonical(&url),
            scopes_supported: None,
            resource_dpop: false,
            server,
        });
    };
    let resource = match prm.get("resource").and_then(Value::as_str) {
        Some(r) => r.to_owned(),
        None => return Err(format!("the protected resource metadata at {prm_url} names no resource")),
    };
    if !names_endpoint(&resource, &url) {
        return Err(format!(
            "the protected resource metadata at {prm_url} is for '{resource}', not for this server ({endpoint}); it was not used"
        ));
    }
    let issuer = prm
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find_map(Value::as_str))
        .ok_or_else(|| format!("the protected resource metadata at {prm_url} names no authorization server"))?
        .to_owned();
    let server = auth_server_metadata(fetch, &issuer).await?.ok_or_else(|| {
        format!(
            "the authorization server {issuer} publishes no metadata (RFC 8414 or OpenID Connect discovery)"
        )
    })?;
    let resource_dpop = prm.get("dpop_bound_access_tokens_required") == Some(&Value::Bool(true))
        || strings(prm.get("dpop_signing_alg_values_supported"))
            .is_some_and(|a| a.iter().any(|a| a == "ES256"));
    Ok(Discovered { resource, scopes_supported: strings(prm.get("scopes_supported")), resource_dpop, server })
}

/// The resource metadata and where it was found, or `None` when no location has it.
async fn resource_metadata(
    fetch: &Fetch,
    endpoint: &Url,
    challenge: &Challenge,
) -> Result<Option<(String, Value)>, String> {
    let mut candidates = Vec::new();
    if let Some(u) = &challenge.resource_metadata {
        candidates.push(u.clone());
    }
    let origin = endpoint.origin().ascii_serialization();
    let path = endpoint.path().trim_end_matches('/');
    if !path.is_empty() {
        candidates.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    for candidate in candidates {
        if let Some(doc) = fetch.get_json(&candidate).await.unwrap_or_else(|e| {
            tracing::debug!(url = %candidate, error = %e, "no protected resource metadata");
            None
        }) {
            return Ok(Some((candidate, doc)));
        }
    }
    Ok(None)
}

/// The metadata of the authorization server `issuer`, tried at each well-known location;
/// `None` when none has a document. A document naming another issuer is never used.
async fn auth_server_metadata(fetch: &Fetch, issuer: &str) -> Result<Option<AuthServer>, String> {
    let url = Url::parse(issuer).map_err(|_| format!("the authorization server '{issuer}' is not a URL"))?;
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    let mut refused = None;
    for candidate in candidates {
        let doc = match fetch.get_json(&candidate).await {
            Ok(Some(doc)) => doc,
            Ok(None) => continue,
            Err(e) => {
                tracing::debug!(url = %candidate, error = %e, "no authorization server metadata");
                continue;
            }
        };
        let named = doc.get("issuer").and_then(Value::as_str).unwrap_or_default();
        // RFC 8414 §3.3: identical, by simple string comparison.
        if named != issuer {
            refused.get_or_insert(format!(
                "the authorization server metadata at {candidate} names issuer '{named}', not '{issuer}'; it was not used"
            ));
            continue;
        }
        return read_metadata(&candidate, issuer, &doc).map(Some);
    }
    match refused {
        Some(reason) => Err(reason),
        None => Ok(None),
    }
}

/// The metadata document `doc`, found at `at`, for `issuer`.
fn read_metadata(at: &str, issuer: &str, doc: &Value) -> Result<AuthServer, String> {
    let endpoint = |name: &str| doc.get(name).and_then(Value::as_str).map(str::to_owned);
    let required = |name: &str| {
        endpoint(name).ok_or_else(|| format!("the authorization server metadata at {at} has no {name}"))
    };
    let pkce = strings(doc.get("code_challenge_methods_supported")).unwrap_or_default();
    Ok(AuthServer {
        pkce_s256: pkce.iter().any(|m| m == "S256"),
        issuer: issuer.to_owned(),
        authorization_endpoint: required("authorization_endpoint")?,
        token_endpoint: required("token_endpoint")?,
        registration_endpoint: endpoint("registration_endpoint"),
        scopes_supported: strings(doc.get("scopes_supported")),
        grant_types_supported: strings(doc.get("grant_types_supported")),
        auth_methods_supported: strings(doc.get("token_endpoint_auth_methods_supported")),
        iss_parameter_supported: doc.get("authorization_response_iss_parameter_supported")
            == Some(&Value::Bool(true)),
        cimd_supported: doc.get("client_id_metadata_document_supported") == Some(&Value::Bool(true)),
        dpop_es256: strings(doc.get("dpop_signing_alg_values_supported"))
            .is_some_and(|algs| algs.iter().any(|a| a == "ES256")),
    })
}

/// A 2025-03-26 server without metadata: the default endpoints at its origin.
fn default_endpoints(origin: &str) -> AuthServer {
    AuthServer {
        issuer: origin.to_owned(),
        authorization_endpoint: format!("{origin}/authorize"),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
        scopes_supported: None,
        grant_types_supported: None,
        auth_methods_supported: Some(vec![
            "none".into(),
            "client_secret_basic".into(),
            "client_secret_post".into(),
        ]),
        iss_parameter_supported: false,
        cimd_supported: false,
        // A 2025-03-26 server without metadata: PKCE is sent, as that revision required.
        pkce_s256: true,
        dpop_es256: false,
    }
}

/// An array of strings, if `v` is one.
fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

/// Whether resource metadata's `resource` names `endpoint`: the same origin (scheme and host
/// compared without case, default ports elided), and a path the endpoint's is, or is under.
pub(crate) fn names_endpoint(resource: &str, endpoint: &Url) -> bool {
    let Ok(r) = Url::parse(resource) else { return false };
    if r.fragment().is_some() || r.origin() != endpoint.origin() {
        return false;
    }
    let base = r.path().trim_end_matches('/');
    let path = endpoint.path();
    path.trim_end_matches('/') == base || path.starts_with(&format!("{base}/"))
}

/// The endpoint as a resource indicator: no fragment, no query.
pub(crate) fn canonical(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    u.set_query(None);
    let s = u.to_string();
    // `Url` gives an empty path as `/`; the canonical form has none (2025-11-25).
    if u.path() == "/" { s.trim_end_matches('/').to_owned() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_names_this_endpoint_or_a_parent_path() {
        let e = Url::parse("http://localhost:3000/mcp").unwrap();
        assert!(names_endpoint("http://localhost:3000/mcp", &e));
        assert!(names_endpoint("http://localhost:3000", &e));
        assert!(names_endpoint("HTTP://LOCALHOST:3000/", &e));
        assert!(!names_endpoint("https://evil.example.com/mcp", &e));
        assert!(!names_endpoint("http://localhost:3001/mcp", &e));
        assert!(!names_endpoint("http://localhost:3000/mc", &e));
        assert!(!names_endpoint("http://localhost:3000/mcp/deeper", &e));
        assert!(!names_endpoint("not a url", &e));
        assert_eq!(canonical(&Url::parse("https://A.example.com/#x").unwrap()), "https://a.example.com");
        assert_eq!(
            canonical(&Url::parse("https://a.example.com/mcp?x=1").unwrap()),
            "https://a.example.com/mcp"
        );
    }
}
