//! Adoption: [`Client::adopt`] turns a server's tool list into [`RemoteTool`]s under
//! [`AdoptOptions`], and reports what happened in a [`Discovery`].
//!
//! The rules, in the order they apply:
//!
//! 0. A tool without a name, or without an `inputSchema`, is rejected.
//! 1. An allowlist, when set, is the only tools considered; the rest are rejected.
//! 2. `include` globs (when any) must match, and no `exclude` glob may (`*` and `?`, on the
//!    server's names).
//! 3. The input schema must pass the adoption checks ([`SchemaRefusal`](super::SchemaRefusal)).
//! 4. The name becomes `prefix + name`, sanitised to `[A-Za-z0-9_-]` and cut to 64
//!    characters. Two tools that end up with one name: the second is rejected.
//! 5. A name that collides with a known local tool is withheld and reported in
//!    `conflicts` (and among the rejected), never renamed.
//! 6. `max_tools` caps what survives, in the server's order; `truncated` says it did.
//! 7. A description over `max_description_bytes` ([`DEFAULT_MAX_DESCRIPTION_BYTES`]) is
//!    cut there with a marker.
//!
//! Adopted plus rejected is always the server's whole list.
//!
//! The adopted view is held: [`Discovery::tools`] does not change until you call
//! [`Discovery::refresh`], so a server cannot widen an in-flight agent's surface.
//!
//! # Naming
//!
//! Your code names a remote tool by **the server's name for it**, everywhere:
//! [`Discovery::get`]`("forecast")` as [`Client::typed`]`("forecast")` and
//! [`Client::call_tool`]`("forecast", ..)`. The adopted name (`weather__forecast`, the prefix
//! and sanitising applied) is the model's: it is [`RemoteTool::info`](crate::Tool::info)`().name()`
//! and the key of [`Discovery::registry`]. A wrong name is an error listing the names that
//! would have worked ([`UnknownTool`]).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::connection::Client;
use super::error::ClientError;
use super::normalise::DEFAULT_ADOPTED_RESULT_BYTES;
use super::options::DeliveryGuarantee;
use super::remote_tool::{RemoteTool, Terms};
use super::schema::{SchemaRefusal, check};
use super::wire::ToolHints;
use crate::protocol::param_headers;
use crate::registry::{RegistryError, ToolRegistry, sanitise_tool_name};
use crate::tool::{Declarations, Tool};

/// The longest adopted name, as function-calling APIs require.
pub const MAX_NAME_LEN: usize = 64;

/// When an adopted tool requires human approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RequireApproval {
    /// Never (the default).
    #[default]
    None,
    /// Unless a trusted `readOnlyHint` says the tool only reads.
    Destructive,
    /// Always.
    Always,
}

/// The longest tool description adopted as is, in bytes: 8 KiB. A description goes into
/// every prompt the tool is offered in; a longer one is cut there with a marker
/// (`[truncated: N of M bytes shown]`), as results are. Change it with
/// [`AdoptOptions::max_description_bytes`].
pub const DEFAULT_MAX_DESCRIPTION_BYTES: usize = 8 * 1024;

/// How a server's tools are adopted, set with consuming setters:
/// `AdoptOptions::new().prefix("git_").include("read_*")`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AdoptOptions {
    prefix: Option<String>,
    include: Vec<String>,
    exclude: Vec<String>,
    allow: Option<Vec<String>>,
    max_tools: Option<usize>,
    approval: RequireApproval,
    trust_annotations: bool,
    max_result_bytes: usize,
    max_description_bytes: usize,
    timeout: Option<Duration>,
    known: BTreeSet<String>,
}

impl Default for AdoptOptions {
    fn default() -> Self {
        AdoptOptions {
            prefix: None,
            include: Vec::new(),
            exclude: Vec::new(),
            allow: None,
            max_tools: None,
            approval: RequireApproval::None,
            trust_annotations: true,
            max_result_bytes: DEFAULT_ADOPTED_RESULT_BYTES,
            max_description_bytes: DEFAULT_MAX_DESCRIPTION_BYTES,
            timeout: None,
            known: BTreeSet::new(),
        }
    }
}

impl AdoptOptions {
    /// The defaults: prefix `"<server>__"`, every tool considered, no approval, annotations
    /// trusted, results cut at [`DEFAULT_ADOPTED_RESULT_BYTES`], descriptions at
    /// [`DEFAULT_MAX_DESCRIPTION_BYTES`], calls bounded by the client's request timeout.
    pub fn new() -> Self {
        AdoptOptions::default()
    }

    /// Put `prefix` before every name the model sees (default `"<server>__"`; `""` for none).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Add an include glob (on the server's names, `*` and `?`); when any are given, a tool
    /// must match one.
    pub fn include(mut self, glob: impl Into<String>) -> Self {
        self.include.push(glob.into());
        self
    }

    /// Add an exclude glob; a tool matching one is rejected.
    pub fn exclude(mut self, glob: impl Into<String>) -> Self {
        self.exclude.push(glob.into());
        self
    }

    /// Set the allowlist: the only server names considered.
    pub fn allow<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Adopt at most `n` tools.
    pub fn max_tools(mut self, n: usize) -> Self {
        self.max_tools = Some(n);
        self
    }

    /// Set the approval policy.
    pub fn approval(mut self, approval: RequireApproval) -> Self {
        self.approval = approval;
        self
    }

    /// Trust (or not) the server's annotations (default true); false treats every tool as
    /// destructive and non-repeatable.
    pub fn trust_annotations(mut self, yes: bool) -> Self {
        self.trust_annotations = yes;
        self
    }

    /// Cut results at `n` bytes (default [`DEFAULT_ADOPTED_RESULT_BYTES`]).
    pub fn max_result_bytes(mut self, n: usize) -> Self {
        self.max_result_bytes = n;
        self
    }

    /// Cut descriptions at `n` bytes, with a marker (default
    /// [`DEFAULT_MAX_DESCRIPTION_BYTES`]).
    pub fn max_description_bytes(mut self, n: usize) -> Self {
        self.max_description_bytes = n;
        self
    }

    /// Bound each call of the adopted tools (unset: the client's
    /// [`request_timeout`](super::ClientOptions::request_timeout)). A call's
    /// [`Context`](crate::Context) deadline, when sooner, still wins; the precedence is in
    /// the [`client`](super) module docs.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Name the local tools an adopted name must not collide with.
    pub fn known<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.known.extend(names.into_iter().map(Into::into));
        self
    }
}

/// Why a tool was not adopted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RejectReason {
    /// The server gave it no name (or an empty one).
    NoName,
    /// The server gave it no `inputSchema`.
    NoInputSchema,
    /// Not on the allowlist.
    NotAllowed,
    /// No include glob matched.
    NotIncluded,
    /// An exclude glob matched.
    Excluded {
        /// The glob.
        glob: String,
    },
    /// The input schema was refused.
    Schema(SchemaRefusal),
    /// Its `x-mcp-header` declarations break SEP-2243's rules (2026-07-28): an empty name,
    /// one an HTTP header cannot carry, two equal ignoring case, one on a parameter that is not
    /// a string, integer or boolean, or one not reachable through `properties` alone. The
    /// spec has the client drop such a tool so the server's other tools stay usable; toolwire
    /// does so on every transport (the spec requires it over HTTP and lets stdio ignore the
    /// annotations), so a tool is adopted or not whatever carries it.
    ParamHeaders {
        /// What is wrong (`x-mcp-header 'Score' on arguments.score is on a parameter of type
        /// number; …`).
        reason: String,
    },
    /// Another of the server's tools already took the sanitised name.
    DuplicateName {
        /// The adopted name.
        name: String,
    },
    /// Cut by `max_tools`.
    OverLimit {
        /// The limit.
        max_tools: usize,
    },
    /// Its adopted name is a local tool's; it is also listed in
    /// [`Discovery::conflicts`].
    Conflict {
        /// The adopted name.
        name: String,
    },
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectReason::NoName => f.write_str("the server gave it no name"),
            RejectReason::NoInputSchema => f.write_str("the server gave it no inputSchema"),
            RejectReason::NotAllowed => f.write_str("not on the allowlist"),
            RejectReason::NotIncluded => f.write_str("matched no include glob"),
            RejectReason::Excluded { glob } => write!(f, "matched exclude glob '{glob}'"),
            RejectReason::Schema(refusal) => refusal.fmt(f),
            RejectReason::ParamHeaders { reason } => {
                write!(f, "its x-mcp-header declarations are invalid: {reason}")
            }
            RejectReason::DuplicateName { name } => {
                write!(f, "another tool of this server is already adopted as '{name}'")
            }
            RejectReason::OverLimit { max_tools } => write!(f, "over max_tools ({max_tools})"),
            RejectReason::Conflict { name } => write!(f, "a local tool is already named '{name}'"),
        }
    }
}

/// One tool that was not adopted, and why ([`Display`](fmt::Display): `'<name>': <reason>`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rejected {
    /// The server's name for it.
    pub name: String,
    /// Why.
    pub reason: RejectReason,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", super::schema::Quoted(&self.name), self.reason)
    }
}

/// [`Discovery::get`] was given a name that is not an adopted tool's name on the server.
///
/// ```text
/// server 'weather' has no adopted tool 'forcast'. Adopted tools, by the server's names: ['boom', 'forecast']
/// server 'weather' has no adopted tool 'weather__forecast': that is the adopted name of 'forecast'; name tools by the server's name
/// server 'weather' has no adopted tool 'reset': it was rejected: not on the allowlist
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownTool {
    /// The server's configured name.
    pub server: String,
    /// The name asked for.
    pub name: String,
    /// The adopted tools' names on the server, in the server's order.
    pub adopted: Vec<String>,
    why: Unknown,
}

/// Why a name given to [`Discovery::get`] matched nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unknown {
    /// It is the adopted (prefixed) name of the server's tool `remote`.
    AdoptedName { remote: String },
    /// The server lists it, but it was rejected for `reason`.
    Rejected { reason: String },
    /// The server does not list it.
    NotListed,
}

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "server '{}' has no adopted tool '{}'", self.server, self.name)?;
        match &self.why {
            Unknown::AdoptedName { remote } => {
                write!(f, ": that is the adopted name of '{remote}'; name tools by the server's name")
            }
            Unknown::Rejected { reason } => write!(f, ": it was rejected: {reason}"),
            Unknown::NotListed => {
                let mut names = self.adopted.clone();
                names.sort_unstable();
                write!(f, ". Adopted tools, by the server's names: {}", crate::args::PyList(&names))
            }
        }
    }
}

impl std::error::Error for UnknownTool {}

/// What [`Client::adopt`] did: the adopted tools, the rejected ones with reasons, the
/// conflicts with local tools, and whether `max_tools` truncated the list.
///
/// Every tool the server listed is accounted for: `tools().len() + rejected().len()` is
/// the length of the list (a conflict is among the rejected too).
#[derive(Debug, Clone)]
pub struct Discovery {
    client: Client,
    options: AdoptOptions,
    tools: Vec<Arc<RemoteTool>>,
    rejected: Vec<Rejected>,
    conflicts: Vec<String>,
    truncated: bool,
}

impl Discovery {
    /// The adopted tools, in the server's order. Held: unchanged until [`refresh`](Self::refresh).
    pub fn tools(&self) -> &[Arc<RemoteTool>] {
        &self.tools
    }

    /// The adopted tool a model calls `name`: the prefixed, sanitised name in its
    /// [`info`](crate::Tool::info), the one a host receives in a model's tool call. `None`
    /// when no adopted tool has it ([`get`](Self::get) takes the server's name instead).
    pub fn by_adopted_name(&self, name: &str) -> Option<&Arc<RemoteTool>> {
        self.tools.iter().find(|t| t.info().name() == name)
    }

    /// The adopted tool the server calls `name` (its name on the server, not the prefixed
    /// name the model sees; see [naming](super#naming)).
    ///
    /// A name that is not one of the adopted tools is an [`UnknownTool`] listing the ones
    /// that are, and saying why when the server's tool was rejected or when `name` is an
    /// adopted (prefixed) name.
    pub fn get(&self, name: &str) -> Result<&Arc<RemoteTool>, UnknownTool> {
        if let Some(t) = self.tools.iter().find(|t| t.remote_name() == name) {
            return Ok(t);
        }
        let why = if let Some(t) = self.tools.iter().find(|t| t.info().name() == name) {
            Unknown::AdoptedName { remote: t.remote_name().to_owned() }
        } else if let Some(r) = self.rejected.iter().find(|r| r.name == name) {
            Unknown::Rejected { reason: r.reason.to_string() }
        } else {
            Unknown::NotListed
        };
        Err(UnknownTool {
            server: self.client.name().to_owned(),
            name: name.to_owned(),
            adopted: self.tools.iter().map(|t| t.remote_name().to_owned()).collect(),
            why,
        })
    }

    /// The tools that were not adopted, each with a reason a person can read, in the
    /// server's order.
    pub fn rejected(&self) -> &[Rejected] {
        &self.rejected
    }

    /// Adopted names withheld because a local tool has them.
    pub fn conflicts(&self) -> &[String] {
        &self.conflicts
    }

    /// Whether `max_tools` cut the list.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The adopted tools as a registry.
    pub fn registry(&self) -> Result<ToolRegistry, RegistryError> {
        ToolRegistry::from_tools(self.tools.iter().map(|t| Arc::clone(t) as Arc<dyn Tool>))
    }

    /// Re-list the server's tools (bypassing the cache) and adopt them again under the same
    /// options. This is the only way the view changes.
    pub async fn refresh(&mut self) -> Result<(), ClientError> {
        let fresh = adopt(&self.client, self.options.clone(), true).await?;
        *self = fresh;
        Ok(())
    }
}

impl Client {
    /// Adopt the server's tools (see the module docs of `client::adopt` for the rules).
    pub async fn adopt(&self, options: AdoptOptions) -> Result<Discovery, ClientError> {
        adopt(self, options, false).await
    }
}

async fn adopt(client: &Client, options: AdoptOptions, force: bool) -> Result<Discovery, ClientError> {
    let listed = client.list_tools(force).await?;
    let prefix =
        sanitise_tool_name(&options.prefix.clone().unwrap_or_else(|| format!("{}__", client.name())));
    let mut tools = Vec::new();
    let mut rejected = Vec::new();
    let mut conflicts = Vec::new();
    let mut taken = BTreeSet::new();
    let mut truncated = false;
    for t in listed.iter() {
        let reject = |reason| Rejected { name: t.name.clone(), reason };
        if t.name.is_empty() {
            rejected.push(reject(RejectReason::NoName));
            continue;
        }
        if options.allow.as_ref().is_some_and(|a| !a.contains(&t.name)) {
            rejected.push(reject(RejectReason::NotAllowed));
            continue;
        }
        if !options.include.is_empty() && !options.include.iter().any(|g| glob(g, &t.name)) {
            rejected.push(reject(RejectReason::NotIncluded));
            continue;
        }
        if let Some(g) = options.exclude.iter().find(|g| glob(g, &t.name)) {
            rejected.push(reject(RejectReason::Excluded { glob: g.clone() }));
            continue;
        }
        if t.input_schema.is_null() {
            rejected.push(reject(RejectReason::NoInputSchema));
            continue;
        }
        let checked = match check(client.name(), &t.name, &t.input_schema) {
            Ok(c) => c,
            Err(refusal) => {
                rejected.push(reject(RejectReason::Schema(refusal)));
                continue;
            }
        };
        let param_headers = match param_headers::validate(&t.input_schema) {
            Ok(p) => p,
            Err(reason) => {
                tracing::warn!(server = %client.name(), tool = %t.name, %reason, "tool not adopted: invalid x-mcp-header");
                rejected.push(reject(RejectReason::ParamHeaders { reason }));
                continue;
            }
        };
        let mut name = format!("{prefix}{}", sanitise_tool_name(&t.name));
        name.truncate(MAX_NAME_LEN);
        if options.known.contains(&name) {
            conflicts.push(name.clone());
            rejected.push(reject(RejectReason::Conflict { name }));
            continue;
        }
        if !taken.insert(name.clone()) {
            rejected.push(reject(RejectReason::DuplicateName { name }));
            continue;
        }
        if options.max_tools.is_some_and(|max| tools.len() >= max) {
            truncated = true;
            rejected
                .push(reject(RejectReason::OverLimit { max_tools: options.max_tools.unwrap_or_default() }));
            continue;
        }
        let (declarations, delivery) = declarations(&t.hints, &options);
        let terms = Terms {
            declarations,
            delivery,
            timeout: options.timeout,
            max_result_bytes: options.max_result_bytes,
            max_description_bytes: options.max_description_bytes,
            param_headers,
        };
        tools.push(Arc::new(RemoteTool::new(client.clone(), name, t, checked, terms)));
    }
    Ok(Discovery { client: client.clone(), options, tools, rejected, conflicts, truncated })
}

/// Whether `name` matches `pattern` (`*` any run, `?` one character).
pub(crate) fn glob(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// The declarations and delivery for a tool's hints under `options` (the table in
/// [`RemoteTool`]'s module docs).
pub(crate) fn declarations(hints: &ToolHints, options: &AdoptOptions) -> (Declarations, DeliveryGuarantee) {
    let trusted = |h: Option<bool>| options.trust_annotations && h == Some(true);
    let read_only = trusted(hints.read_only);
    let idempotent = read_only || trusted(hints.idempotent);
    let delivery = if idempotent { DeliveryGuarantee::AtLeastOnce } else { DeliveryGuarantee::AtMostOnce };
    let requires_approval = match options.approval {
        RequireApproval::None => false,
        RequireApproval::Always => true,
        RequireApproval::Destructive => !read_only,
    };
    // MCP's default for openWorldHint is true; only a trusted `false` narrows it.
    let open_world = !(options.trust_annotations && hints.open_world == Some(false));
    let d = Declarations {
        side_effecting: !read_only,
        requires_approval,
        caps: Vec::new(),
        idempotent,
        open_world,
        scopes: Vec::new(),
    };
    (d, delivery)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_runs_and_single_characters() {
        assert!(glob("read_*", "read_file"));
        assert!(glob("*delete*", "bulk_delete_all"));
        assert!(glob("get_?", "get_x"));
        assert!(!glob("get_?", "get_xy"));
        assert!(!glob("read_*", "write_file"));
        assert!(glob("*", ""));
    }

    #[test]
    fn the_approval_table_holds() {
        let ro = ToolHints { read_only: Some(true), ..ToolHints::default() };
        let idem = ToolHints { idempotent: Some(true), ..ToolHints::default() };
        let none = ToolHints::default();
        let destructive = AdoptOptions::default().approval(RequireApproval::Destructive);
        let (d, del) = declarations(&ro, &destructive);
        assert_eq!(
            (d.side_effecting, d.requires_approval, del),
            (false, false, DeliveryGuarantee::AtLeastOnce)
        );
        let (d, del) = declarations(&idem, &destructive);
        assert_eq!(
            (d.side_effecting, d.requires_approval, del),
            (true, true, DeliveryGuarantee::AtLeastOnce)
        );
        let (d, del) = declarations(&none, &destructive);
        assert_eq!((d.side_effecting, d.requires_approval, del), (true, true, DeliveryGuarantee::AtMostOnce));
        let untrusting = destructive.clone().trust_annotations(false);
        let (d, del) = declarations(&ro, &untrusting);
        assert_eq!(
            (d.side_effecting, d.requires_approval, del, d.idempotent),
            (true, true, DeliveryGuarantee::AtMostOnce, false)
        );
        let (d, _) = declarations(&ro, &AdoptOptions::default());
        assert!(!d.requires_approval);
        let (d, _) = declarations(&ro, &AdoptOptions::default().approval(RequireApproval::Always));
        assert!(d.requires_approval);
    }
}
