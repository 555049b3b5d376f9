//! The MCP authorization spec's client role (feature `client-oauth`): [`OAuth`], an
//! [`Authorizer`] that gets an HTTP server's access tokens the way the spec says, and keeps
//! them in a [`TokenStore`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use toolwire::client::oauth::{FileTokenStore, OAuth};
//! use toolwire::client::{Client, ClientOptions, HttpServer};
//!
//! let oauth = OAuth::new("my-cli")
//!     .store(FileTokenStore::new("/home/me/.config/my-cli/tokens.json"))
//!     .on_authorize(|request| async move { toolwire::client::oauth::open_browser_and_wait(request).await });
//! oauth.sign_in("https://mcp.example.com/mcp").await?; // only when no token is kept
//! let server = HttpServer::new("https://mcp.example.com/mcp").authorizer(Arc::new(oauth));
//! let client = Client::connect(server, ClientOptions::new("example")).await?;
//! # let _ = client; Ok(()) }
//! ```
//!
//! # What happens on a 401
//!
//! 1. **Discovery** ([`discovery`](self) module docs have the table): the protected resource
//!    metadata named by `WWW-Authenticate`'s `resource_metadata`, else at the well-known
//!    locations, path-aware first; its `resource` must name this server. Then the
//!    authorization server's metadata (RFC 8414, then OpenID Connect discovery, path-aware),
//!    whose `issuer` must be the one asked for, character for character.
//! 2. **Registration**, in the spec's order: a [pre-registered](OAuth::pre_registered) client;
//!    else a [Client ID Metadata Document](OAuth::client_metadata_url) when the server says
//!    it takes them; else dynamic registration (RFC 7591, `application_type` `native`). A
//!    registration is bound to the issuer that made it: when the resource's authorization
//!    server changes, it is dropped and the client registers with the new one, never
//!    presenting one server's credentials to another.
//! 3. **Scopes**: those of the challenge, else the resource metadata's `scopes_supported`,
//!    else none; plus `offline_access` when the authorization server lists it (so a refresh
//!    token can be had) and never otherwise.
//! 4. **Authorization code with PKCE** (`S256`) and the `resource` indicator (RFC 8707), in
//!    the authorization request and the token request. The person's step is the application's
//!    [`on_authorize`](OAuth::on_authorize) callback: it gets the URL to open and answers the
//!    URL the browser came back to. That answer's `state` and RFC 9207 `iss` are checked
//!    before its code is used.
//! 5. **The token endpoint**, authenticated as the registration says:
//!    `client_secret_basic`, `client_secret_post` or `none` (or a signed JWT for
//!    [client credentials](OAuth::client_credentials_jwt)).
//!
//! **DPoP** (RFC 9449): when the authorization server signs `ES256` proofs
//! (`dpop_signing_alg_values_supported`) and the resource takes DPoP-bound tokens (its
//! challenge offers the `DPoP` scheme, or its metadata says so), the client binds its tokens to
//! a P-256 key it holds in memory: a proof with each token request, `Authorization: DPoP` and
//! a fresh proof (method, URL, the token's hash) with each MCP request, and a server's
//! `use_dpop_nonce` answered once with its nonce. Otherwise tokens are Bearer tokens.
//!
//! **Acting on its own behalf**: [`client_credentials`](OAuth::client_credentials) (a secret),
//! [`client_credentials_jwt`](OAuth::client_credentials_jwt) (a signed client assertion),
//! [`workload_identity`](OAuth::workload_identity) (the JWT its platform issued it, RFC 7523's
//! JWT bearer grant), or [`enterprise_managed`](OAuth::enterprise_managed) (SEP-990: an
//! enterprise identity provider's ID token exchanged for an ID-JAG, then the JWT bearer grant):
//! no browser, no registration, the same discovery and `resource`.
//!
//! An expired token is refreshed before the next request when there is a refresh token; a
//! 401 with one first tries a refresh too. A 403 with `insufficient_scope` asks for the union
//! of the scopes asked for before and the challenged ones (step-up), unless the token already
//! holds them all (then the server's refusal is final). The HTTP link sends one request at most
//! twice more after such renewals, so no server can keep a client authorizing in a loop.
//!
//! # Errors a user reads
//!
//! A flow that needs a person fails the request with
//! [`ClientError::AuthorizationRequired`](super::ClientError::AuthorizationRequired) (a tool
//! call with [`RemoteError::AuthorizationRequired`](crate::tool::RemoteError)): no
//! [`on_authorize`](OAuth::on_authorize) set, the person declined, a refresh token or a
//! registration the authorization server no longer accepts. Anything else is
//! [`ClientError::AuthorizationFailed`](super::ClientError::AuthorizationFailed), with the
//! reason in our words: e.g. `server 'x': authorization failed: the protected resource
//! metadata at http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp is for
//! 'https://evil.example.com/mcp', not for this server (http://127.0.0.1:3000/mcp); it was not
//! used`.
//!
//! # Why a feature of its own
//!
//! `client-oauth` adds the `url` crate (with IDNA, for the metadata and authorization URLs
//! as the RFCs mean them), `jsonwebtoken` (client assertions) and `p256` (DPoP proofs): weight
//! a stdio-only client should not carry. Everything else it needs (hyper, rustls, SHA-256, base64) the `client`
//! feature already has.

mod challenge;
mod config;
mod discovery;
mod dpop;
mod fetch;
mod flow;
mod loopback;
mod store;
mod token;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use config::{AuthorizationRequest, AuthorizeFn, AuthorizeFuture, WorkloadToken};
pub use loopback::{open_browser_and_wait, wait_for_redirect};

use config::{Config, Enterprise, GrantKind};
pub use store::{Credentials, FileTokenStore, MemoryTokenStore, TokenStore};

use super::authorizer::{AuthFailure, AuthFuture, Authorizer, Exchange, RefusedExchange};

/// The OAuth 2.1 client of the MCP authorization spec, as an [`Authorizer`] for
/// [`HttpServer::authorizer`](super::HttpServer::authorizer). Its module docs say what it
/// does; the setters say what you can change.
///
/// One `OAuth` may serve several servers: what it obtains is kept per endpoint URL.
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<flow::Flow>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth").field("client_name", &self.inner.config.client_name).finish_non_exhaustive()
    }
}

impl OAuth {
    /// A client named `client_name` (its `client_name` at registration) that authorizes with
    /// a person's consent: redirect URI `http://127.0.0.1:8976/callback` (the loopback of
    /// [`open_browser_and_wait`]), tokens in memory, 30 s per exchange with the
    /// authorization server, and no person's step until [`on_authorize`](Self::on_authorize)
    /// sets one.
    pub fn new(client_name: impl Into<String>) -> OAuth {
        OAuth::from_config(Config {
            client_name: client_name.into(),
            redirect_uri: loopback::DEFAULT_REDIRECT.to_owned(),
            application_type: "native".to_owned(),
            client_metadata_url: None,
            pre_registered: None,
            grant: GrantKind::Person,
            authorize: None,
            offline_access: true,
            timeout: Duration::from_secs(30),
            store: Arc::new(MemoryTokenStore::new()),
        })
    }

    /// A client acting on its own behalf (the client credentials grant, SEP-1046), with
    /// `client_id` and `client_secret`, sent as the authorization server prefers
    /// (`client_secret_basic`, else `client_secret_post`).
    pub fn client_credentials(client_id: impl Into<String>, client_secret: impl Into<String>) -> OAuth {
        let mut oauth = OAuth::new("toolwire");
        oauth.edit(|c| {
            c.grant = GrantKind::Machine {
                client_id: client_id.into(),
                secret: Some(client_secret.into()),
                assertion: None,
                workload: None,
                enterprise: None,
            }
        });
        oauth
    }

    /// A client acting on its own behalf, authenticating with a JWT it signs with
    /// `private_key_pem` (`private_key_jwt`, RFC 7523) using `algorithm` (`ES256`, `RS256`,
    /// `EdDSA`, ...).
    pub fn client_credentials_jwt(
        client_id: impl Into<String>,
        private_key_pem: impl Into<String>,
        algorithm: impl Into<String>,
    ) -> OAuth {
        let mut oauth = OAuth::new("toolwire");
        let assertion = token::Assertion::Jwt { pem: private_key_pem.into(), algorithm: algorithm.into() };
        oauth.edit(|c| {
            c.grant = GrantKind::Machine {
                client_id: client_id.into(),
                secret: None,
                assertion: Some(assertion),
                workload: None,
                enterprise: None,
            }
        });
        oauth
    }

    /// A workload acting on its own behalf with the identity its platform gives it (workload
    /// identity federation, RFC 7523's JWT bearer grant): `token` answers the platform's JWT
    /// (e.g. read from the file a Kubernetes service account token is mounted at), sent as the
    /// `assertion` with `client_id`. A refused assertion fails the request; no other grant is
    /// tried.
    pub fn workload_identity(
        client_id: impl Into<String>,
        token: impl Fn() -> Result<String, String> + Send + Sync + 'static,
    ) -> OAuth {
        let mut oauth = OAuth::new("toolwire");
        let workload: WorkloadToken = Arc::new(token);
        oauth.edit(|c| {
            c.grant = GrantKind::Machine {
                client_id: client_id.into(),
                secret: None,
                assertion: None,
                workload: Some(workload),
                enterprise: None,
            }
        });
        oauth
    }

    /// Enterprise-managed authorization (SEP-990): the person's ID token from the
    /// enterprise's identity provider (`id_token`, its client there `idp_client_id`) is
    /// exchanged at the provider's token endpoint (RFC 8693) for an identity assertion grant
    /// (ID-JAG) naming this server's authorization server and resource, which the client
    /// (`client_id`, `client_secret`) presents there with RFC 7523's JWT bearer grant. No
    /// browser: the enterprise already signed the person in.
    pub fn enterprise_managed(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        idp_token_endpoint: impl Into<String>,
        idp_client_id: impl Into<String>,
        id_token: impl Fn() -> Result<String, String> + Send + Sync + 'static,
    ) -> OAuth {
        let mut oauth = OAuth::new("toolwire");
        let enterprise = Enterprise {
            token_endpoint: idp_token_endpoint.into(),
            client_id: idp_client_id.into(),
            id_token: Arc::new(id_token),
        };
        oauth.edit(|c| {
            c.grant = GrantKind::Machine {
                client_id: client_id.into(),
                secret: Some(client_secret.into()),
                assertion: None,
                workload: None,
                enterprise: Some(enterprise),
            }
        });
        oauth
    }

    fn from_config(config: Config) -> OAuth {
        OAuth { inner: Arc::new(flow::Flow::new(config)) }
    }

    fn edit(&mut self, f: impl FnOnce(&mut Config)) {
        let mut config = self.inner.config.clone();
        f(&mut config);
        *self = OAuth::from_config(config);
    }

    /// Play the person's step with `callback`: open (or show) the URL, and answer the URL
    /// the browser was sent back to. [`open_browser_and_wait`] is the usual one for a CLI.
    pub fn on_authorize<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(AuthorizationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        let f: AuthorizeFn = Arc::new(move |req| Box::pin(callback(req)));
        self.edit(|c| c.authorize = Some(f));
        self
    }

    /// The redirect URI registered and sent (default `http://127.0.0.1:8976/callback`).
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.edit(|c| c.redirect_uri = uri.into());
        self
    }

    /// Use this pre-registered client (and secret, for a confidential one), issued by the
    /// authorization server `issuer` when given (then it is never sent to another one; without
    /// it, to whichever the server names).
    pub fn pre_registered(
        mut self,
        client_id: impl Into<String>,
        client_secret: Option<String>,
        issuer: Option<String>,
    ) -> Self {
        self.edit(|c| c.pre_registered = Some((client_id.into(), client_secret, issuer)));
        self
    }

    /// Identify the client by this Client ID Metadata Document URL (an `https://` URL you
    /// host, whose document's `client_id` is that URL) where the authorization server
    /// supports them.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.edit(|c| c.client_metadata_url = Some(url.into()));
        self
    }

    /// `native` (the default: CLIs, desktop apps, a loopback redirect) or `web`, sent at
    /// dynamic registration (SEP-837).
    pub fn application_type(mut self, kind: impl Into<String>) -> Self {
        self.edit(|c| c.application_type = kind.into());
        self
    }

    /// Whether to ask for `offline_access` (a refresh token) when the authorization server
    /// lists it (default true).
    pub fn offline_access(mut self, yes: bool) -> Self {
        self.edit(|c| c.offline_access = yes);
        self
    }

    /// How long one exchange with an authorization server may take (30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.edit(|c| c.timeout = timeout);
        self
    }

    /// Keep credentials in `store` (default: in memory).
    pub fn store(mut self, store: impl TokenStore) -> Self {
        let store: Arc<dyn TokenStore> = Arc::new(store);
        self.edit(|c| c.store = store);
        self
    }
}

impl OAuth {
    /// Sign in to the server at `endpoint` now, before connecting, unless a token is already
    /// kept for it (the store's, or one from before): the same flow a 401 starts, with the
    /// scopes the resource's metadata lists. A connection's first request is bound by
    /// [`ClientOptions::request_timeout`](super::ClientOptions::request_timeout) (30 s), which
    /// a person signing in for the first time may need longer than; signing in first takes
    /// the person's step out of it. `Err` is the [`AuthFailure`] the connection would fail with.
    pub async fn sign_in(&self, endpoint: &str) -> Result<(), AuthFailure> {
        self.inner.sign_in(endpoint).await
    }
}

impl Authorizer for OAuth {
    fn authorization<'a>(&'a self, request: Exchange<'a>) -> AuthFuture<'a, Vec<(String, String)>> {
        Box::pin(self.inner.authorization(request))
    }

    fn refused<'a>(&'a self, refusal: RefusedExchange<'a>) -> AuthFuture<'a, bool> {
        Box::pin(self.inner.refused(refusal))
    }
}
