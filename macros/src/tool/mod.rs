//! `#[tool]`: one file per step, in pipeline order. `ast` reads the fn, `attr` parses and
//! resolves the attribute, `check` runs the rules that span both, `expand` generates the
//! code, and `fallback` is what is emitted when any of them found an error. The error sink
//! (`crate::ctxt`) is shared with the other macros, so `#[resource]` and `#[prompt]` can sit
//! beside this module with the same shape.

pub(crate) mod about;
mod ast;
mod attr;
mod check;
mod expand;
mod fallback;
mod name;

pub(crate) use expand::tool as expand;
