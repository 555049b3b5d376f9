//! The error sink: every problem in one compile, each under its own token.
//!
//! Checks push errors here instead of returning early, so a user sees all their mistakes at
//! once. A sink must be drained with [`Ctxt::check`]; dropping one unchecked is a bug in the
//! macro and panics (unless already panicking), so tests catch it. (The shape is serde's `Ctxt`.)

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    /// An error spanning `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// An error at a span.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().as_mut().expect("Ctxt used after check").push(error);
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.borrow_mut().take().expect("Ctxt checked twice").into_iter();
        let Some(mut combined) = errors.next() else { return Ok(()) };
        for e in errors {
            combined.combine(e);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}
