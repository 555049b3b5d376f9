//! What `#[tool]`, `#[prompt]` and `#[resource]` read the same way from the fn they are on:
//! its doc comment (as the expressions `#[doc = ..]` holds, so `include_str!` still works),
//! the shape rules of its signature (not generic, no `impl Trait`, not `const`, `unsafe`,
//! `extern` or variadic), a plain parameter name and the name it goes by on the wire.
//!
//! Each macro names itself and says why a generic fn cannot be, so the messages read as
//! that macro's own:
//!
//! ```text
//! `#[tool]` fns cannot be generic (type parameters); a tool's schema is fixed at compile time, so name concrete types
//! `#[prompt]` fns cannot be `unsafe`: a client calls them with arguments it wrote; wrap the unsafe part in a safe fn
//! ```

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Attribute, Expr, GenericParam, Ident, Pat, Signature, Type};

use crate::ctxt::Ctxt;

/// Which macro is reading, for its messages.
pub(crate) struct Shape {
    /// The attribute, as a message writes it: `` `#[tool]` ``.
    pub(crate) attr: &'static str,
    /// Why its fn cannot be generic, after the `;`.
    pub(crate) why_concrete: &'static str,
    /// Who calls it with arguments it wrote (`a model`, `a client`).
    pub(crate) caller: &'static str,
}

/// The item as a fn; if it is not one, the item's tokens given back with the error `wrong`
/// (what the attribute goes on, with an example), so the IDE keeps working and only the real
/// error shows.
pub(crate) fn parse_fn(item: TokenStream, wrong: &str) -> Result<syn::ItemFn, TokenStream> {
    syn::parse2(item.clone()).map_err(|e| {
        let mut out = item;
        out.extend(syn::Error::new(e.span(), wrong).to_compile_error());
        out
    })
}

/// `#[doc = ...]` values, in order.
pub(crate) fn doc_exprs(attrs: &[Attribute]) -> Vec<Expr> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => Some(nv.value.clone()),
            _ => None,
        })
        .collect()
}

/// `concat!(doc1, "\n", doc2, ...)`, so `#[doc = include_str!(..)]` still works; `""` for none.
pub(crate) fn docs_concat(docs: &[Expr]) -> TokenStream {
    if docs.is_empty() {
        return quote!("");
    }
    let mut parts = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            parts.push(quote!("\n"));
        }
        parts.push(quote!(#d));
    }
    quote!(::toolwire::__private::concat!(#(#parts),*))
}

/// The parameter's name when it is a plain one (`name: T`, not `(a, b): T` or `ref x: T`).
pub(crate) fn plain_ident(pat: &Pat) -> Option<&Ident> {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(&p.ident),
        _ => None,
    }
}

/// The name `ident` goes by on the wire: itself, without a raw identifier's `r#`.
pub(crate) fn wire_name(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").unwrap_or(&s).to_owned()
}

/// The shape rules every macro's fn keeps, each broken one reported under its token.
pub(crate) fn check_shape(cx: &Ctxt, sig: &Signature, shape: &Shape) {
    let Shape { attr, why_concrete, caller } = shape;
    if let Some(param) = sig.generics.params.first() {
        let what = match param {
            GenericParam::Lifetime(_) => "lifetime parameters",
            GenericParam::Type(_) => "type parameters",
            GenericParam::Const(_) => "const parameters",
        };
        cx.error_spanned_by(
            &sig.generics,
            format_args!("{attr} fns cannot be generic ({what}); {why_concrete}"),
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        cx.error_spanned_by(
            where_clause,
            format_args!("{attr} fns cannot have a `where` clause; name concrete types"),
        );
    }

    // `impl Trait` in argument position is a hidden type parameter.
    for input in &sig.inputs {
        if let syn::FnArg::Typed(pt) = input
            && contains_impl_trait(&pt.ty)
        {
            cx.error_spanned_by(
                &pt.ty,
                format_args!("`impl Trait` parameters make a {attr} fn generic; name a concrete type"),
            );
        }
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output
        && contains_impl_trait(ty)
    {
        cx.error_spanned_by(
            ty,
            format_args!("a {attr} fn cannot return `impl Trait`; name the type, or make the fn `async`"),
        );
    }

    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, format_args!("{attr} fns cannot be `const`; remove `const`"));
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        cx.error_spanned_by(
            u,
            format_args!(
                "{attr} fns cannot be `unsafe`: {caller} calls them with arguments it wrote; wrap the unsafe part in a safe fn"
            ),
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, format_args!("{attr} fns cannot have an `extern` ABI; remove it"));
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, format_args!("{attr} fns cannot be variadic"));
    }
}

fn contains_impl_trait(ty: &Type) -> bool {
    // A token scan is enough: `impl` can only appear in a type as `impl Trait`.
    ty.to_token_stream().into_iter().any(|tt| contains_impl(&tt))
}

fn contains_impl(tt: &proc_macro2::TokenTree) -> bool {
    match tt {
        proc_macro2::TokenTree::Ident(i) => i == "impl",
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| contains_impl(&t)),
        _ => false,
    }
}
