//! `#[resource]`: `attr` parses the attribute and checks its literals (the URI, the template,
//! the MIME type), `check` reads the fn and matches its parameters to the template's
//! variables, and `expand` writes the companion struct. Errors go to the shared sink
//! (`crate::ctxt`), all reported at once; on any error the fn is emitted untouched with them.
//!
//! The template parser is the runtime's own (`toolwire-grammar`), so a template the macro
//! accepts is one the runtime parses, with the same message when it does not.

mod attr;
mod check;
mod expand;

pub(crate) use expand::resource as expand;
