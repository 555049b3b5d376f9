//! `complete(name = completer, ...)`, the key `#[prompt]` (for its arguments) and
//! `#[resource]` (for a template's variables) share: parsed here once, each name at most
//! once. Which names exist is the caller's check, since only it knows its fn.
//!
//! ```text
//! #[prompt(complete(language = complete_language))]
//! #[resource(template = "db://tables/{table}", complete(table = complete_table))]
//! ```

use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Meta, Token};

use crate::ctxt::Ctxt;

/// `complete(..)`'s pairs, appended to `out`; `noun` is what a name names (`argument`,
/// `variable`) and `example` a pair to show, in messages.
pub(crate) fn parse(cx: &Ctxt, meta: &Meta, noun: &str, example: &str, out: &mut Vec<(Ident, Expr)>) {
    let Meta::List(list) = meta else {
        return cx.error_spanned_by(meta, format_args!("`complete` takes a list: `complete({example})`"));
    };
    let pairs = match list.parse_args_with(Punctuated::<syn::MetaNameValue, Token![,]>::parse_terminated) {
        Ok(p) => p,
        Err(e) => {
            return cx.error_at(
                e.span(),
                format_args!("`complete` takes `{noun} = completer` pairs: `complete({example})`"),
            );
        }
    };
    for pair in pairs {
        let Some(ident) = pair.path.get_ident() else {
            cx.error_spanned_by(&pair.path, format_args!("name the {noun} by its parameter's name"));
            continue;
        };
        if out.iter().any(|(seen, _)| seen == ident) {
            cx.error_spanned_by(ident, format_args!("{noun} `{ident}` is given a completer twice"));
            continue;
        }
        out.push((ident.clone(), pair.value));
    }
}
