//! How a `#[tool]` fn's return value becomes a call's result: [`ToolReturn`], and the
//! output schema a structured return advertises.
//!
//! - `String` or `&'static str` is one text block.
//! - `()` is an empty result.
//! - [`ToolOutput`] is used as it is.
//! - Any `T: Serialize + JsonSchema` is `structuredContent`, with a matching `outputSchema`
//!   and the same JSON (canonical form) as a text block. MCP wants structured content to be
//!   an object, so a `T` whose schema is not an object is wrapped as `{"result": …}` (as the
//!   Python SDK does), and its output schema says so.
//! - `Result<T, E: Display>` is `T` as above, or a tool error `tool 'x' failed: <e>`: the
//!   tool's own message when `E` is [`ToolError`], otherwise [`ToolError::Internal`], which
//!   untrusted callers read only as `tool 'x' failed`.

use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use crate::schema::Schema;
use crate::schema_gen::SchemaGen;
use crate::sync::{read_lock, write_lock};
use crate::tool::{ToolError, ToolOutput};

/// A return type a `#[tool]` fn may have, other than a `Serialize + JsonSchema` value (which
/// `#[tool]` handles without this trait).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot become a tool result",
    label = "a `#[tool]` fn cannot return this",
    note = "return `String`, `ToolOutput`, `()`, a type that implements `Serialize + JsonSchema`, or a `Result` of one of these whose error implements `Display`"
)]
pub trait ToolReturn: Send + 'static {
    /// The output schema this return type advertises, if it has one.
    fn output_schema() -> Option<Schema> {
        None
    }

    /// Turn the value into a result for the tool called `tool`.
    fn into_output(self, tool: &str) -> Result<ToolOutput, ToolError>;
}

impl ToolReturn for String {
    fn into_output(self, _tool: &str) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl ToolReturn for &'static str {
    fn into_output(self, _tool: &str) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl ToolReturn for () {
    fn into_output(self, _tool: &str) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::default())
    }
}

impl ToolReturn for ToolOutput {
    fn into_output(self, _tool: &str) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl<T: ToolReturn, E: Display + Send + 'static> ToolReturn for Result<T, E> {
    fn output_schema() -> Option<Schema> {
        T::output_schema()
    }

    fn into_output(self, tool: &str) -> Result<ToolOutput, ToolError> {
        match self {
            Ok(v) => v.into_output(tool),
            Err(e) => Err(ToolError::from_body(tool, e)),
        }
    }
}

/// A structured value as a result: wrap a `T: Serialize + JsonSchema` in this to return it
/// from a hand-written tool, or let `#[tool]` do it for you.
#[derive(Debug, Clone, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema + Send + 'static> ToolReturn for Json<T> {
    fn output_schema() -> Option<Schema> {
        Some(structured_output_schema::<T>().0)
    }

    fn into_output(self, tool: &str) -> Result<ToolOutput, ToolError> {
        structured_output(tool, &self.0, wraps::<T>())
    }
}

/// The output schema for `T`, and whether values are wrapped as `{"result": …}`.
///
/// Computed once per type and kept, so a call never does schema work.
pub(crate) fn structured_output_schema<T: JsonSchema>() -> (Schema, bool) {
    let mut generator = SchemaGen::new();
    let root = generator.root::<T>();
    let is_object = root.get("type") == Some(&Value::String("object".into()));
    if is_object {
        return (Schema::from_value(root), false);
    }
    // Not an object: the value is wrapped, and so is its schema. Definitions move up to the
    // wrapper's root so their `#/$defs/...` references still resolve.
    let mut inner = root;
    let defs = inner.as_object_mut().and_then(|m| m.remove("$defs"));
    let mut wrapper = json!({
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
    });
    if let Some(defs) = defs {
        wrapper["$defs"] = defs;
    }
    (Schema::from_value(wrapper), true)
}

/// Serialise a structured result, wrapped as `{"result": …}` when `wrapped` (see
/// [`structured_output_schema`]).
pub(crate) fn structured_output<T: Serialize>(
    tool: &str,
    value: &T,
    wrapped: bool,
) -> Result<ToolOutput, ToolError> {
    let value = serde_json::to_value(value)
        .map_err(|e| ToolError::internal(tool, format_args!("its result could not be serialised: {e}")))?;
    let value = if wrapped { json!({ "result": value }) } else { value };
    Ok(ToolOutput::structured(value))
}

/// Whether `T`'s values are wrapped as `{"result": …}`, for [`Json`], which has nowhere to
/// keep the answer; cached per type. (`#[tool]` keeps it in the tool's statics instead.)
fn wraps<T: JsonSchema>() -> bool {
    use std::collections::BTreeMap;
    use std::sync::{OnceLock, RwLock};
    static CACHE: OnceLock<RwLock<BTreeMap<String, bool>>> = OnceLock::new();
    let key = T::schema_id();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(w) = read_lock(cache).get(key.as_ref()) {
        return *w;
    }
    let w = structured_output_schema::<T>().1;
    write_lock(cache).insert(key.into_owned(), w);
    w
}
