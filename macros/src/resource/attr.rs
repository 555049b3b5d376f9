//! Parsing `#[resource(...)]`: `uri` or `template` (exactly one), and the optional `name`,
//! `title`, `description`, `mime_type`, each a string literal; `icon` (repeatable, the
//! form `#[tool]` takes) and, on a template, `complete(variable = completer, ..)`. The
//! literals are checked here; which variables exist is `check`'s.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Lit, LitStr, Meta, Token};
use toolwire_grammar::uri_template::UriTemplate;

use crate::ctxt::Ctxt;
use crate::tool::about::{IconSpec, icon_value};

const KEYS: &str = "`uri`, `template`, `name`, `title`, `description`, `mime_type`, `icon`, `complete(variable = completer)`";

/// What the resource is addressed by.
pub(crate) enum Address {
    Uri(LitStr),
    Template(LitStr, UriTemplate),
}

/// The attribute, checked.
pub(crate) struct Attr {
    pub(crate) address: Option<Address>,
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    /// Every `icon`, in order (the key repeats).
    pub(crate) icons: Vec<IconSpec>,
    /// `complete(variable = expr)`: the variable's ident, and the completer expression.
    pub(crate) complete: Vec<(Ident, Expr)>,
}

pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Attr {
    let mut attr = Attr {
        address: None,
        name: None,
        title: None,
        description: None,
        mime_type: None,
        icons: Vec::new(),
        complete: Vec::new(),
    };
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
        Ok(m) => m,
        Err(e) => {
            cx.syn_error(e);
            return attr;
        }
    };
    let mut uri: Option<LitStr> = None;
    let mut template: Option<LitStr> = None;
    for meta in metas {
        let Some(ident) = meta.path().get_ident().cloned() else {
            cx.error_spanned_by(
                meta.path(),
                format_args!("unknown resource attribute; expected one of {KEYS}"),
            );
            continue;
        };
        let key = ident.to_string();
        match key.as_str() {
            "icon" => {
                attr.icons.extend(icon_value(cx, &meta));
                continue;
            }
            "complete" => {
                crate::completers::parse(cx, &meta, "variable", "table = complete_table", &mut attr.complete);
                continue;
            }
            "icons" => {
                cx.error_spanned_by(
                    &ident,
                    "unknown resource attribute `icons`; write one `icon = \"..\"` per icon",
                );
                continue;
            }
            "completion" | "completer" | "completions" | "complete_with" => {
                cx.error_spanned_by(
                    &ident,
                    format_args!(
                        "unknown resource attribute `{key}`; did you mean `complete(variable = completer)`?"
                    ),
                );
                continue;
            }
            _ => {}
        }
        let slot = match key.as_str() {
            "uri" => &mut uri,
            "template" | "uri_template" => &mut template,
            "name" => &mut attr.name,
            "title" => &mut attr.title,
            "description" => &mut attr.description,
            "mime_type" => &mut attr.mime_type,
            "mime" | "mimeType" | "content_type" => {
                cx.error_spanned_by(
                    &ident,
                    format_args!("unknown resource attribute `{key}`; write `mime_type`"),
                );
                continue;
            }
            _ => {
                cx.error_spanned_by(
                    &ident,
                    format_args!("unknown resource attribute `{key}`; expected one of {KEYS}"),
                );
                continue;
            }
        };
        let Some(value) = string_value(cx, &meta, &key) else { continue };
        if slot.is_some() {
            cx.error_spanned_by(&ident, format_args!("`{key}` is given more than once"));
            continue;
        }
        *slot = Some(value);
    }
    attr.address = match (uri, template) {
        (Some(_), Some(t)) => {
            cx.error_spanned_by(
                &t,
                "give `uri` (one fixed resource) or `template` (a family of them), not both",
            );
            None
        }
        (None, None) => {
            cx.error_at(
                Span::call_site(),
                "#[resource] needs `uri = \"scheme://…\"` (one fixed resource) or `template = \"scheme://…/{var}\"`",
            );
            None
        }
        (Some(u), None) => check_uri(cx, &u).then_some(Address::Uri(u)),
        (None, Some(t)) => match UriTemplate::parse(&t.value()) {
            Ok(parsed) if parsed.is_fixed() => {
                cx.error_spanned_by(
                    &t,
                    "this template has no `{variable}`; write `uri = ...` for a fixed resource",
                );
                None
            }
            Ok(parsed) => Some(Address::Template(t, parsed)),
            Err(e) => {
                cx.error_spanned_by(&t, e);
                None
            }
        },
    };
    if let Some(m) = &attr.mime_type
        && !is_mime_type(&m.value())
    {
        cx.error_spanned_by(
            m,
            format_args!(
                "'{}' is not a MIME type; write `type/subtype`, e.g. \"text/plain\" or \"application/json\"",
                m.value()
            ),
        );
    }
    attr
}

/// A URI needs a scheme (`config:`, `file:`, …) and no template expressions.
fn check_uri(cx: &Ctxt, lit: &LitStr) -> bool {
    let uri = lit.value();
    if uri.contains('{') {
        cx.error_spanned_by(lit, "a fixed `uri` cannot hold `{variables}`; write `template = ...` instead");
        return false;
    }
    let scheme = uri.split_once(':').map(|(s, _)| s).unwrap_or("");
    let good = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !good || uri.contains(char::is_whitespace) {
        cx.error_spanned_by(
            lit,
            format_args!("'{uri}' is not a URI; write `scheme:rest` without spaces, e.g. \"config://app\""),
        );
    }
    good
}

/// RFC 6838's `type/subtype` (optional `; parameters` allowed).
fn is_mime_type(m: &str) -> bool {
    let essence = m.split(';').next().unwrap_or("").trim();
    let token =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c));
    matches!(essence.split_once('/'), Some((t, s)) if token(t) && token(s))
}

fn string_value(cx: &Ctxt, meta: &Meta, key: &str) -> Option<LitStr> {
    if let Meta::NameValue(nv) = meta
        && let Expr::Lit(lit) = &nv.value
        && let Lit::Str(s) = &lit.lit
    {
        return Some(s.clone());
    }
    cx.error_spanned_by(meta, format_args!("`{key}` takes a string literal: `{key} = \"...\"`"));
    None
}
