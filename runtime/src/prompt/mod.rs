//! Prompts: the [`Prompt`] trait every prompt implements (what `#[prompt]` generates), what a
//! prompt says about itself ([`PromptInfo`]), the arguments it is given
//! ([`PromptArguments`], checked against its declared arguments), what it may return
//! ([`PromptReturn`]) and the [`PromptRegistry`] a server serves.
//!
//! - `info`: [`PromptInfo`] and [`PromptArgumentInfo`], and checking a `prompts/get`'s
//!   arguments against them ([`PromptArgumentError`], worded as a tool's arguments are).
//! - `output`: [`PromptReturn`], [`PromptError`].
//! - `registry`: [`PromptRegistry`].

mod info;
mod output;
mod registry;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::complete::Complete;
use crate::context::Context;

pub use crate::protocol::wire::{ContentBlock, GetPromptResult, Icon, PromptMessage, ResourceContents};
pub use info::{PromptArgumentError, PromptArgumentInfo, PromptArguments, PromptInfo};
pub use output::{PromptError, PromptReturn};
pub use registry::{PromptRegistry, PromptRegistryError};

/// The future a [`Prompt::get`] returns: boxed so the trait stays object-safe.
pub type PromptFuture<'a> = Pin<Box<dyn Future<Output = Result<GetPromptResult, PromptError>> + Send + 'a>>;

/// A prompt a client can list and get.
///
/// `#[prompt]` implements it for a fn; implement it by hand for a prompt built at run time.
/// The server checks the arguments against [`info`](Self::info) before it calls
/// [`get`](Self::get): required ones are present, every value is a string, enum values are
/// among the allowed ones.
pub trait Prompt: Send + Sync + 'static {
    /// Its name, description and arguments.
    fn info(&self) -> &PromptInfo;

    /// Render the prompt for `args`.
    fn get<'a>(&'a self, args: &'a PromptArguments, ctx: &'a Context) -> PromptFuture<'a>;

    /// The completers of its arguments, by argument name. An enum argument without one is
    /// completed from its values (see [`PromptRegistry::completers`]).
    fn completers(&self) -> Vec<(String, Arc<dyn Complete>)> {
        Vec::new()
    }
}
