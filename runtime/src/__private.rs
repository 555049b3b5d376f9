//! What `#[tool]`, `tools![]` and `serve_registry!` expand to. Not public API: nothing here
//! is covered by semver, and user code should never name it.
//!
//! Expansions stay thin: they call these helpers, and the logic lives here, in ordinary
//! unit-tested code.

#![allow(missing_docs, unreachable_pub)]

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

pub use crate::args::{ArgSpec, Args, ParamSpec, ToolParam};
pub use crate::cli::{MainSpec, serve_main};
pub use crate::context::Context;
pub use crate::registry::ToolRegistry;
pub use crate::schema::Schema;
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
        }
    }

    pub fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
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
}

impl StaticsBuilder {
    pub fn output(mut self, output: Option<(Schema, bool)>) -> Self {
        self.output = output;
        self
    }

    pub fn build(mut self) -> ToolStatics {
        let defs = self.generator.take_defs();
        let args = ArgSpec::new(Cow::Borrowed(self.name), self.params, defs);
        let input = Schema::from_value(args.input_schema());
        let mut info = ToolInfo::new(self.name, self.description, input).with_declarations(self.declarations);
        if let Some(title) = self.title {
            info = info.with_title(title);
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
pub use crate::inject::{ToolInput, ViaArguments, ViaContext};
pub use probes::{IntoOutcome, outcome};

// Running a body lives in `tool::run`; the expansions reach it through here.
pub use crate::tool::{CatchUnwind, panic_message, run_async, run_blocking, run_inline};

/// Box a tool for a registry.
pub fn shared<T: Tool>(tool: T) -> Arc<dyn Tool> {
    Arc::new(tool)
}
