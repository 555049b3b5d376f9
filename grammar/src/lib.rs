//! The small grammars that `toolwire` and `toolwire-macros` must agree on, written once:
//!
//! - [`uri_template`]: RFC 6570 URI templates as far as a resource template needs them;
//! - [`percent`]: percent-decoding (RFC 3986 §2.1);
//! - [`meta_key`]: MCP's `_meta` key grammar.
//!
//! The macros check at compile time with the very code the runtime checks with at run time,
//! so a template or key the macro accepts is one the runtime accepts, with the same message
//! when it is refused. No dependencies, no I/O. Not meant to be used directly: `toolwire`
//! re-exports what is public API (`toolwire::resource::UriTemplate`).

pub mod meta_key;
pub mod percent;
pub mod uri_template;
