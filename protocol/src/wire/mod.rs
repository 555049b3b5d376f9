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
//! Nothing here depends on more than `serde` and `serde_json`; it is compiled in every build,
//! but the reading side only with the `client` feature: the server writes these shapes and
//! reads none from a peer but [`CompleteParams`] (and its members), so without `client` the
//! others derive `Serialize` alone, and a tools-only crate's clean build compiles no
//! `Deserialize` impls, visitors or lenient helpers for them (about 0.35 s of its critical
//! path; bench/findings.md, "clean dev build").

mod completion;
mod content;
mod icon;
mod mrtr;
mod prompt;
mod resource;
mod skill;
mod tasks;
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
pub use skill::{
    DIRECTORY_MIME_TYPE, DirectoryResource, Dynamic, SKILLS_EXTENSION, Skill, SkillFile, SkillResources,
};
pub use tasks::{TASK, TASKS_EXTENSION, Task, TaskIdParams, TaskStatus, UpdateTaskParams};
pub use tool::{CallToolResult, ImplementationInfo, Tool, ToolAnnotations};

use serde_json::Value;

// Reading leniently is the client's: the server writes these shapes and reads only the
// completion params (feature `client`; a tools-only build compiles none of it).
#[cfg(feature = "client")]
mod lenient;
#[cfg(feature = "client")]
use lenient::{lenient, lenient_or_default, present, valid_items};

/// A JSON object, as `_meta` and friends carry.
pub type JsonObject = serde_json::Map<String, Value>;
