//! [`ToolInfo`]: what a tool says about itself (name, title, description, schemas), and its
//! [`Declarations`] (effects, approval, capabilities) with the MCP [`Annotations`] derived from them.

use std::borrow::Cow;

use serde::Serialize;

use crate::schema::Schema;

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
        }
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
}

impl Default for Declarations {
    fn default() -> Self {
        Declarations {
            side_effecting: true,
            requires_approval: false,
            caps: Vec::new(),
            idempotent: false,
            open_world: false,
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
    fn caps_are_sorted_and_unique() {
        let d = Declarations::default().with_caps(["egress", "private_data", "egress"]);
        assert_eq!(d.caps, ["egress", "private_data"]);
    }
}
