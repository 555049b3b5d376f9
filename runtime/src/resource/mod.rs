//! Resources a server serves: a fixed [`Resource`] (one URI), a [`ResourceTemplate`] (an
//! RFC 6570 [`UriTemplate`] whose variables the read is handed), what a read returns
//! ([`ResourceContents`] items, built from a fn's return value by [`ResourceReturn`]), and
//! the [`ResourceRegistry`] that holds them.
//!
//! `#[resource]` implements the traits for an ordinary fn; implement them by hand for
//! anything else.
//!
//! - [`UriTemplate`] parsing and matching: `toolwire-grammar`'s, shared with the `#[resource]`
//!   macro.
//! - `info`: [`ResourceInfo`], [`TemplateInfo`]: what the lists advertise (with the
//!   protocol's [`Icon`], re-exported here).
//! - `contents`: [`ResourceReturn`], [`ResourceError`], base64 for blobs.
//! - `registry`: [`ResourceRegistry`] (duplicate URIs refused), and resolving a URI.

mod contents;
mod info;
mod registry;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::complete::Complete;
use crate::context::Context;

pub use crate::protocol::wire::{Icon, ResourceContents};
pub use contents::{ResourceError, ResourceReturn, base64_encode, variables_as_arguments};
pub use info::{ResourceInfo, TemplateInfo};
pub use registry::{Resolved, ResourceRegistry, ResourceRegistryError};
pub use toolwire_grammar::uri_template::{UriTemplate, UriTemplateError};

/// What a read returns, started: the contents, or why there are none.
pub type ReadFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<ResourceContents>, ResourceError>> + Send + 'a>>;

/// A resource with one fixed URI.
///
/// ```
/// use toolwire::Context;
/// use toolwire::resource::{ReadFuture, Resource, ResourceContents, ResourceInfo};
///
/// struct Motd(ResourceInfo);
///
/// impl Resource for Motd {
///     fn info(&self) -> &ResourceInfo {
///         &self.0
///     }
///     fn read<'a>(&'a self, _ctx: &'a Context) -> ReadFuture<'a> {
///         Box::pin(async { Ok(vec![ResourceContents::text("text://motd", "hello")]) })
///     }
/// }
/// let motd = Motd(ResourceInfo::new("text://motd", "motd").with_mime_type("text/plain"));
/// assert_eq!(motd.info().uri(), "text://motd");
/// ```
pub trait Resource: Send + Sync + 'static {
    /// What `resources/list` says about it.
    fn info(&self) -> &ResourceInfo;

    /// Read its contents.
    fn read<'a>(&'a self, ctx: &'a Context) -> ReadFuture<'a>;
}

/// A family of resources named by a URI template: a read of a URI that matches is handed the
/// template's variables.
pub trait ResourceTemplate: Send + Sync + 'static {
    /// What `resources/templates/list` says about it.
    fn info(&self) -> &TemplateInfo;

    /// The template's variable names, in order (what completion attaches to).
    fn variables(&self) -> &[String] {
        self.info().template().variables()
    }

    /// Read the resource `uri`, which matched the template with these `variables` (name and
    /// percent-decoded value, in template order).
    fn read<'a>(
        &'a self,
        uri: &'a str,
        variables: &'a [(String, String)],
        ctx: &'a Context,
    ) -> ReadFuture<'a>;

    /// The completers of its variables (`completion/complete` with a `ref/resource` of this
    /// template), by variable name. None by default; `#[resource(complete(var = f))]`
    /// attaches them.
    fn completers(&self) -> Vec<(String, Arc<dyn Complete>)> {
        Vec::new()
    }
}
