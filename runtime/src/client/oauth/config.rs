//! What an [`OAuth`](super::OAuth) is made of: its settings ([`Config`], the grant it uses)
//! and the person's step it hands the application ([`AuthorizationRequest`], [`AuthorizeFn`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use super::store::TokenStore;
use super::token;
use crate::client::authorizer::AuthFailure;

/// The authorization request handed to the person's step.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuthorizationRequest {
    /// The URL to open in the person's browser.
    pub url: String,
    /// Where the authorization server will send the browser back: answer the full URL it was
    /// sent to (with its `code`, `state` and `iss`).
    pub redirect_uri: String,
    /// The MCP endpoint being authorized.
    pub endpoint: String,
}

/// The future an [`on_authorize`](super::OAuth::on_authorize) callback returns: the URL the
/// browser was sent back to, or why the person's step did not happen (which fails the
/// request as needing a person).
pub type AuthorizeFuture = Pin<Box<dyn Future<Output = Result<String, String>> + Send>>;

/// The person's step, as the application plays it.
pub type AuthorizeFn = Arc<dyn Fn(AuthorizationRequest) -> AuthorizeFuture + Send + Sync>;

/// How the client gets its tokens.
#[derive(Clone)]
pub(super) enum GrantKind {
    /// A person authorizes it (authorization code).
    Person,
    /// It acts on its own behalf (client credentials), with a secret or a signed JWT; or,
    /// with `workload`, by a JWT its platform issued it (the JWT bearer grant).
    Machine {
        client_id: String,
        secret: Option<String>,
        assertion: Option<token::Assertion>,
        workload: Option<WorkloadToken>,
        enterprise: Option<Enterprise>,
    },
}

/// An enterprise identity provider whose ID token is exchanged for an ID-JAG.
#[derive(Clone)]
pub(super) struct Enterprise {
    pub(super) token_endpoint: String,
    pub(super) client_id: String,
    pub(super) id_token: WorkloadToken,
}

/// Where a workload's identity token comes from (read anew for each token request, as such
/// tokens rotate).
pub type WorkloadToken = Arc<dyn Fn() -> Result<String, String> + Send + Sync>;

/// The settings of an [`OAuth`](super::OAuth).
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) client_name: String,
    pub(crate) redirect_uri: String,
    pub(crate) application_type: String,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) pre_registered: Option<(String, Option<String>, Option<String>)>,
    pub(crate) grant: GrantKind,
    pub(crate) authorize: Option<AuthorizeFn>,
    pub(crate) offline_access: bool,
    pub(crate) timeout: Duration,
    pub(crate) store: Arc<dyn TokenStore>,
}

/// The failure of a store that could not be read or written.
pub(super) fn store_failure(e: &std::io::Error) -> AuthFailure {
    AuthFailure::failed(format!("the token store could not be used: {e}"))
}
