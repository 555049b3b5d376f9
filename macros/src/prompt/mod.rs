//! `#[prompt]`: `attr` parses the attribute, `ast` reads the fn, `expand` generates the
//! companion struct and its `Prompt` impl (or, on any error, the fn, a stub and the errors).
//! Errors go to the shared sink (`crate::ctxt`), so every mistake shows in one compile.

mod ast;
mod attr;
mod expand;

pub(crate) use expand::prompt as expand;
