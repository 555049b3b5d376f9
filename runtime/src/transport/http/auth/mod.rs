//! Who may call the endpoint: the checks each `/mcp` handler makes before it reads a body
//! (the endpoint's `admit`), in this order: `guard` (one `Host` and `Origin`, and which),
//! then `authn` (who is calling: `Authenticate`, `ResourceServer`; a bearer token compared
//! here). `token`: the bearer token a loopback server demands, and the random ids (session and
//! stream ids) made the same way; `jwks` (feature `oauth`): JWT access tokens checked against
//! an authorization server's keys.

pub(super) mod authn;
pub(super) mod guard;
#[cfg(feature = "oauth")]
pub(super) mod jwks;
pub(super) mod token;
