//! The MCP data shapes a peer sends: tools, call results, content blocks, resources, prompts,
//! multi round-trip requests (`input_required`) and a peer's `Implementation`, as `serde` derives shared by the client (which reads them)
//! and the server (which will serve resources and prompts with them).
//!
//! # Which style goes where
//!
//! - **Derives (here)**: everything read from a peer, and every cold-path body. They are
//!   `#[non_exhaustive]` with constructors, camelCase on the wire, and *lenient*: a missing or
//!   wrongly typed optional member reads as absent, never as a failed message, so
//!   a sloppy server's tool is still usable. Only the members the shape cannot do without
//!   (a tool's `name` and `inputSchema`, a resource's `uri`, a prompt's `name`) are required.
//! - **Hand-written text (`outbound`, `tools`)**: the JSON-RPC envelopes and the `tools/list`
//!   pages the server writes on every request, where the bench measures it (see
//!   `bench/REPORT.md`). The client bench (`bench/src/bin/client-bench.rs`) shows no such
//!   need on the client's read path: a result is one small object per call, read once.
//! - **One hand-written `Deserialize`**: [`ContentBlock`], which must accept a block of any
//!   shape and keep an unknown `type` as [`ContentBlock::Unknown`] instead of failing the
//!   whole result.
//!
//! Nothing here depends on more than `serde` and `serde_json`; it is compiled in every build.

mod completion;
mod content;
mod icon;
mod mrtr;
mod prompt;
mod resource;
mod tool;

pub use completion::{
    CompleteParams, CompleteResult, CompletionArgument, CompletionContext, CompletionReference,
    CompletionValues,
};
pub use content::ContentBlock;
pub use icon::{Icon, IconTheme};
pub use mrtr::{
    COMPLETE, INPUT_METHODS, INPUT_REQUIRED, InputRequest, InputRequests, InputRequired, InputResponses,
    InputRound,
};
pub use prompt::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
pub use resource::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
pub use tool::{CallToolResult, ImplementationInfo, Tool, ToolAnnotations};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A JSON object, as `_meta` and friends carry.
pub type JsonObject = serde_json::Map<String, Value>;

/// `#[serde(default, deserialize_with = "lenient")]`: the member as `T` when it reads as
/// one, else absent (a wrongly typed member, or `null`).
pub(crate) fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let v = Value::deserialize(d)?;
    Ok(serde_json::from_value(v).ok())
}

/// `#[serde(default, deserialize_with = "lenient_or_default")]`: as [`lenient`], with
/// `T::default()` for absent.
pub(crate) fn lenient_or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    lenient(d).map(Option::unwrap_or_default)
}

/// `#[serde(default, deserialize_with = "present")]`: `Some` whenever the member is there,
/// even as `null` (which `Option`'s own impl would read as `None`).
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// `#[serde(default, deserialize_with = "valid_items")]`: the items of an array that read as
/// `T`, the others skipped; anything but an array is empty.
pub(crate) fn valid_items<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect(),
        _ => Vec::new(),
    })
}
