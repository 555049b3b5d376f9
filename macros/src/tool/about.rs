//! The `#[tool]` keys for what a tool shows a client beyond its name and description:
//! `icon` (MCP `Icon`, repeatable) and `meta` (custom `_meta` entries beside `toolwire`).
//!
//! ```text
//! #[tool(icon = "https://example.com/a.png")]
//! #[tool(icon(src = "data:image/svg+xml;base64,...", mime_type = "image/svg+xml", sizes = ["any"], theme = "dark"))]
//! #[tool(meta = [("com.example/owner", "search-team"), ("com.example/tier", 2)])]
//! ```
//!
//! Every value is checked here, so a bad one is a compile error under its token.

use syn::{Expr, Lit, LitStr, Meta};
use toolwire_grammar::meta_key::meta_key_problem;

use crate::ctxt::Ctxt;

/// One `icon`.
pub(crate) struct IconSpec {
    pub(crate) src: LitStr,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Vec<LitStr>,
    pub(crate) theme: Option<LitStr>,
}

const ICON_FORM: &str = "`icon` takes a URI, `icon = \"https://..\"`, or its parts, `icon(src = \"..\", mime_type = \"image/png\", sizes = [\"48x48\"], theme = \"dark\")`";

/// `icon = "uri"` or `icon(src = .., mime_type = .., sizes = [..], theme = ..)`.
pub(crate) fn icon_value(cx: &Ctxt, meta: &Meta) -> Option<IconSpec> {
    let icon = match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => {
                IconSpec { src: s.clone(), mime_type: None, sizes: Vec::new(), theme: None }
            }
            other => {
                cx.error_spanned_by(other, ICON_FORM);
                return None;
            }
        },
        Meta::List(list) => {
            let mut src = None;
            let mut mime_type = None;
            let mut sizes = Vec::new();
            let mut theme = None;
            let result = list.parse_nested_meta(|m| {
                let key = m.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match key.as_str() {
                    "src" => src = Some(m.value()?.parse::<LitStr>()?),
                    "mime_type" => mime_type = Some(m.value()?.parse::<LitStr>()?),
                    "theme" => theme = Some(m.value()?.parse::<LitStr>()?),
                    "sizes" => {
                        let array: syn::ExprArray = m.value()?.parse()?;
                        for e in array.elems {
                            match e {
                                Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => sizes.push(s),
                                other => cx.error_spanned_by(
                                    other,
                                    "`sizes` takes strings: `sizes = [\"48x48\", \"any\"]`",
                                ),
                            }
                        }
                    }
                    _ => {
                        cx.error_spanned_by(
                            &m.path,
                            "unknown `icon` part; expected `src`, `mime_type`, `sizes`, `theme`",
                        );
                        if m.input.peek(syn::Token![=]) {
                            let _: Expr = m.value()?.parse()?;
                        }
                    }
                }
                Ok(())
            });
            if let Err(e) = result {
                cx.syn_error(e);
                return None;
            }
            let Some(src) = src else {
                cx.error_spanned_by(
                    list,
                    "this `icon` has no `src`; give the image's URI: `icon(src = \"https://..\")`",
                );
                return None;
            };
            IconSpec { src, mime_type, sizes, theme }
        }
        Meta::Path(p) => {
            cx.error_spanned_by(p, ICON_FORM);
            return None;
        }
    };
    let mut ok = true;
    let src = icon.src.value();
    if !(src.starts_with("https://") || src.starts_with("http://") || src.starts_with("data:"))
        || src.trim() != src
    {
        cx.error_spanned_by(
            &icon.src,
            "an icon's `src` is an `https://` or `http://` URL, or a `data:` URI with base64 image data",
        );
        ok = false;
    }
    for size in &icon.sizes {
        let v = size.value();
        let wxh = v.split_once('x').is_some_and(|(w, h)| {
            !w.is_empty()
                && !h.is_empty()
                && w.bytes().all(|b| b.is_ascii_digit())
                && h.bytes().all(|b| b.is_ascii_digit())
        });
        if !(wxh || v == "any") {
            cx.error_spanned_by(size, "an icon size is `WxH` in pixels (`\"48x48\"`) or `\"any\"`");
            ok = false;
        }
    }
    if let Some(theme) = &icon.theme
        && !matches!(theme.value().as_str(), "light" | "dark")
    {
        cx.error_spanned_by(theme, "an icon's `theme` is `\"light\"` or `\"dark\"`");
        ok = false;
    }
    if let Some(mime) = &icon.mime_type
        && !mime.value().starts_with("image/")
    {
        cx.error_spanned_by(
            mime,
            "an icon's `mime_type` is an image type, such as `\"image/png\"` or `\"image/svg+xml\"`",
        );
        ok = false;
    }
    ok.then_some(icon)
}

const META_FORM: &str = "`meta` takes a list of (key, value) pairs: `meta = [(\"com.example/owner\", \"team\"), (\"com.example/tier\", 2)]`";

/// `meta = [("key", literal), ..]`; each value a string, number or bool literal.
pub(crate) fn meta_value(cx: &Ctxt, meta: &Meta) -> Option<Vec<(LitStr, Expr)>> {
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, META_FORM);
        return None;
    };
    let Expr::Array(array) = &nv.value else {
        cx.error_spanned_by(&nv.value, META_FORM);
        return None;
    };
    let mut entries: Vec<(LitStr, Expr)> = Vec::new();
    let mut ok = true;
    for elem in &array.elems {
        let Expr::Tuple(t) = elem else {
            cx.error_spanned_by(elem, META_FORM);
            ok = false;
            continue;
        };
        if t.elems.len() != 2 {
            cx.error_spanned_by(t, META_FORM);
            ok = false;
            continue;
        }
        let (k, v) = (&t.elems[0], &t.elems[1]);
        let Expr::Lit(syn::ExprLit { lit: Lit::Str(key), .. }) = k else {
            cx.error_spanned_by(k, "a `_meta` key is a string literal, such as `\"com.example/owner\"`");
            ok = false;
            continue;
        };
        match meta_key_problem(&key.value()) {
            None => {}
            Some("toolwire") => {
                cx.error_spanned_by(key, "`toolwire` is the `_meta` key the declarations travel under; name your entry differently");
                ok = false;
            }
            Some("reserved") => {
                cx.error_spanned_by(key, "this `_meta` prefix is reserved for MCP (its second label is `modelcontextprotocol` or `mcp`); use your own, e.g. `com.example/`");
                ok = false;
            }
            Some(_) => {
                cx.error_spanned_by(key, "not a valid MCP `_meta` key; write `name` or `com.example/name` (labels and names begin and end with a letter or digit)");
                ok = false;
            }
        }
        if entries.iter().any(|(k, _)| k.value() == key.value()) {
            cx.error_spanned_by(key, "this `_meta` key is already given; give each key once");
            ok = false;
        }
        let literal = match v {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_), ..
            }) => true,
            Expr::Unary(u) => {
                matches!(u.op, syn::UnOp::Neg(_))
                    && matches!(&*u.expr, Expr::Lit(syn::ExprLit { lit: Lit::Int(_) | Lit::Float(_), .. }))
            }
            _ => false,
        };
        if !literal {
            cx.error_spanned_by(v, "a `_meta` value in `#[tool]` is a string, number or bool literal; build other values by hand with `ToolInfo::with_meta`");
            ok = false;
            continue;
        }
        entries.push((key.clone(), v.clone()));
    }
    ok.then_some(entries)
}
