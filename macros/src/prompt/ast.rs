//! The typed model of a `#[prompt]` fn: each parameter an argument (`String`,
//! `Option<String>`, an enum of strings, or an `Option` of one) or the `&Context`, with doc
//! comments read and removed from the fn (rustc rejects them on parameters).

use syn::{Expr, FnArg, Ident, ItemFn, Type};

use crate::ctxt::Ctxt;
use crate::signature::{Shape, check_shape, doc_exprs, plain_ident, wire_name};

/// One parameter.
pub(crate) enum Param {
    /// The request's `&Context`.
    Context,
    /// An argument: its name, its type (the `Option`'s inner type when optional), whether
    /// it is required, and its doc comment.
    Argument { ident: Ident, name: String, ty: Box<Type>, required: bool, docs: Vec<Expr> },
}

pub(crate) struct PromptFn {
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    pub(crate) docs: Vec<Expr>,
}

impl PromptFn {
    pub(crate) fn from_item(cx: &Ctxt, mut item: ItemFn) -> PromptFn {
        let docs = doc_exprs(&item.attrs);
        check_shape(
            cx,
            &item.sig,
            &Shape {
                attr: "`#[prompt]`",
                why_concrete: "each argument is a `String`, an `Option<String>` or a concrete enum",
                caller: "a client",
            },
        );
        let mut params = Vec::new();
        for arg in item.sig.inputs.iter_mut() {
            match arg {
                FnArg::Receiver(r) => {
                    cx.error_spanned_by(&*r, "`#[prompt]` cannot take `self`; write a free fn")
                }
                FnArg::Typed(pt) => {
                    let docs = doc_exprs(&pt.attrs);
                    pt.attrs.retain(|a| !a.path().is_ident("doc"));
                    let Some(ident) = plain_ident(&pt.pat) else {
                        cx.error_spanned_by(
                            &pt.pat,
                            "a prompt argument needs a plain name (it is the argument's name): write `name: String`",
                        );
                        continue;
                    };
                    params.push(read_param(cx, ident.clone(), &pt.ty, docs));
                }
            }
        }
        PromptFn { item, params, docs }
    }
}

fn read_param(cx: &Ctxt, ident: Ident, ty: &Type, docs: Vec<Expr>) -> Param {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => return Param::Context,
        Type::Reference(r) => {
            cx.error_spanned_by(r, "a prompt is lent the context as `&Context`, never `&mut`");
            return Param::Context;
        }
        Type::ImplTrait(_) | Type::Infer(_) => {
            cx.error_spanned_by(
                ty,
                "a prompt argument needs a concrete type: `String`, `Option<String>` or an enum of strings",
            );
        }
        _ => {}
    }
    let name = wire_name(&ident);
    match option_inner(ty) {
        Some(inner) => Param::Argument { ident, name, ty: Box::new(inner.clone()), required: false, docs },
        None => Param::Argument { ident, name, ty: Box::new(ty.clone()), required: true, docs },
    }
}

/// `T` of `Option<T>` (as `Option`, `std::option::Option` or `core::option::Option`).
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}
