//! The flow itself: what [`OAuth`](super::OAuth) does when asked for a header, and when told
//! of a refusal. One flow at a time per `OAuth` (a lock held across it), so requests refused
//! together share the one authorization that follows.

use std::collections::BTreeMap;

use serde_json::json;

use super::challenge::Challenge;
use super::config::{AuthorizationRequest, Config, GrantKind, store_failure};
use super::discovery::{self, AuthServer, Discovered};
use super::dpop::Dpop;
use super::fetch::Fetch;
use super::store::{Credentials, Registration, Tokens};
use super::token::{self, Grant, Pkce, TokenError};
use crate::client::authorizer::{AuthFailure, Exchange, RefusedExchange};

/// How long before its expiry a token counts as expired (clocks differ, requests take time).
const EXPIRY_SKEW: u64 = 5;

pub(crate) struct Flow {
    pub(crate) config: Config,
    fetch: Result<Fetch, String>,
    /// What is known per endpoint, loaded from the store on first use.
    state: tokio::sync::Mutex<BTreeMap<String, Credentials>>,
    /// The DPoP key and the servers' nonces.
    dpop: Dpop,
}

impl Flow {
    pub(crate) fn new(config: Config) -> Flow {
        let fetch = Fetch::new(config.timeout);
        Flow { config, fetch, state: tokio::sync::Mutex::default(), dpop: Dpop::default() }
    }

    fn fetch(&self) -> Result<&Fetch, AuthFailure> {
        self.fetch.as_ref().map_err(|e| AuthFailure::failed(format!("HTTPS could not be set up: {e}")))
    }

    /// The credential headers for a request: the token (refreshed first when it has expired
    /// and can be) as `Authorization`, and for a DPoP-bound one the request's proof; none when
    /// there is no usable token (the 401 that follows starts the flow).
    pub(crate) async fn authorization(
        &self,
        request: Exchange<'_>,
    ) -> Result<Vec<(String, String)>, AuthFailure> {
        let endpoint = request.endpoint;
        let mut state = self.state.lock().await;
        let creds = self.load(&mut state, endpoint)?;
        let Some(tokens) = &creds.tokens else { return Ok(Vec::new()) };
        if tokens.expires_at.is_some_and(|at| at <= token::now() + EXPIRY_SKEW) {
            let refreshed = tokens.refresh_token.is_some() && self.refresh_or_forget(creds, endpoint).await;
            if !refreshed {
                creds.tokens = None;
            }
            self.save(endpoint, creds)?;
        }
        let Some(tokens) = &creds.tokens else { return Ok(Vec::new()) };
        let mut headers = vec![("authorization".to_owned(), bearer(tokens))];
        if tokens.token_type == "DPoP" {
            let proof = self.dpop.proof(request.method, endpoint, Some(&tokens.access_token));
            headers.push(("dpop".to_owned(), proof));
        }
        Ok(headers)
    }

    /// Authorize `endpoint` now, unless a token is kept for it: discovery from the well-known
    /// locations, then the flow a 401 would start.
    pub(crate) async fn sign_in(&self, endpoint: &str) -> Result<(), AuthFailure> {
        let mut state = self.state.lock().await;
        let creds = self.load(&mut state, endpoint)?;
        if creds.tokens.is_some() {
            return Ok(());
        }
        let result = self.renew(creds, endpoint, &Challenge::default(), None).await;
        self.save(endpoint, creds)?;
        result
    }

    /// A 401 or 403: renew what can be renewed; true when the request is worth sending again.
    pub(crate) async fn refused(&self, refusal: RefusedExchange<'_>) -> Result<bool, AuthFailure> {
        let challenge = Challenge::parse(refusal.www_authenticate.unwrap_or_default());
        // RFC 9449 §9: the server wants its nonce in the proof; the same token, once more.
        if challenge.error.as_deref() == Some("use_dpop_nonce")
            && let Some(nonce) = refusal.dpop_nonce
        {
            let fresh = self.dpop.nonce(refusal.endpoint).as_deref() != Some(nonce);
            self.dpop.set_nonce(refusal.endpoint, nonce);
            return Ok(fresh);
        }
        let mut state = self.state.lock().await;
        let creds = self.load(&mut state, refusal.endpoint)?;
        let current = creds.tokens.as_ref().map(bearer);
        if current.is_some() && current.as_deref() != refusal.sent {
            // Renewed since this request was sent (another request's refusal did it).
            return Ok(true);
        }
        let step_up = if refusal.status == 403 {
            if challenge.error.as_deref() != Some("insufficient_scope") {
                return Ok(false);
            }
            let needed = challenge.scopes();
            if needed.is_empty() {
                return Err(AuthFailure::failed(
                    "the server refuses the token for insufficient scope without naming the scope it needs",
                ));
            }
            let prior = creds.tokens.as_ref().map(|t| t.requested.clone()).unwrap_or_default();
            if let Some(t) = &creds.tokens {
                // Step up only when asking can change something: a scope never asked for.
                if needed.iter().all(|s| t.granted.contains(s)) {
                    return Err(AuthFailure::failed(format!(
                        "the server refuses the token for lacking scope '{}', which the authorization server already granted; authorizing again would not help",
                        needed.join(" ")
                    )));
                }
                if needed.iter().all(|s| t.requested.contains(s)) {
                    let missing: Vec<&str> =
                        needed.iter().filter(|s| !t.granted.contains(s)).map(String::as_str).collect();
                    return Err(AuthFailure::failed(format!(
                        "the authorization server did not grant scope '{}', which the server requires (it granted '{}')",
                        missing.join(" "),
                        t.granted.join(" ")
                    )));
                }
            }
            Some(union(prior, needed))
        } else {
            None
        };
        let result = self.renew(creds, refusal.endpoint, &challenge, step_up).await;
        // Whatever happened, what is known now is kept (a dropped registration stays dropped).
        self.save(refusal.endpoint, creds)?;
        result.map(|()| true)
    }

    /// Discover, register, and get a token (or refresh one).
    async fn renew(
        &self,
        creds: &mut Credentials,
        endpoint: &str,
        challenge: &Challenge,
        step_up: Option<Vec<String>>,
    ) -> Result<(), AuthFailure> {
        let fetch = self.fetch()?;
        let found = discovery::discover(fetch, endpoint, challenge).await.map_err(AuthFailure::failed)?;
        let issuer = found.server.issuer.clone();
        // Credentials belong to the issuer that made them (SEP-2352).
        if creds.registration.as_ref().is_some_and(|r| r.issuer != issuer) {
            tracing::info!(endpoint, issuer = %issuer, "the authorization server changed; registering with the new one");
            creds.registration = None;
        }
        let prior = creds.tokens.as_ref().map(|t| t.requested.clone()).unwrap_or_default();
        if creds.tokens.as_ref().is_some_and(|t| t.issuer != issuer) {
            creds.tokens = None;
        }
        if step_up.is_none()
            && creds.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some())
            && self.refresh_or_forget(creds, endpoint).await
        {
            return Ok(());
        }
        let scopes = match step_up {
            Some(scopes) => scopes,
            None => self.scopes(&found, challenge, prior),
        };
        let tokens = match &self.config.grant {
            GrantKind::Machine { client_id, secret, assertion, workload, enterprise } => {
                let registration = Registration {
                    issuer: issuer.clone(),
                    client_id: client_id.clone(),
                    client_secret: secret.clone(),
                    auth_method: secret_method(&found.server, secret.as_deref()),
                    dynamic: false,
                };
                let jwt = match (workload, enterprise) {
                    (Some(token), _) => Some(token().map_err(|e| {
                        AuthFailure::failed(format!("the workload's identity token could not be read: {e}"))
                    })?),
                    (None, Some(idp)) => {
                        let id_token = (idp.id_token)().map_err(|e| {
                            AuthFailure::failed(format!(
                                "the identity provider's ID token could not be read: {e}"
                            ))
                        })?;
                        let jag = token::exchange_for_id_jag(
                            fetch,
                            &idp.token_endpoint,
                            &idp.client_id,
                            &id_token,
                            &issuer,
                            &found.resource,
                        )
                        .await
                        .map_err(AuthFailure::failed)?;
                        Some(jag)
                    }
                    (None, None) => None,
                };
                let grant = match &jwt {
                    Some(jwt) => Grant::JwtBearer { assertion: jwt, scopes: &scopes },
                    None => Grant::ClientCredentials { scopes: &scopes },
                };
                let resource = found.resource.as_str();
                let endpoint = found.server.token_endpoint.as_str();
                token::request_tokens(
                    fetch,
                    &issuer,
                    endpoint,
                    &registration,
                    assertion.as_ref(),
                    grant,
                    resource,
                    scopes.clone(),
                    self.dpop_for(&found, challenge),
                )
                .await
                .map_err(|e| AuthFailure::failed(e.reason))?
            }
            GrantKind::Person => {
                let registration = self.register(creds, &found).await?;
                creds.registration = Some(registration.clone());
                let dpop = self.dpop_for(&found, challenge);
                match self.authorize_code(endpoint, &found, &registration, scopes, dpop).await {
                    Ok(tokens) => tokens,
                    Err((e, invalid_client)) => {
                        if invalid_client && registration.dynamic {
                            // A registration the server no longer knows: the next try registers anew.
                            creds.registration = None;
                        }
                        return Err(e);
                    }
                }
            }
        };
        creds.tokens = Some(tokens);
        Ok(())
    }

    /// The scopes of a first authorization: the challenge's (with those asked for before),
    /// else the resource's `scopes_supported`, else none; plus `offline_access` when offered.
    fn scopes(&self, found: &Discovered, challenge: &Challenge, prior: Vec<String>) -> Vec<String> {
        let challenged = challenge.scopes();
        let mut scopes = if !challenged.is_empty() {
            union(prior, challenged)
        } else if let Some(supported) = &found.scopes_supported {
            supported.clone()
        } else {
            Vec::new()
        };
        let offered =
            found.server.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        if self.config.offline_access
            && matches!(self.config.grant, GrantKind::Person)
            && offered
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".to_owned());
        }
        scopes
    }

    /// The client's registration with `found`'s authorization server, in the spec's order:
    /// the one kept, a pre-registered client, a Client ID Metadata Document, dynamic
    /// registration.
    async fn register(&self, creds: &Credentials, found: &Discovered) -> Result<Registration, AuthFailure> {
        let server = &found.server;
        if let Some(r) = &creds.registration {
            return Ok(r.clone());
        }
        if let Some((client_id, secret, bound)) = &self.config.pre_registered {
            if let Some(bound) = bound.as_ref().filter(|b| **b != server.issuer) {
                return Err(AuthFailure::failed(format!(
                    "the pre-registered client is registered with {bound}, but this server is now authorized by {}; it was not sent there (register the client with {} and configure it)",
                    server.issuer, server.issuer
                )));
            }
            return Ok(Registration {
                issuer: server.issuer.clone(),
                client_id: client_id.clone(),
                client_secret: secret.clone(),
                auth_method: secret_method(server, secret.as_deref()),
                dynamic: false,
            });
        }
        if let Some(url) = self.config.client_metadata_url.as_ref().filter(|_| server.cimd_supported) {
            return Ok(Registration {
                issuer: server.issuer.clone(),
                client_id: url.clone(),
                client_secret: None,
                auth_method: "none".to_owned(),
                dynamic: false,
            });
        }
        let Some(registration_endpoint) = &server.registration_endpoint else {
            return Err(AuthFailure::failed(format!(
                "the authorization server {} offers no dynamic registration{}; configure a pre-registered client (OAuth::pre_registered)",
                server.issuer,
                if self.config.client_metadata_url.is_some() || !server.cimd_supported {
                    ""
                } else {
                    " (it takes Client ID Metadata Documents: OAuth::client_metadata_url)"
                }
            )));
        };
        let refresh =
            server.grant_types_supported.as_ref().is_none_or(|g| g.iter().any(|g| g == "refresh_token"));
        let mut grant_types = vec!["authorization_code"];
        if refresh {
            grant_types.push("refresh_token");
        }
        let metadata = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "grant_types": grant_types,
            "response_types": ["code"],
            "application_type": self.config.application_type,
        });
        token::register(self.fetch()?, server, registration_endpoint, &metadata)
            .await
            .map_err(AuthFailure::failed)
    }

    /// The authorization code grant: the person's step, the response's checks, the token
    /// request. `Err` carries whether the token endpoint refused the client itself.
    async fn authorize_code(
        &self,
        endpoint: &str,
        found: &Discovered,
        registration: &Registration,
        scopes: Vec<String>,
        dpop: Option<&Dpop>,
    ) -> Result<Tokens, (AuthFailure, bool)> {
        let server = &found.server;
        if !server.pkce_s256 {
            return Err((
                AuthFailure::failed(format!(
                    "the authorization server {} does not offer PKCE with S256 (code_challenge_methods_supported), which this client requires",
                    server.issuer
                )),
                false,
            ));
        }
        let Some(authorize) = &self.config.authorize else {
            return Err((
                AuthFailure::needs_person(
                    "it must be authorized in a browser, and this client has no way to ask a person (OAuth::on_authorize)",
                ),
                false,
            ));
        };
        let pkce = Pkce::new();
        let state = token::random_token();
        let redirect_uri = self.config.redirect_uri.as_str();
        let url = token::authorization_url(
            server,
            &registration.client_id,
            redirect_uri,
            &pkce,
            &state,
            &scopes,
            &found.resource,
        )
        .map_err(|e| (AuthFailure::failed(e), false))?;
        let request = AuthorizationRequest {
            url,
            redirect_uri: redirect_uri.to_owned(),
            endpoint: endpoint.to_owned(),
        };
        let callback = authorize(request).await.map_err(|e| {
            (AuthFailure::needs_person(format!("the person's authorization did not complete: {e}")), false)
        })?;
        let code = token::read_callback(server, &callback, &state).map_err(|(reason, declined)| {
            let f = if declined { AuthFailure::needs_person(reason) } else { AuthFailure::failed(reason) };
            (f, false)
        })?;
        let grant = Grant::Code { code: &code, redirect_uri, verifier: &pkce.verifier };
        token::request_tokens(
            self.fetch().map_err(|f| (f, false))?,
            &server.issuer,
            &server.token_endpoint,
            registration,
            None,
            grant,
            &found.resource,
            scopes,
            dpop,
        )
        .await
        .map_err(|e| {
            let invalid_client = e.invalid_client;
            let f = if e.invalid_grant {
                AuthFailure::needs_person(e.reason)
            } else {
                AuthFailure::failed(e.reason)
            };
            (f, invalid_client)
        })
    }

    /// The DPoP key to bind tokens to, when both sides take DPoP: the authorization server
    /// signs ES256 proofs, and the resource offers the `DPoP` scheme in its challenge or says
    /// so in its metadata. Otherwise tokens stay Bearer tokens, which every resource takes.
    fn dpop_for(&self, found: &Discovered, challenge: &Challenge) -> Option<&Dpop> {
        (found.server.dpop_es256 && (challenge.offers_dpop || found.resource_dpop)).then_some(&self.dpop)
    }

    /// Refresh; on failure forget the tokens, and a dynamic registration the server no longer
    /// knows (a revoked one: the next flow registers anew). True when refreshed.
    async fn refresh_or_forget(&self, creds: &mut Credentials, endpoint: &str) -> bool {
        match self.refresh(creds).await {
            Ok(()) => true,
            Err(e) => {
                tracing::debug!(endpoint, reason = %e.reason, "the refresh token was not taken");
                creds.tokens = None;
                if e.invalid_client && creds.registration.as_ref().is_some_and(|r| r.dynamic) {
                    creds.registration = None;
                }
                false
            }
        }
    }

    /// Trade the refresh token for new tokens; the old refresh token is kept when no new one
    /// comes (RFC 6749 §6).
    async fn refresh(&self, creds: &mut Credentials) -> Result<(), TokenError> {
        let failed = |reason: &str| TokenError {
            reason: reason.to_owned(),
            invalid_grant: false,
            invalid_client: false,
        };
        let Some(old) = creds.tokens.clone() else { return Err(failed("no token")) };
        let Some(refresh_token) = old.refresh_token.clone() else { return Err(failed("no refresh token")) };
        let registration = match (&creds.registration, &self.config.grant) {
            (Some(r), _) => r.clone(),
            (None, GrantKind::Machine { client_id, secret, .. }) => Registration {
                issuer: old.issuer.clone(),
                client_id: client_id.clone(),
                client_secret: secret.clone(),
                auth_method: if secret.is_some() { "client_secret_basic" } else { "none" }.to_owned(),
                dynamic: false,
            },
            (None, GrantKind::Person) => return Err(failed("no registration")),
        };
        let assertion = match &self.config.grant {
            GrantKind::Machine { assertion, .. } => assertion.clone(),
            GrantKind::Person => None,
        };
        let fetch = self.fetch().map_err(|f| failed(&f.reason))?;
        let grant = Grant::Refresh { refresh_token: &refresh_token };
        let mut tokens = token::request_tokens(
            fetch,
            &old.issuer,
            &old.token_endpoint,
            &registration,
            assertion.as_ref(),
            grant,
            &old.resource,
            old.requested.clone(),
            (old.token_type == "DPoP").then_some(&self.dpop),
        )
        .await?;
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(refresh_token);
        }
        creds.tokens = Some(tokens);
        Ok(())
    }

    fn load<'s>(
        &self,
        state: &'s mut BTreeMap<String, Credentials>,
        endpoint: &str,
    ) -> Result<&'s mut Credentials, AuthFailure> {
        if !state.contains_key(endpoint) {
            let loaded = self.config.store.load(endpoint).map_err(|e| store_failure(&e))?;
            state.insert(endpoint.to_owned(), loaded.unwrap_or_default());
        }
        Ok(state.get_mut(endpoint).expect("inserted above"))
    }

    fn save(&self, endpoint: &str, creds: &Credentials) -> Result<(), AuthFailure> {
        self.config.store.save(endpoint, creds).map_err(|e| store_failure(&e))
    }
}

/// The `Authorization` header value of `tokens`: `Bearer <token>` or `DPoP <token>`.
fn bearer(tokens: &Tokens) -> String {
    format!("{} {}", tokens.token_type, tokens.access_token)
}

/// The scopes of `a` and then those of `b` not in `a`.
fn union(mut a: Vec<String>, b: Vec<String>) -> Vec<String> {
    for s in b {
        if !a.contains(&s) {
            a.push(s);
        }
    }
    a
}

/// How a client with (or without) a secret authenticates to `server`'s token endpoint.
fn secret_method(server: &AuthServer, secret: Option<&str>) -> String {
    match secret {
        None => "none",
        Some(_) if server.supports_auth("client_secret_basic") => "client_secret_basic",
        Some(_) if server.supports_auth("client_secret_post") => "client_secret_post",
        Some(_) => "client_secret_basic",
    }
    .to_owned()
}
