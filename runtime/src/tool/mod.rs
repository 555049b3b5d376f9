//! The [`Tool`] trait every tool implements, local or remote, and the values it trades in:
//! [`ToolInfo`] (what a tool says about itself), [`ToolOutput`] (what a call returns) and
//! [`ToolError`] (why a call did not return).
//!
//! - `info`: [`ToolInfo`], [`Declarations`] and the MCP [`Annotations`] derived from them.
//! - `output`: [`ToolOutput`] and its [`Content`] blocks.
//! - `error`: [`ToolError`] and its remote half, [`RemoteError`].
//! - `returns`: [`ToolReturn`], what a `#[tool]` fn may return, and [`Json`].
//! - `run`: running a body, with a panic turned into [`ToolError::Panicked`].
//!
//! [`Content`] and [`EmbeddedResource`] are aliases of the wire's
//! [`ContentBlock`](crate::protocol::wire::ContentBlock) and
//! [`ResourceContents`](crate::protocol::wire::ResourceContents) under the names a tool knows
//! them by: a tool's result, a prompt's message and a remote server's result hold the same
//! blocks.

mod error;
mod info;
mod output;
mod returns;
mod run;

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::Context;

pub(crate) use error::fmt_secs;
pub use error::{RemoteError, ToolError};
pub use info::{Annotations, Declarations, InvalidMetaKey, META_KEY, TaskSupport, ToolInfo, check_meta_key};
pub use output::{Content, EmbeddedResource, ToolOutput};
pub use returns::{Json, ToolReturn};
pub(crate) use returns::{structured_output, structured_output_schema};
// Running a body, for the engine and the expansions (through `__private`); not API.
#[doc(hidden)]
pub use run::{CatchUnwind, panic_message, run_async, run_blocking, run_inline, run_local};
pub(crate) use run::{carry, poll_judging_waits, relief};

/// The future a [`Tool::call`] returns: boxed so the trait stays object-safe.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

/// A tool an agent can call.
///
/// Every tool implements this one object-safe trait: the companions `#[tool]` generates, tools
/// written by hand, and (with the client) tools adopted from a remote MCP server. A registry
/// holds them as `Arc<dyn Tool>`.
///
/// `call` receives the arguments as raw JSON text, exactly as they arrived, so a tool can
/// deserialize each argument straight from the bytes. Validation is the tool's own job and
/// happens before its body runs: a `#[tool]` companion checks the arguments against the same
/// facts its advertised schema was built from, and answers a bad call with
/// [`ToolError::Arguments`].
///
/// # Writing one by hand
///
/// ```
/// use std::sync::OnceLock;
/// use serde_json::value::RawValue;
/// use toolwire::tool::ToolFuture;
/// use toolwire::{Context, Declarations, Schema, Tool, ToolError, ToolInfo, ToolOutput};
///
/// struct Clock;
///
/// impl Tool for Clock {
///     fn info(&self) -> &ToolInfo {
///         static INFO: OnceLock<ToolInfo> = OnceLock::new();
///         INFO.get_or_init(|| {
///             ToolInfo::new("clock", "Say what time it is.", Schema::empty_object())
///                 .with_declarations(Declarations::read_only())
///         })
///     }
///
///     fn call<'a>(&'a self, _args: &'a RawValue, _ctx: &'a Context) -> ToolFuture<'a> {
///         Box::pin(async { Ok(ToolOutput::text("noon")) })
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "this does not implement `toolwire::Tool`",
    note = "put `#[toolwire::tool]` on a fn and name the fn here, or implement `Tool` by hand"
)]
pub trait Tool: Send + Sync + 'static {
    /// What the tool says about itself: name, description, schemas and declarations.
    ///
    /// Built once and kept; calling this is free.
    fn info(&self) -> &ToolInfo;

    /// Run the tool on `arguments`, a JSON object as raw text.
    fn call<'a>(&'a self, arguments: &'a RawValue, ctx: &'a Context) -> ToolFuture<'a>;

    /// Call with arguments given as a `serde_json::Value`: a convenience for your own code
    /// and tests. Servers pass the raw bytes they received to [`call`](Tool::call).
    fn call_json<'a>(&'a self, arguments: Value, ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move {
            let raw = RawValue::from_string(arguments.to_string()).expect("a serialised Value is valid JSON");
            self.call(&raw, ctx).await
        })
    }

    /// The implementing type's name, for messages that must tell two tools apart (a
    /// registry refusing a duplicate name names both).
    fn type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}
