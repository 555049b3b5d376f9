//! [`ToolInfo`]: what a tool says about itself (name, title, description, schemas, icons,
//! custom `_meta` entries), and its [`Declarations`] (effects, approval, capabilities) with the
//! MCP [`Annotations`] derived from them.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::protocol::wire::Icon;

use crate::schema::Schema;
use crate::state::StateNeed;

/// What a tool says about itself.
///
/// Everything here is computed once per process (for a `#[tool]`, on first use) and then
/// only read: serving a listing or a call does no schema work.
#[derive(Debug, Clone)]
pub struct ToolInfo {
    name: Cow<'static, str>,
    title: Option<Cow<'static, str>>,
    description: Cow<'static, str>,
    input_schema: Schema,
    output_schema: Option<Schema>,
    declarations: Declarations,
    state_needs: Vec<StateNeed>,
    icons: Vec<Icon>,
    /// Custom `_meta` entries, sorted by key, never `toolwire`.
    meta: Vec<(Cow<'static, str>, Value)>,
    /// Whether `#[tool]` built this, so the structured output matches the output schema by
    /// construction and the engine need not check it.
    output_by_construction: bool,
    /// The client capabilities a call needs (see [`ToolInfo::requires_client`]).
    required_client: Vec<crate::protocol::ClientCapability>,
    /// Whether a call may run as a task (see [`ToolInfo::with_task_support`]).
    task_support: TaskSupport,
    reads_request: bool,
}

/// Whether a call of a tool may run as a task of the tasks extension
/// (`io.modelcontextprotocol/tasks`): answered at once with a task handle the client polls
/// (`tasks/get`), answers (`tasks/update`) and cancels (`tasks/cancel`), while the body runs
/// on. `#[tool(task = "optional")]` and `#[tool(task = "required")]` say it.
///
/// Whether a call *does* run as one is the server's decision, made per call: only for a
/// 2026-07-28 request whose `_meta` declares the extension, and only once the body waits on
/// something other than the client (see the README's "Long-running tools"): a body that
/// finishes at once is answered with its result, and the asks it makes before its first
/// wait are `input_required` rounds of the call itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task: the call is answered when the body returns (the default).
    #[default]
    Forbidden,
    /// A task when the client declared the extension; otherwise an ordinary call.
    Optional,
    /// Only as a task: a client that did not declare the extension is refused with
    /// -32021 (`data.requiredCapabilities` names the extension), and the body is not run.
    Required,
}

impl TaskSupport {
    /// The value as `#[tool(task = ..)]` spells it: `forbidden`, `optional`, `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// A registered tool offered to the client's model while sampling: its name, description and
/// input schema, as `tools/list` shows them. What
/// [`SamplingRequest::offer`](crate::context::SamplingRequest::offer) takes.
///
/// ```
/// use toolwire::context::{SamplingRequest, SamplingTool};
/// use toolwire::{Schema, ToolInfo};
///
/// let info = ToolInfo::new("add", "Add two numbers.", Schema::empty_object());
/// let request = SamplingRequest::new(100).user("2 + 3?").offer(&info);
/// assert_eq!(request.tools, [SamplingTool::new("add", "Add two numbers.", Schema::empty_object().value().clone())]);
/// ```
impl From<&ToolInfo> for crate::context::SamplingTool {
    fn from(info: &ToolInfo) -> Self {
        crate::context::SamplingTool::new(
            info.name(),
            info.description(),
            info.input_schema().value().clone(),
        )
    }
}

/// A custom `_meta` key that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidMetaKey {
    /// Outside MCP's `_meta` key grammar: an optional `label.label/` prefix, then a name that
    /// begins and ends with a letter or digit (`-`, `_`, `.` inside).
    #[error("`_meta` key '{0}' is not a valid MCP `_meta` key; write `name` or `com.example/name`")]
    Grammar(String),
    /// The prefix is reserved for MCP (its second label is `modelcontextprotocol` or `mcp`).
    #[error("`_meta` key '{0}' uses a prefix MCP reserves for itself; use your own, e.g. `com.example/`")]
    Reserved(String),
    /// `toolwire` carries the declarations; a custom entry beside it cannot replace it.
    #[error("`_meta` key 'toolwire' is where the declarations travel; name your entry differently")]
    Toolwire,
    /// The key was given twice.
    #[error("`_meta` key '{0}' is given twice")]
    Duplicate(String),
}

/// Check a custom `_meta` key against MCP's grammar and reservations (2025-11-25, "`_meta`").
pub fn check_meta_key(key: &str) -> Result<(), InvalidMetaKey> {
    match toolwire_grammar::meta_key::meta_key_problem(key) {
        None => Ok(()),
        Some("toolwire") => Err(InvalidMetaKey::Toolwire),
        Some("reserved") => Err(InvalidMetaKey::Reserved(key.to_owned())),
        Some(_) => Err(InvalidMetaKey::Grammar(key.to_owned())),
    }
}

impl ToolInfo {
    /// A tool with a name, a description and an input schema; no title, no output schema,
    /// and the default (side-effecting) declarations.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Schema,
    ) -> Self {
        ToolInfo {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            declarations: Declarations::default(),
            state_needs: Vec::new(),
            icons: Vec::new(),
            meta: Vec::new(),
            output_by_construction: false,
            required_client: Vec::new(),
            task_support: TaskSupport::Forbidden,
            reads_request: true,
        }
    }

    /// Let calls of this tool run as tasks (the tasks extension): [`TaskSupport::Optional`]
    /// or [`TaskSupport::Required`]. What `#[tool(task = "optional")]` says.
    ///
    /// ```
    /// use toolwire::tool::TaskSupport;
    /// use toolwire::{Schema, ToolInfo};
    ///
    /// let info = ToolInfo::new("build", "Build the project.", Schema::empty_object())
    ///     .with_task_support(TaskSupport::Optional);
    /// assert_eq!(info.task_support(), TaskSupport::Optional);
    /// ```
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Whether calls may run as tasks ([`with_task_support`](Self::with_task_support)).
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// Say that this tool never reads the request a call came in
    /// ([`Context::request`](crate::Context::request), its headers and `_meta`): a server
    /// then keeps none of it for the tool's calls, and a call over HTTP copies no headers.
    /// `#[tool]` says it for a fn that takes nothing from its context (no `&Context`,
    /// `CallRequest` or other injected parameter); a tool built by hand reads it unless it
    /// says so. A tool that says so and reads it anyway finds it empty.
    ///
    /// ```
    /// use toolwire::{Schema, ToolInfo};
    ///
    /// let info = ToolInfo::new("add", "Add two numbers.", Schema::empty_object());
    /// assert!(info.reads_request());
    /// assert!(!info.never_reads_request().reads_request());
    /// ```
    pub fn never_reads_request(mut self) -> Self {
        self.reads_request = false;
        self
    }

    /// Whether the tool may read its calls' requests
    /// ([`never_reads_request`](Self::never_reads_request)).
    pub fn reads_request(&self) -> bool {
        self.reads_request
    }

    /// Declare that every call of this tool needs the client's `capability` (say, a tool
    /// that cannot do its job without sampling). A call from a client that did not declare
    /// it is refused before the tool runs, with JSON-RPC -32021
    /// (`MissingRequiredClientCapability`, `data.requiredCapabilities` naming what is
    /// missing), in both eras; nothing is asked. Call once per capability.
    ///
    /// ```
    /// use toolwire::protocol::ClientCapability;
    /// use toolwire::{Schema, ToolInfo};
    ///
    /// let info = ToolInfo::new("summarise", "Summarise with the client's model.", Schema::empty_object())
    ///     .requires_client(ClientCapability::Sampling);
    /// assert_eq!(info.required_client(), [ClientCapability::Sampling]);
    /// ```
    pub fn requires_client(mut self, capability: crate::protocol::ClientCapability) -> Self {
        if !self.required_client.contains(&capability) {
            self.required_client.push(capability);
        }
        self
    }

    /// The client capabilities a call needs ([`requires_client`](Self::requires_client)).
    pub fn required_client(&self) -> &[crate::protocol::ClientCapability] {
        &self.required_client
    }

    /// Mark the output as matching the output schema by construction (`#[tool]` only).
    pub(crate) fn with_output_by_construction(mut self) -> Self {
        self.output_by_construction = true;
        self
    }

    /// Whether the engine checks this tool's structured output against its output schema
    /// before it leaves: every tool that advertises one, except those `#[tool]` made (whose
    /// output is the schema's own type).
    pub fn output_checked(&self) -> bool {
        self.output_schema.is_some() && !self.output_by_construction
    }

    /// Add an icon a client may show beside the tool.
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Add a custom `_meta` entry, advertised beside the `toolwire` key in `tools/list`.
    ///
    /// The key must follow MCP's `_meta` grammar (`name` or `com.example/name`), must not use
    /// a prefix MCP reserves, and cannot be `toolwire` or given twice.
    ///
    /// ```
    /// use toolwire::{Schema, ToolInfo};
    ///
    /// let info = ToolInfo::new("deploy", "Deploy it.", Schema::empty_object())
    ///     .with_meta("com.example/owner", serde_json::json!("platform-team"))?;
    /// assert_eq!(info.meta()[0].0, "com.example/owner");
    /// let err = info.with_meta("io.modelcontextprotocol/x", serde_json::json!(1)).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "`_meta` key 'io.modelcontextprotocol/x' uses a prefix MCP reserves for itself; use your own, e.g. `com.example/`"
    /// );
    /// # Ok::<(), toolwire::tool::InvalidMetaKey>(())
    /// ```
    pub fn with_meta(
        mut self,
        key: impl Into<Cow<'static, str>>,
        value: Value,
    ) -> Result<Self, InvalidMetaKey> {
        let key = key.into();
        check_meta_key(&key)?;
        match self.meta.binary_search_by(|(k, _)| k.as_ref().cmp(key.as_ref())) {
            Ok(_) => Err(InvalidMetaKey::Duplicate(key.into_owned())),
            Err(at) => {
                self.meta.insert(at, (key, value));
                Ok(self)
            }
        }
    }

    /// The icons, in the order they were added.
    pub fn icons(&self) -> &[Icon] {
        &self.icons
    }

    /// The custom `_meta` entries, sorted by key.
    pub fn meta(&self) -> &[(Cow<'static, str>, Value)] {
        &self.meta
    }

    /// Declare that the tool takes a state value of type `T` from its registry
    /// ([`Context::state`](crate::Context::state)). A registry not given a `T` refuses the
    /// tool when it is built. `#[tool]` declares this for each `State<T>` parameter.
    pub fn with_state_need(mut self, need: StateNeed) -> Self {
        if !self.state_needs.contains(&need) {
            self.state_needs.push(need);
        }
        self
    }

    /// Set the human-readable title.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Set the output schema, the shape of `structuredContent`.
    pub fn with_output_schema(mut self, schema: Schema) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Set the declarations.
    pub fn with_declarations(mut self, declarations: Declarations) -> Self {
        self.declarations = declarations;
        self
    }

    /// The tool's name, as advertised and as called.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, if one was given.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description the model reads.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The input schema: canonical bytes plus the parsed value.
    pub fn input_schema(&self) -> &Schema {
        &self.input_schema
    }

    /// The output schema, when the tool returns structured content.
    pub fn output_schema(&self) -> Option<&Schema> {
        self.output_schema.as_ref()
    }

    /// Side effects, approval and capabilities.
    pub fn declarations(&self) -> &Declarations {
        &self.declarations
    }

    /// The MCP annotation hints the declarations imply.
    pub fn annotations(&self) -> Annotations {
        self.declarations.annotations()
    }

    /// The state types the tool takes from its registry, in the order they were declared.
    pub fn state_needs(&self) -> &[StateNeed] {
        &self.state_needs
    }
}

/// What a tool declares about its effects: the facts an approval gate and a run policy read.
///
/// The default is the safe side: a tool that says nothing is side-effecting, as MCP's own
/// defaults are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Declarations {
    /// The tool changes something outside itself (the default).
    pub side_effecting: bool,
    /// A human must approve each call.
    pub requires_approval: bool,
    /// Capability tags, sorted and unique, e.g. `"egress"`, `"private_data"`.
    pub caps: Vec<String>,
    /// Calling again with the same arguments has no further effect.
    #[serde(skip)]
    pub idempotent: bool,
    /// The tool reaches an open world (the web, other people) rather than a closed one.
    #[serde(skip)]
    pub open_world: bool,
    /// The OAuth scopes a caller must hold to see and call the tool, sorted and unique
    /// (`#[tool(scopes = ["files:write"])]`). Enforced by the server's
    /// [`Access`](crate::server::Access) in addition to any rule it gives the tool; the host
    /// ([`Principal::host`](crate::principal::Principal::host)) passes. Never sent to clients.
    #[serde(skip)]
    pub scopes: Vec<String>,
}

impl Default for Declarations {
    fn default() -> Self {
        Declarations {
            side_effecting: true,
            requires_approval: false,
            caps: Vec::new(),
            idempotent: false,
            open_world: false,
            scopes: Vec::new(),
        }
    }
}

impl Declarations {
    /// A tool that only reads: not side-effecting, no approval, no caps.
    pub fn read_only() -> Self {
        Declarations { side_effecting: false, ..Declarations::default() }
    }

    /// Set the capability tags; they are kept sorted and unique.
    pub fn with_caps<I, S>(mut self, caps: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut caps: Vec<String> = caps.into_iter().map(Into::into).collect();
        caps.sort();
        caps.dedup();
        self.caps = caps;
        self
    }

    /// Set the OAuth scopes a caller needs; they are kept sorted and unique.
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        scopes.sort();
        scopes.dedup();
        self.scopes = scopes;
        self
    }

    /// The MCP annotation hints these declarations imply.
    ///
    /// `readOnlyHint` is `!(side_effecting || requires_approval)`, not just `!side_effecting`:
    /// the hint is what a client consults to run a tool without asking, so a read-only tool
    /// that still requires approval must not advertise itself as free.
    pub fn annotations(&self) -> Annotations {
        let read_only = !(self.side_effecting || self.requires_approval);
        Annotations {
            read_only_hint: read_only,
            destructive_hint: self.side_effecting && !self.idempotent,
            idempotent_hint: self.idempotent || !self.side_effecting,
            open_world_hint: self.open_world,
        }
    }
}

/// MCP `ToolAnnotations`: hints a client may not trust. The exact declarations travel
/// beside them in `_meta` (see [`META_KEY`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// The tool does not modify its environment.
    pub read_only_hint: bool,
    /// The tool may perform destructive updates (meaningful only when not read-only).
    pub destructive_hint: bool,
    /// Repeating a call with the same arguments has no additional effect.
    pub idempotent_hint: bool,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: bool,
}

/// The key under `_meta` where a tool's exact declarations travel.
///
/// Namespaced because `_meta` is a shared bag: an unqualified `caps` would collide with
/// whatever the next middleware attaches.
pub const META_KEY: &str = "toolwire";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_hint_is_false_when_approval_is_required() {
        let d = Declarations { requires_approval: true, ..Declarations::read_only() };
        assert!(!d.annotations().read_only_hint);
        assert!(Declarations::read_only().annotations().read_only_hint);
        assert!(!Declarations::default().annotations().read_only_hint);
    }

    #[test]
    fn meta_keys_follow_the_spec_grammar() {
        for ok in
            ["owner", "com.example/owner", "com.example.mcp/x", "a-b/c_d.e", "x/", "a1", "com.example/9"]
        {
            assert_eq!(check_meta_key(ok), Ok(()), "{ok}");
        }
        for bad in ["", "-a", "a-", "com..example/x", "1com/x", "com-/x", "a/b c", "com.example/-x", "a b"] {
            assert_eq!(check_meta_key(bad), Err(InvalidMetaKey::Grammar(bad.into())), "{bad}");
        }
        for reserved in ["io.modelcontextprotocol/x", "dev.mcp/x", "com.mcp.tools/x"] {
            assert_eq!(check_meta_key(reserved), Err(InvalidMetaKey::Reserved(reserved.into())));
        }
        assert_eq!(check_meta_key("toolwire"), Err(InvalidMetaKey::Toolwire));
        let info = ToolInfo::new("t", "", Schema::empty_object())
            .with_meta("b", Value::Bool(true))
            .unwrap()
            .with_meta("a", Value::from(1))
            .unwrap();
        assert_eq!(info.meta().iter().map(|(k, _)| k.as_ref()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(info.with_meta("a", Value::Null).unwrap_err(), InvalidMetaKey::Duplicate("a".into()));
    }

    #[test]
    fn caps_are_sorted_and_unique() {
        let d = Declarations::default().with_caps(["egress", "private_data", "egress"]);
        assert_eq!(d.caps, ["egress", "private_data"]);
    }
}
