//! Who may see and call what: [`Access`], rules on the caller's [`Principal`] per tool,
//! resource and prompt, given to [`ServerBuilder::authorize`](crate::server::ServerBuilder::authorize).
//!
//! A rule is enforced twice, at list time and at call time, and the two agree:
//!
//! - `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list` show a
//!   principal only what it may use. Each distinct set of visible items gets its own
//!   pre-serialised pages, built on first use and cached beside the full listing, so a list
//!   stays one copy for every principal with the same permissions.
//! - A call (`tools/call`, `prompts/get`, `resources/read`) of something the principal may
//!   not use is answered exactly as one of something that does not exist, byte for byte,
//!   with the same "available" list: the surface it may not use is not disclosed.
//!
//! The host ([`Principal::host`]) passes every rule. Names without a rule are open to every
//! principal, unless [`Access::deny_unlisted`] closes them. A tool that declares scopes
//! (`#[tool(scopes = ["files:write"])]`, [`Declarations::scopes`](crate::tool::Declarations))
//! needs them too, on top of its rule; a server whose tools declare scopes enforces them even
//! without [`ServerBuilder::authorize`](crate::server::ServerBuilder::authorize).
//!
//! # A scope the token lacks: hidden, or a step-up challenge
//!
//! By default ([`MissingScopes::Hide`]) a tool the caller lacks a scope for does not exist for
//! it, as above: the right answer for untrusted callers, to whom the surface they may not use
//! is not disclosed. A server whose callers are OAuth clients that can ask their
//! authorization server for more ([`ServerBuilder::missing_scopes`](crate::server::ServerBuilder::missing_scopes)
//! with [`MissingScopes::StepUp`]) gives the other answer, as the TypeScript SDK's
//! `requireScopes` does: such a tool is listed, and a call of it is refused with
//! [`INSUFFICIENT_SCOPE`] naming every scope the tool needs; over HTTP that is a 403 with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (and the resource
//! metadata, under a resource server), which an OAuth client answers by authorizing again
//! with those scopes (toolwire's own does: `client::oauth`). Only scopes are stepped up: a
//! tool whose rule needs a role the caller lacks, or the host, stays hidden, since no token
//! can change that. Prompts and resources stay hidden either way.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::principal::Principal;
use crate::sync::lock;

/// What a principal needs to use one item: every one of [`scopes`](Require::scopes), and at
/// least one of [`roles`](Require::roles) when any are named.
///
/// ```
/// use toolwire::principal::Principal;
/// use toolwire::server::Require;
///
/// let rule = Require::scopes(["files:write"]).or_roles(["admin", "ops"]);
/// let alice = Principal::new("alice").with_scopes(["files:write"]).with_roles(["ops"]);
/// assert!(rule.allows(&alice));
/// assert!(!rule.allows(&Principal::new("bob").with_scopes(["files:write"])));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Require {
    scopes: Vec<String>,
    roles: Vec<String>,
}

impl Require {
    /// Every one of `scopes`.
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(scopes: I) -> Require {
        Require { scopes: scopes.into_iter().map(Into::into).collect(), roles: Vec::new() }
    }

    /// At least one of `roles`.
    pub fn roles<I: IntoIterator<Item = S>, S: Into<String>>(roles: I) -> Require {
        Require { scopes: Vec::new(), roles: roles.into_iter().map(Into::into).collect() }
    }

    /// The same rule, also needing at least one of `roles`.
    pub fn or_roles<I: IntoIterator<Item = S>, S: Into<String>>(mut self, roles: I) -> Require {
        self.roles.extend(roles.into_iter().map(Into::into));
        self
    }

    /// Only the host ([`Principal::host`]): hidden from every authenticated caller.
    pub fn host_only() -> Require {
        Require { scopes: Vec::new(), roles: vec![String::new()] }
    }

    /// Whether `principal` meets the rule (the host always does).
    pub fn allows(&self, principal: &Principal) -> bool {
        principal.is_host()
            || (self.scopes.iter().all(|s| principal.has_scope(s)) && self.roles_allow(principal))
    }

    /// Whether `principal` meets the rule's roles (its scopes aside).
    fn roles_allow(&self, principal: &Principal) -> bool {
        self.roles.is_empty() || self.roles.iter().any(|r| !r.is_empty() && principal.has_role(r))
    }
}

/// What a caller reads of a tool it lacks a scope for: the choice of
/// [`ServerBuilder::missing_scopes`](crate::server::ServerBuilder::missing_scopes) (see the
/// module's docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum MissingScopes {
    /// The tool does not exist for that caller: unlisted, and a call of it is the unknown-tool
    /// error. The default, and the answer for untrusted callers.
    #[default]
    Hide,
    /// The tool is listed, and a call of it is refused with [`INSUFFICIENT_SCOPE`] naming the
    /// scopes it needs (over HTTP: 403 `insufficient_scope` with those scopes in
    /// `WWW-Authenticate`), so an OAuth client can step up.
    StepUp,
}

/// The JSON-RPC code of a call refused because the caller's token lacks a scope the tool needs
/// ([`MissingScopes::StepUp`]); its `data` is `{"requiredScopes": [...]}`, and over HTTP it is
/// answered with 403 and an `insufficient_scope` challenge.
pub const INSUFFICIENT_SCOPE: i64 = -32031;

/// The refusal of a call of `tool` by a caller lacking some of `scopes` (every scope the tool
/// needs).
pub(crate) fn insufficient_scope(tool: &str, scopes: &[String]) -> crate::protocol::RpcError {
    let quoted: Vec<String> = scopes.iter().map(|s| format!("'{s}'")).collect();
    let data = serde_json::json!({ "requiredScopes": scopes }).to_string();
    crate::protocol::RpcError::new(
        INSUFFICIENT_SCOPE,
        format!(
            "tool '{tool}' needs scope {}, which the caller's token does not carry: authorize again with {}",
            quoted.join(" and "),
            if scopes.len() == 1 { "it" } else { "them" }
        ),
    )
    .with_data(data)
}

/// The rules of a server: a [`Require`] per tool, prompt and resource (by URI, or a
/// template's URI template).
///
/// ```
/// use toolwire::server::{Access, Require};
///
/// let access = Access::new()
///     .tool("read_file", Require::scopes(["files:read"]))
///     .tool("write_file", Require::scopes(["files:write"]))
///     .prompt("triage", Require::roles(["oncall"]))
///     .resource("file:///etc/motd", Require::scopes(["files:read"]));
/// # let _ = access;
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Access {
    tools: BTreeMap<String, Require>,
    prompts: BTreeMap<String, Require>,
    resources: BTreeMap<String, Require>,
    deny_unlisted: bool,
    /// [`MissingScopes::StepUp`]: a tool lacking only scopes is shown and challenged.
    step_up: bool,
}

impl Access {
    /// No rules: everything open to every principal.
    pub fn new() -> Access {
        Access::default()
    }

    /// The tool called `name` needs `rule`.
    pub fn tool(mut self, name: impl Into<String>, rule: Require) -> Access {
        self.tools.insert(name.into(), rule);
        self
    }

    /// The prompt called `name` needs `rule`.
    pub fn prompt(mut self, name: impl Into<String>, rule: Require) -> Access {
        self.prompts.insert(name.into(), rule);
        self
    }

    /// The resource at `uri` (or the template whose URI template is `uri`, and every
    /// resource read through it) needs `rule`.
    pub fn resource(mut self, uri: impl Into<String>, rule: Require) -> Access {
        self.resources.insert(uri.into(), rule);
        self
    }

    /// Close every tool, prompt and resource without a rule to everyone but the host.
    pub fn deny_unlisted(mut self) -> Access {
        self.deny_unlisted = true;
        self
    }

    fn judge(&self, rules: &BTreeMap<String, Require>, name: &str, principal: &Principal) -> bool {
        match rules.get(name) {
            Some(rule) => rule.allows(principal),
            None => !self.deny_unlisted || principal.is_host(),
        }
    }

    /// The tool's rule, and the scopes the tool itself declares (`#[tool(scopes = [..])]`).
    pub(crate) fn tool_allowed(&self, info: &crate::tool::ToolInfo, principal: &Principal) -> bool {
        let declared = &info.declarations().scopes;
        self.judge(&self.tools, info.name(), principal)
            && (principal.is_host() || declared.iter().all(|s| principal.has_scope(s)))
    }

    /// Under [`MissingScopes::StepUp`], the scopes the tool needs when scopes are all
    /// `principal` lacks for it (its rule's and the tool's own declared ones, in that order);
    /// `None` when it may call the tool, when something no token gives is missing (a role,
    /// the host), or under [`MissingScopes::Hide`].
    pub(crate) fn tool_step_up(
        &self,
        info: &crate::tool::ToolInfo,
        principal: &Principal,
    ) -> Option<Vec<String>> {
        if !self.step_up || principal.is_host() {
            return None;
        }
        let rule = self.tools.get(info.name());
        let roles = match rule {
            Some(rule) => rule.roles_allow(principal),
            None => !self.deny_unlisted,
        };
        if !roles {
            return None;
        }
        let mut needed: Vec<String> = rule.map(|r| r.scopes.clone()).unwrap_or_default();
        for s in &info.declarations().scopes {
            if !needed.contains(s) {
                needed.push(s.clone());
            }
        }
        needed.iter().any(|s| !principal.has_scope(s)).then_some(needed)
    }

    /// Show each tool a caller lacks only scopes for, and challenge its calls
    /// ([`MissingScopes::StepUp`]).
    pub(crate) fn set_step_up(&mut self, step_up: bool) {
        self.step_up = step_up;
    }

    pub(crate) fn prompt_allowed(&self, name: &str, principal: &Principal) -> bool {
        self.judge(&self.prompts, name, principal)
    }

    pub(crate) fn resource_allowed(&self, uri: &str, principal: &Principal) -> bool {
        self.judge(&self.resources, uri, principal)
    }
}

/// What the request being dispatched may see: its principal, judged by the server's rules.
pub(crate) struct Gate {
    pub(crate) principal: Arc<Principal>,
    access: Option<Arc<Access>>,
    /// Untrusted callers with no approval callback: `requires_approval` tools are hidden
    /// (module `exposure`), from the host principal too.
    hide_approval: bool,
}

impl Gate {
    pub(crate) fn new(principal: Arc<Principal>, access: Option<Arc<Access>>, hide_approval: bool) -> Gate {
        Gate { principal, access, hide_approval }
    }

    /// Whether nothing is hidden from this caller (no rules, or the host, and no gated tool
    /// hidden): the full listings serve it as they are.
    pub(crate) fn open(&self) -> bool {
        sees_everything(self.access.is_some(), &self.principal, self.hide_approval)
    }

    /// Whether the tool is shown to this caller: it may call it, or (stepping up) it lacks
    /// only scopes for it.
    pub(crate) fn tool(&self, info: &crate::tool::ToolInfo) -> bool {
        !(self.hide_approval && info.declarations().requires_approval)
            && self.access.as_ref().is_none_or(|a| {
                a.tool_allowed(info, &self.principal) || a.tool_step_up(info, &self.principal).is_some()
            })
    }

    /// The scopes to challenge a call of a shown tool with, when this caller lacks them
    /// ([`MissingScopes::StepUp`]).
    pub(crate) fn tool_scopes_needed(&self, info: &crate::tool::ToolInfo) -> Option<Vec<String>> {
        self.access.as_ref().and_then(|a| a.tool_step_up(info, &self.principal))
    }

    pub(crate) fn prompt(&self, name: &str) -> bool {
        self.access.as_ref().is_none_or(|a| a.prompt_allowed(name, &self.principal))
    }

    pub(crate) fn resource(&self, uri: &str) -> bool {
        self.access.as_ref().is_none_or(|a| a.resource_allowed(uri, &self.principal))
    }
}

/// Whether nothing is hidden from `principal`: no access rules (or the host, whom they do not
/// bind), and no approval-gated tool hidden. [`Gate::open`], and the same question asked
/// without making a gate (`caller::sees_everything`).
pub(crate) fn sees_everything(has_rules: bool, principal: &Principal, hide_approval: bool) -> bool {
    (!has_rules || principal.is_host()) && !hide_approval
}

/// The listings built for each distinct visible subset of one listing, keyed by which of its
/// items are visible (a bit per item, in listing order). Bounded: past [`MAX_VIEWS`] distinct
/// subsets the cache is cleared and refills with the ones in use.
pub(crate) struct Views<T> {
    views: Mutex<HashMap<Vec<u64>, Arc<T>>>,
}

/// The most distinct visible subsets one listing caches.
const MAX_VIEWS: usize = 256;

impl<T> Default for Views<T> {
    fn default() -> Self {
        Views { views: Mutex::new(HashMap::new()) }
    }
}

impl<T> Views<T> {
    /// The view for `mask`, built with `build` the first time.
    pub(crate) fn get(&self, mask: Vec<u64>, build: impl FnOnce() -> T) -> Arc<T> {
        let mut views = lock(&self.views);
        if let Some(v) = views.get(&mask) {
            return Arc::clone(v);
        }
        if views.len() >= MAX_VIEWS {
            views.clear();
        }
        let view = Arc::new(build());
        views.insert(mask, Arc::clone(&view));
        view
    }
}

/// The visibility mask of `items`: a bit per item, set when `visible` says so; `None` when
/// every item is visible.
pub(crate) fn mask<I>(items: I, mut visible: impl FnMut(I::Item) -> bool) -> Option<Vec<u64>>
where
    I: IntoIterator,
{
    let mut bits = Vec::new();
    let mut all = true;
    for (i, item) in items.into_iter().enumerate() {
        if i % 64 == 0 {
            bits.push(0u64);
        }
        if visible(item) {
            bits[i / 64] |= 1 << (i % 64);
        } else {
            all = false;
        }
    }
    (!all).then_some(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::schema::Schema;
    use crate::tool::{Declarations, ToolInfo};

    fn info(name: &'static str, scopes: &[&str]) -> ToolInfo {
        ToolInfo::new(name, "A tool.", Schema::empty_object())
            .with_declarations(Declarations::default().with_scopes(scopes.iter().copied()))
    }

    #[test]
    fn rules_scopes_roles_and_the_host() {
        let a = Access::new().tool("w", Require::scopes(["w"])).tool("h", Require::host_only());
        let alice = Principal::new("alice").with_scopes(["w"]);
        let bob = Principal::new("bob").with_roles([""]);
        let (w, h, other) = (info("w", &[]), info("h", &[]), info("other", &[]));
        assert!(a.tool_allowed(&w, &alice) && !a.tool_allowed(&w, &bob));
        assert!(!a.tool_allowed(&h, &alice) && !a.tool_allowed(&h, &bob));
        assert!(a.tool_allowed(&h, &Principal::host()) && a.tool_allowed(&other, &bob));
        // Declared scopes add to the rule (or to no rule); the host passes.
        let declared = info("w", &["x"]);
        assert!(!a.tool_allowed(&declared, &alice) && a.tool_allowed(&declared, &Principal::host()));
        assert!(a.tool_allowed(&declared, &Principal::new("carol").with_scopes(["w", "x"])));
        assert!(!a.tool_allowed(&info("other", &["x"]), &bob));
        let closed = a.deny_unlisted();
        assert!(!closed.tool_allowed(&other, &alice) && closed.tool_allowed(&other, &Principal::host()));
        assert_eq!(mask(0..3, |i| i != 1), Some(vec![0b101]));
        // Stepping up: only a caller that lacks nothing but scopes is challenged, with every
        // scope the tool needs (its rule's, then its own).
        let mut stepping = Access::new().tool("w", Require::scopes(["w"])).tool("r", Require::roles(["ops"]));
        assert_eq!(stepping.tool_step_up(&declared, &bob), None, "hiding by default");
        stepping.set_step_up(true);
        assert_eq!(stepping.tool_step_up(&declared, &bob), Some(vec!["w".to_owned(), "x".to_owned()]));
        assert_eq!(stepping.tool_step_up(&declared, &Principal::new("d").with_scopes(["w", "x"])), None);
        assert_eq!(stepping.tool_step_up(&info("r", &["x"]), &alice), None, "a role no token gives");
        assert_eq!(stepping.tool_step_up(&declared, &Principal::host()), None);
        assert_eq!(
            insufficient_scope("w", &["w".to_owned(), "x".to_owned()]).message,
            "tool 'w' needs scope 'w' and 'x', which the caller's token does not carry: authorize again with them"
        );
        assert_eq!(mask(0..70, |_| true), None);
        assert_eq!(mask(0..70, |i| i != 69), Some(vec![u64::MAX, 0b1_1111]));
    }
}
