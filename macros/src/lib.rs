//! Procedural macros for [toolwire](https://docs.rs/toolwire). Depend on `toolwire`, which
//! re-exports these; this crate's paths are not meant to be named directly.
//!
//! Entry points only: each macro delegates to the module that implements it.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod fallback;
mod tools;

use proc_macro::TokenStream;

/// Turn a plain fn into an MCP tool. See `toolwire::tool` for the full documentation.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}

/// Build a `ToolRegistry` from `#[tool]` fns. See `toolwire::tools`.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tools::expand(input.into()).into()
}
