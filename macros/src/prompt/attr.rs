//! Parsing `#[prompt(...)]`: `name`, `title`, `description`, `icon` and
//! `complete(arg = completer, ...)`, each at most once (each argument at most once).

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, LitStr, Meta, Token};

use crate::ctxt::Ctxt;

/// The keys `#[prompt]` accepts, for messages.
const KEYS: &str = "`name`, `title`, `description`, `icon`, `complete(arg = completer)`";

/// The attribute, as written.
#[derive(Default)]
pub(crate) struct PromptAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) icons: Vec<LitStr>,
    /// `complete(arg = expr)`: the argument's ident, and the completer expression.
    pub(crate) complete: Vec<(Ident, Expr)>,
}

impl PromptAttr {
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> PromptAttr {
        let mut attr = PromptAttr::default();
        let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
            Ok(m) => m,
            Err(e) => {
                cx.syn_error(e);
                return attr;
            }
        };
        for meta in metas {
            let key = meta.path().get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "name" => once(cx, &mut attr.name, &meta, &key),
                "title" => once(cx, &mut attr.title, &meta, &key),
                "description" => once(cx, &mut attr.description, &meta, &key),
                "icon" => {
                    if let Some(lit) = string_value(cx, &meta, &key) {
                        attr.icons.push(lit);
                    }
                }
                "complete" => crate::completers::parse(
                    cx,
                    &meta,
                    "argument",
                    "language = complete_language",
                    &mut attr.complete,
                ),
                "completion" | "completer" | "completions" | "complete_with" => cx.error_spanned_by(
                    meta.path(),
                    format_args!(
                        "unknown prompt attribute `{key}`; did you mean `complete(arg = completer)`?"
                    ),
                ),
                "desc" | "doc" | "about" => cx.error_spanned_by(
                    meta.path(),
                    format_args!("unknown prompt attribute `{key}`; did you mean `description`?"),
                ),
                _ => cx.error_spanned_by(
                    meta.path(),
                    format_args!(
                        "unknown prompt attribute `{}`; expected one of {KEYS}",
                        quote::quote!(#meta)
                    ),
                ),
            }
        }
        attr
    }
}

fn once(cx: &Ctxt, slot: &mut Option<LitStr>, meta: &Meta, key: &str) {
    let Some(lit) = string_value(cx, meta, key) else { return };
    if slot.is_some() {
        cx.error_spanned_by(meta.path(), format_args!("`{key}` is given twice"));
    } else {
        *slot = Some(lit);
    }
}

fn string_value(cx: &Ctxt, meta: &Meta, key: &str) -> Option<LitStr> {
    if let Meta::NameValue(nv) = meta
        && let Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value
    {
        return Some(s.clone());
    }
    cx.error_spanned_by(meta, format_args!("`{key}` takes a string: `{key} = \"...\"`"));
    None
}
