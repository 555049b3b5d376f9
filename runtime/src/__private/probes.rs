//! Autoref probes: how `#[tool]` asks the type checker about a type instead of matching
//! type names as strings.

#![allow(missing_docs, unreachable_pub)]

use std::cell::Cell;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::inject::{FromArgument, FromContext, ViaArguments, ViaContext, ViaSettledArgument};
use crate::schema::Schema;
use crate::tool::ToolReturn;
use crate::tool::{ToolError, ToolOutput};

// ---- Autoref probes -------------------------------------------------------------------
//
// `#[tool]` never matches type names as strings. Where it must know something about a type
// (is this parameter an `Option`? is this return value text or structured?), it asks the
// type checker through autoref specialisation: the expansion calls a method on `&&&&Probe` (one `&` per level, plus one for `&self`),
// and method resolution picks the most specific impl whose bounds hold. The fn is never
// generic (the macro refuses generic fns), so every probe is on a concrete type.

/// A probe on a type, carrying no value.
pub struct Probe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> Probe<T> {
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T: ?Sized> Default for Probe<T> {
    fn default() -> Self {
        Probe::new()
    }
}

// ---- Parameters: injected or argument ------------------------------------------------
//
// The kind probe asks whether a parameter's type implements `FromArgument` (kind
// `ViaSettledArgument`, most specific), then `FromContext` (`ViaContext`), else `ViaArguments`. The kind then picks the `ToolInput` impl (see
// `crate::inject`) that describes the parameter and takes it on each call.

pub trait KindSettled {
    fn __toolwire_kind(&self) -> ViaSettledArgument {
        ViaSettledArgument
    }
}
impl<T: FromArgument> KindSettled for &&Probe<T> {}

pub trait KindInjected {
    fn __toolwire_kind(&self) -> ViaContext {
        ViaContext
    }
}
impl<'a, T: FromContext<'a>> KindInjected for &Probe<T> {}

pub trait KindArgument {
    fn __toolwire_kind(&self) -> ViaArguments {
        ViaArguments
    }
}
impl<T: ?Sized> KindArgument for Probe<T> {}

/// `Option<T>` parameters may be left out.
pub trait IsOptionParam {
    fn __toolwire_optional(&self) -> bool {
        true
    }
}
impl<T> IsOptionParam for &Probe<Option<T>> {}

pub trait IsRequiredParam {
    fn __toolwire_optional(&self) -> bool {
        false
    }
}
impl<T: ?Sized> IsRequiredParam for Probe<T> {}

/// A default value is advertised in the schema when its type is `Serialize`.
pub struct DefaultProbe<'a, T>(pub &'a T);

pub trait AdvertiseDefault {
    fn __toolwire_default(&self) -> Option<Value>;
}
impl<T: Serialize> AdvertiseDefault for &DefaultProbe<'_, T> {
    fn __toolwire_default(&self) -> Option<Value> {
        serde_json::to_value(self.0).ok()
    }
}

pub trait SilentDefault {
    fn __toolwire_default(&self) -> Option<Value> {
        None
    }
}
impl<T> SilentDefault for DefaultProbe<'_, T> {}

/// Output schema, by return type. Most specific first: a [`ToolReturn`], then
/// `Result<T: Serialize + JsonSchema, E>`, then `T: Serialize + JsonSchema`.
pub trait OutputViaReturn {
    fn __toolwire_output_schema(&self) -> Option<(Schema, bool)>;
}
impl<R: ToolReturn> OutputViaReturn for &&&Probe<R> {
    fn __toolwire_output_schema(&self) -> Option<(Schema, bool)> {
        R::output_schema().map(|s| (s, false))
    }
}

pub trait OutputViaStructuredResult {
    fn __toolwire_output_schema(&self) -> Option<(Schema, bool)>;
}
impl<T: Serialize + JsonSchema, E: std::fmt::Display> OutputViaStructuredResult for &&Probe<Result<T, E>> {
    fn __toolwire_output_schema(&self) -> Option<(Schema, bool)> {
        Some(crate::tool::structured_output_schema::<T>())
    }
}

pub trait OutputViaStructured {
    fn __toolwire_output_schema(&self) -> Option<(Schema, bool)>;
}
impl<T: Serialize + JsonSchema> OutputViaStructured for &Probe<T> {
    fn __toolwire_output_schema(&self) -> Option<(Schema, bool)> {
        Some(crate::tool::structured_output_schema::<T>())
    }
}

/// No level above applied; the call path reports the error, so the schema stays silent.
pub trait OutputUnsupported {
    fn __toolwire_output_schema(&self) -> Option<(Schema, bool)> {
        None
    }
}
impl<T: ?Sized> OutputUnsupported for Probe<T> {}

/// A returned value on its way to becoming a result; the same levels as the schema probes.
///
/// The value sits in a `Cell` so that each level, reached through shared references, can
/// still take it by value.
pub struct Returned<R>(Cell<Option<R>>);

impl<R> Returned<R> {
    pub fn new(value: R) -> Self {
        Returned(Cell::new(Some(value)))
    }

    fn take(&self) -> R {
        self.0.take().expect("a returned value is converted once")
    }
}

pub trait ReturnViaReturn {
    fn __toolwire_into_output(&self, tool: &str, wraps: bool) -> Result<ToolOutput, ToolError>;
}
impl<R: ToolReturn> ReturnViaReturn for &&&Returned<R> {
    fn __toolwire_into_output(&self, tool: &str, _wraps: bool) -> Result<ToolOutput, ToolError> {
        self.take().into_output(tool)
    }
}

pub trait ReturnViaStructuredResult {
    fn __toolwire_into_output(&self, tool: &str, wraps: bool) -> Result<ToolOutput, ToolError>;
}
impl<T: Serialize + JsonSchema, E: std::fmt::Display + 'static> ReturnViaStructuredResult
    for &&Returned<Result<T, E>>
{
    fn __toolwire_into_output(&self, tool: &str, wraps: bool) -> Result<ToolOutput, ToolError> {
        match self.take() {
            Ok(v) => crate::tool::structured_output(tool, &v, wraps),
            Err(e) => Err(ToolError::from_body(tool, e)),
        }
    }
}

pub trait ReturnViaStructured {
    fn __toolwire_into_output(&self, tool: &str, wraps: bool) -> Result<ToolOutput, ToolError>;
}
impl<T: Serialize + JsonSchema> ReturnViaStructured for &Returned<T> {
    fn __toolwire_into_output(&self, tool: &str, wraps: bool) -> Result<ToolOutput, ToolError> {
        crate::tool::structured_output(tool, &self.take(), wraps)
    }
}

/// The last resort: no level above applied. It returns a marker that [`outcome`] refuses,
/// with a message naming the return type.
pub trait ReturnUnsupported<R> {
    fn __toolwire_into_output(&self, tool: &str, wraps: bool) -> Unsupported<R>;
}
impl<R> ReturnUnsupported<R> for Returned<R> {
    fn __toolwire_into_output(&self, _tool: &str, _wraps: bool) -> Unsupported<R> {
        Unsupported(PhantomData)
    }
}

/// What the last-resort level returns: proof that the return type is unsupported.
pub struct Unsupported<R>(PhantomData<R>);

/// Implemented only by what a supported return type converts to.
#[diagnostic::on_unimplemented(
    message = "`{R}` cannot become a tool result",
    label = "a `#[tool]` fn cannot return `{R}`",
    note = "return `String`, `ToolOutput`, `()`, a type that implements `Serialize + JsonSchema`, or a `Result` of one of these whose error implements `Display`"
)]
pub trait IntoOutcome<R> {
    fn into_outcome(self) -> Result<ToolOutput, ToolError>;
}

// Not offered as a fix in the error: the user never writes this type.
#[diagnostic::do_not_recommend]
impl<R> IntoOutcome<R> for Result<ToolOutput, ToolError> {
    fn into_outcome(self) -> Result<ToolOutput, ToolError> {
        self
    }
}

/// Spanned at the return type by the expansion.
pub fn outcome<R, O: IntoOutcome<R>>(o: O) -> Result<ToolOutput, ToolError> {
    o.into_outcome()
}
