//! What `#[tool]`, `tools![]` and `serve_registry!` expand to. Not public API: nothing here
//! is covered by semver, and user code should never name it.
//!
//! Expansions stay thin: they call these helpers, and the logic lives here, in ordinary
//! unit-tested code.

#![allow(missing_docs, unreachable_pub)]

use std::borrow::Cow;
pub use std::sync::Arc;

pub use serde_json::Value;

pub use crate::args::{ArgSpec, Args, ParamSpec, ToolParam};
pub use crate::cli::{IntoServer, MainSpec, Surface, serve_main};
pub use crate::context::Context;
pub use crate::registry::{RegistryError, ToolRegistry};
pub use crate::schema::Schema;
pub use crate::state::State;
pub use crate::tool::{Declarations, Tool, ToolError, ToolFuture, ToolInfo, ToolOutput};
pub use crate::tool::{Json, ToolReturn};
pub use core::concat;
pub use serde_json::value::RawValue;
pub use std::boxed::Box;
pub use std::sync::OnceLock;

use crate::schema_gen::SchemaGen;

/// Everything a `#[tool]` computes once: its info, and the facts its arguments are checked
/// against.
#[derive(Debug)]
pub struct ToolStatics {
    pub info: ToolInfo,
    pub args: ArgSpec,
    /// Whether structured results are wrapped as `{"result": …}`.
    pub wraps_output: bool,
}

/// Builds [`ToolStatics`]; the expansion calls one method per parameter.
pub struct StaticsBuilder {
    name: &'static str,
    description: Cow<'static, str>,
    title: Option<&'static str>,
    declarations: Declarations,
    generator: SchemaGen,
    params: Vec<ParamSpec>,
    output: Option<(Schema, bool)>,
    state_needs: Vec<crate::state::StateNeed>,
    icons: Vec<crate::protocol::wire::Icon>,
    meta: Vec<(&'static str, Value)>,
    task: crate::tool::TaskSupport,
    /// Whether a parameter is taken from the call's context (which can read its request).
    injects: bool,
}

impl StaticsBuilder {
    pub fn new(name: &'static str, description: &'static str) -> Self {
        StaticsBuilder {
            name,
            description: Cow::Borrowed(description.trim()),
            title: None,
            declarations: Declarations::default(),
            generator: SchemaGen::new(),
            params: Vec::new(),
            output: None,
            state_needs: Vec::new(),
            icons: Vec::new(),
            meta: Vec::new(),
            injects: false,
            task: crate::tool::TaskSupport::Forbidden,
        }
    }

    /// `#[tool(task = "optional" | "required")]` (checked by `#[tool]`): whether calls may
    /// run as tasks.
    pub fn task(mut self, required: bool) -> Self {
        self.task =
            if required { crate::tool::TaskSupport::Required } else { crate::tool::TaskSupport::Optional };
        self
    }

    pub fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// One `icon`; every part was checked by `#[tool]`.
    pub fn icon(
        mut self,
        src: &'static str,
        mime_type: Option<&'static str>,
        sizes: &[&'static str],
        theme: Option<&'static str>,
    ) -> Self {
        self.icons.push(icon(src, mime_type, sizes, theme));
        self
    }

    /// One custom `_meta` entry; the key was checked by `#[tool]`.
    pub fn meta(mut self, key: &'static str, value: Value) -> Self {
        self.meta.push((key, value));
        self
    }

    pub fn declarations(
        mut self,
        side_effecting: bool,
        requires_approval: bool,
        idempotent: bool,
        open_world: bool,
        caps: &[&str],
    ) -> Self {
        self.declarations = Declarations {
            side_effecting,
            requires_approval,
            idempotent,
            open_world,
            ..Declarations::default()
        }
        .with_caps(caps.iter().copied());
        self
    }

    /// The OAuth scopes a caller needs (`#[tool(scopes = [..])]`, checked by `#[tool]`).
    pub fn scopes(mut self, scopes: &[&str]) -> Self {
        self.declarations = std::mem::take(&mut self.declarations).with_scopes(scopes.iter().copied());
        self
    }
}

/// The expansion describes each argument here, through [`ToolInput::describe`].
impl crate::inject::Describe for StaticsBuilder {
    fn argument<T: ToolParam>(
        &mut self,
        name: &'static str,
        doc: &'static str,
        optional: bool,
        default: Option<Value>,
    ) {
        let mut schema = self.generator.subschema::<T>();
        let doc = normalise_doc(doc);
        if let Value::Object(map) = &mut schema {
            if !doc.is_empty() {
                map.insert("description".into(), doc.into());
            }
            if let Some(default) = default {
                map.insert("default".into(), default);
            }
        }
        self.params.push(ParamSpec { name: Cow::Borrowed(name), required: !optional, schema });
    }

    fn state(&mut self, need: crate::state::StateNeed) {
        self.state_needs.push(need);
    }

    fn injected(&mut self) {
        self.injects = true;
    }
}

impl StaticsBuilder {
    pub fn output(mut self, output: Option<(Schema, bool)>) -> Self {
        self.output = output;
        self
    }

    pub fn build(mut self) -> ToolStatics {
        let defs = self.generator.take_defs();
        let args = ArgSpec::new(Cow::Borrowed(self.name), self.params, defs);
        let input = Schema::from_canonical(args.input_schema_text());
        let mut info = ToolInfo::new(self.name, self.description, input)
            .with_declarations(self.declarations)
            .with_task_support(self.task)
            .with_output_by_construction();
        if !self.injects {
            info = info.never_reads_request();
        }
        if let Some(title) = self.title {
            info = info.with_title(title);
        }
        for icon in self.icons {
            info = info.with_icon(icon);
        }
        for (key, value) in self.meta {
            // `#[tool]` checked each key against the same grammar and refused duplicates.
            let name = self.name;
            info = info.with_meta(key, value).unwrap_or_else(|e| panic!("#[tool] `{name}`: {e}"));
        }
        for need in self.state_needs {
            info = info.with_state_need(need);
        }
        let mut wraps_output = false;
        if let Some((schema, wraps)) = self.output {
            info = info.with_output_schema(schema);
            wraps_output = wraps;
        }
        ToolStatics { info, args, wraps_output }
    }
}

/// A doc comment as a description: each line's one leading space (the one after `///`)
/// dropped, and the whole trimmed.
pub fn normalise_doc(doc: &str) -> String {
    let lines: Vec<&str> = doc.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect();
    lines.join("\n").trim().to_owned()
}

#[cfg(feature = "fuzzing")]
pub mod fuzz;
pub mod probes;
pub mod prompt;
pub mod remote;
pub use crate::complete::Complete;
pub use crate::inject::{SettleSeed, ToolInput, ViaArguments, ViaContext, ViaSettledArgument};
pub use crate::prompt::{Prompt, PromptArguments, PromptFuture, PromptInfo};
pub use probes::{IntoOutcome, outcome};
pub use prompt::{
    AsyncCompleter, DirectCompleter, IntoCompleter, PromptBuilder, SyncCompleter, completer, prompt_arg,
    prompt_arg_opt, prompt_registry, prompt_return, shared_prompt,
};
pub use remote::*;

// Running a body lives in `tool::run`; the expansions reach it through here.
pub use crate::tool::{CatchUnwind, panic_message, run_async, run_blocking, run_inline, run_local};

/// A `#[tool]` `async fn`'s future must be `Send` to run as any call does; the call of
/// [`send_or_write_tool_local`] is spanned at its `async`, so a future that is not is reported
/// there, and the bound's name says the way out (rustc reports a future's missing `Send` with
/// its own message, not this trait's, but names the function whose bound failed).
#[diagnostic::on_unimplemented(
    message = "the future of this `#[tool]` fn is not `Send`",
    label = "this body holds something that is not `Send` across an `.await`",
    note = "write `#[tool(local)]` to run it on a local thread of toolwire's, where its future need not be `Send`"
)]
pub trait SendOrWriteToolLocal {}

impl<T: Send> SendOrWriteToolLocal for T {}

/// The future, unchanged, once it is known to be `Send` (see [`SendOrWriteToolLocal`]).
pub fn send_or_write_tool_local<F: SendOrWriteToolLocal>(f: F) -> F {
    f
}

/// What a `tools![]` item that is not a path may be: a registry (a toolbox's
/// `Db::tools(db)`) merged into the one being built.
pub trait Include {
    fn include(self, into: &mut ToolRegistry) -> Result<(), RegistryError>;
}

impl Include for ToolRegistry {
    fn include(self, into: &mut ToolRegistry) -> Result<(), RegistryError> {
        into.merge(self)
    }
}

impl Include for Result<ToolRegistry, RegistryError> {
    fn include(self, into: &mut ToolRegistry) -> Result<(), RegistryError> {
        into.merge(self?)
    }
}

/// One `icon` of `#[tool]` or `#[resource]`, every part checked by the macro.
pub fn icon(
    src: &'static str,
    mime_type: Option<&'static str>,
    sizes: &[&'static str],
    theme: Option<&'static str>,
) -> crate::protocol::wire::Icon {
    use crate::protocol::wire::{Icon, IconTheme};
    let mut icon = Icon::new(src).with_sizes(sizes.iter().copied());
    if let Some(m) = mime_type {
        icon = icon.with_mime_type(m);
    }
    match theme {
        Some("light") => icon = icon.with_theme(IconTheme::Light),
        Some("dark") => icon = icon.with_theme(IconTheme::Dark),
        _ => {}
    }
    icon
}

/// Box a tool for a registry.
pub fn shared<T: Tool>(tool: T) -> Arc<dyn Tool> {
    Arc::new(tool)
}

// ---- `#[resource]` and `resources![]` ----

/// What `resources![]` calls on each `#[resource]` companion struct.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource",
    label = "this is not a `#[resource]` fn",
    note = "put `#[toolwire::resource(uri = \"..\")]` or `#[toolwire::resource(template = \"..\")]` on a fn and name the fn here"
)]
pub trait ResourceEntry {
    fn register(
        self,
        registry: &mut crate::resource::ResourceRegistry,
    ) -> Result<(), crate::resource::ResourceRegistryError>;
}

/// A template the macro already parsed at compile time.
pub fn template(text: &'static str) -> crate::resource::UriTemplate {
    crate::resource::UriTemplate::parse(text)
        .unwrap_or_else(|e| panic!("#[resource] checked this template: {e}"))
}

/// A template's variables as typed parameters: the facts their values are checked against,
/// the same an argument of a `#[tool]` is checked against.
#[derive(Debug)]
pub struct TemplateSpec {
    pub template: &'static str,
    pub args: ArgSpec,
}

/// Builds a [`TemplateSpec`]: one [`variable`](Self::variable) per parameter, in fn order.
pub struct TemplateSpecBuilder(&'static str, StaticsBuilder);

impl TemplateSpec {
    #[allow(clippy::new_ret_no_self)]
    pub fn new(template: &'static str) -> TemplateSpecBuilder {
        TemplateSpecBuilder(template, StaticsBuilder::new(template, ""))
    }

    /// The variables as the arguments object [`ArgSpec::parse`] checks.
    pub fn arguments(&self, variables: &[(String, String)]) -> Box<RawValue> {
        crate::resource::variables_as_arguments(&self.args, variables)
    }
}

impl TemplateSpecBuilder {
    pub fn variable<T: ToolParam>(mut self, name: &'static str) -> Self {
        crate::inject::Describe::argument::<T>(&mut self.1, name, "", false, None);
        self
    }

    pub fn build(self) -> TemplateSpec {
        TemplateSpec { template: self.0, args: self.1.build().args }
    }
}

/// A variable's value was refused: the argument problem, as a resource error.
pub fn bad_variable(
    uri: &str,
    spec: &TemplateSpec,
    error: crate::args::ToolArgumentError,
) -> crate::resource::ResourceError {
    crate::resource::ResourceError::BadVariable {
        uri: uri.to_owned(),
        template: spec.template.to_owned(),
        problem: Box::new(error.problem),
    }
}
