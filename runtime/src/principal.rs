//! [`Principal`]: who is calling. A tool reads it from its context
//! ([`Context::principal`](crate::Context::principal)) and can never change it: the host fixes
//! it (on stdio, [`ServerBuilder::host_principal`](crate::server::ServerBuilder::host_principal)
//! or the default [`Principal::host`]), or the HTTP authenticator sets it from the request's
//! credentials, before any tool code runs.
//!
//! ```
//! use toolwire::principal::Principal;
//!
//! let alice = Principal::new("alice").with_scopes(["files:read"]).with_tenant("acme");
//! assert_eq!(alice.subject(), "alice");
//! assert!(alice.has_scope("files:read") && !alice.has_scope("files:write"));
//! assert_eq!(alice.tenant(), Some("acme"));
//! assert!(!alice.is_host() && Principal::host().is_host());
//! ```

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

/// Who is calling: a subject, the scopes and roles it holds, and the tenant it belongs to.
///
/// Built by the host or an authenticator, then shared read-only (`Arc<Principal>`): there is
/// no setter on a principal a tool is handed. `#[non_exhaustive]`: it may come to carry more
/// (the token's claims, an issuer).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Principal {
    /// Borrowed for the host's constant subject, so [`Principal::host`] allocates nothing.
    subject: Cow<'static, str>,
    scopes: BTreeSet<String>,
    roles: BTreeSet<String>,
    tenant: Option<String>,
    host: bool,
}

/// The subject of [`Principal::host`].
pub const HOST_SUBJECT: &str = "host";

impl Principal {
    /// A principal called `subject`, with no scopes, no roles and no tenant.
    pub fn new(subject: impl Into<String>) -> Principal {
        Principal {
            subject: Cow::Owned(subject.into()),
            scopes: BTreeSet::new(),
            roles: BTreeSet::new(),
            tenant: None,
            host: false,
        }
    }

    /// The host: the program serving its own tools (stdio's caller, and whoever holds a
    /// loopback server's generated token). Its subject is `host`; it passes every
    /// authorization rule (see [`is_host`](Self::is_host)).
    pub fn host() -> Principal {
        Principal {
            subject: Cow::Borrowed(HOST_SUBJECT),
            scopes: BTreeSet::new(),
            roles: BTreeSet::new(),
            tenant: None,
            host: true,
        }
    }

    /// This principal, shared: [`Principal::shared_host`] when it is the plain host (what a
    /// bearer-token server's every request is), a new `Arc` otherwise.
    // Only HTTP's authenticators hand a principal over by value.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn into_shared(self) -> Arc<Principal> {
        if self == Principal::host() { Principal::shared_host() } else { Arc::new(self) }
    }

    /// The shared [`Principal::host`], made once.
    pub(crate) fn shared_host() -> Arc<Principal> {
        static HOST: OnceLock<Arc<Principal>> = OnceLock::new();
        Arc::clone(HOST.get_or_init(|| Arc::new(Principal::host())))
    }

    /// The same principal holding `scopes` too (OAuth scopes, e.g. `files:read`).
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Principal
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The same principal holding `roles` too (e.g. `admin`).
    pub fn with_roles<I, S>(mut self, roles: I) -> Principal
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.roles.extend(roles.into_iter().map(Into::into));
        self
    }

    /// The same principal in `tenant`.
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Principal {
        self.tenant = Some(tenant.into());
        self
    }

    /// Who it is: the token's `sub`, or `host`.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The scopes it holds, in order.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(String::as_str)
    }

    /// The roles it holds, in order.
    pub fn roles(&self) -> impl Iterator<Item = &str> {
        self.roles.iter().map(String::as_str)
    }

    /// The tenant it belongs to, when the host or the token names one.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// Whether it holds `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// Whether it holds `role`.
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.contains(role)
    }

    /// Whether this is the host ([`Principal::host`]), which no authorization rule refuses.
    /// A principal made with [`Principal::new`] never is, whatever its subject.
    pub fn is_host(&self) -> bool {
        self.host
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_named_host_is_not_the_host() {
        let p = Principal::new("host").with_roles(["admin", "admin"]).with_scopes(["b", "a"]);
        assert!(!p.is_host());
        assert_eq!(p.roles().collect::<Vec<_>>(), ["admin"]);
        assert_eq!(p.scopes().collect::<Vec<_>>(), ["a", "b"]);
        assert!(Principal::shared_host().is_host());
        assert_eq!(Principal::host().subject(), HOST_SUBJECT);
    }
}
