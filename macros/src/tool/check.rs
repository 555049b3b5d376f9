//! Rules that span the attribute and the signature, each checked once, with the error under
//! the offending token.

use std::collections::BTreeSet;

use quote::ToTokens;
use syn::{GenericParam, Type};

use super::ast::{Kind, ToolFn};
use crate::ctxt::Ctxt;

pub(crate) fn signature(cx: &Ctxt, f: &ToolFn) {
    let sig = &f.item.sig;

    // A tool's schema is fixed when it is compiled, so its fn cannot be generic.
    if let Some(param) = sig.generics.params.first() {
        let what = match param {
            GenericParam::Lifetime(_) => "lifetime parameters",
            GenericParam::Type(_) => "type parameters",
            GenericParam::Const(_) => "const parameters",
        };
        cx.error_spanned_by(
            &sig.generics,
            format_args!("`#[tool]` fns cannot be generic ({what}); a tool's schema is fixed at compile time, so name concrete types"),
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        cx.error_spanned_by(where_clause, "`#[tool]` fns cannot have a `where` clause; name concrete types");
    }

    // `impl Trait` in argument position is a hidden type parameter.
    for input in &sig.inputs {
        if let syn::FnArg::Typed(pt) = input
            && contains_impl_trait(&pt.ty)
        {
            cx.error_spanned_by(
                &pt.ty,
                "`impl Trait` parameters make a `#[tool]` fn generic; name a concrete type",
            );
        }
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output
        && contains_impl_trait(ty)
    {
        cx.error_spanned_by(
            ty,
            "a `#[tool]` fn cannot return `impl Trait`; name the type, or make the fn `async`",
        );
    }

    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "`#[tool]` fns cannot be `const`; remove `const`");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        cx.error_spanned_by(u, "`#[tool]` fns cannot be `unsafe`: a model calls them with arguments it wrote; wrap the unsafe part in a safe fn");
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "`#[tool]` fns cannot have an `extern` ABI; remove it");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "`#[tool]` fns cannot be variadic");
    }

    // Argument names are unique on the wire, after renaming. Whether a parameter left to its
    // type is injected is only known to the type checker, so its name counts here too.
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for p in &f.inputs {
        if p.kind == Kind::Injected || p.wire_name.is_empty() {
            continue;
        }
        if !names.insert(&p.wire_name) {
            cx.error_at(
                p.name_span,
                format_args!(
                    "duplicate argument name `{}` (after renaming); each argument needs its own name",
                    p.wire_name
                ),
            );
        }
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
