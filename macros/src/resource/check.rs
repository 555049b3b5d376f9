//! Reading the fn: which parameter is the `&Context`, which are template variables, and the
//! rules that span the fn and the attribute (every variable has a parameter, every
//! parameter a variable; a fixed resource takes nothing but the `&Context`).

use proc_macro2::Ident;
use syn::{FnArg, ItemFn, Pat, Type};

use super::attr::Address;
use crate::ctxt::Ctxt;

/// One parameter of the fn.
pub(crate) enum Param {
    /// `&Context`: handed the read's context.
    Context,
    /// A template variable, parsed as `ty`.
    Variable { ident: Ident, ty: Box<Type> },
}

/// Whether `ty` is `&Context` (under any path: `&toolwire::Context`, …).
fn is_context(ty: &Type) -> bool {
    let Type::Reference(r) = ty else { return false };
    matches!(&*r.elem, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Context"))
}

/// Every `complete(x = ..)` names a variable of the template (a fixed resource has none).
pub(crate) fn completers(cx: &Ctxt, complete: &[(Ident, syn::Expr)], address: Option<&Address>) {
    for (ident, _) in complete {
        let name = ident.to_string();
        match address {
            Some(Address::Uri(_)) => cx.error_spanned_by(
                ident,
                format_args!(
                    "a fixed resource has no variables to complete; `complete({name} = ..)` belongs on a `template = ...` resource"
                ),
            ),
            Some(Address::Template(_, t)) if !t.variables().contains(&name) => cx.error_spanned_by(
                ident,
                format_args!(
                    "`complete({name} = ..)` names no variable of template '{}'; its variables are: {}",
                    t.as_str(),
                    t.variables().join(", ")
                ),
            ),
            _ => {}
        }
    }
}

pub(crate) fn params(cx: &Ctxt, item: &ItemFn, address: Option<&Address>) -> Vec<Param> {
    let mut out = Vec::new();
    for input in &item.sig.inputs {
        let typed = match input {
            FnArg::Receiver(r) => {
                cx.error_spanned_by(r, "`#[resource]` cannot take `self`; write a free fn");
                continue;
            }
            FnArg::Typed(t) => t,
        };
        if is_context(&typed.ty) {
            out.push(Param::Context);
            continue;
        }
        let Pat::Ident(pat) = &*typed.pat else {
            cx.error_spanned_by(
                &typed.pat,
                "a `#[resource]` parameter must be a plain name, the template variable it takes",
            );
            continue;
        };
        let ident = pat.ident.clone();
        let name = ident.to_string();
        match address {
            Some(Address::Uri(_)) => cx.error_spanned_by(
                &ident,
                format_args!(
                    "a fixed resource takes no parameter but `&Context`; `{name}` has nothing to read from (use `template = \"…/{{{name}}}\"` to take it from the URI)"
                ),
            ),
            Some(Address::Template(_, t)) if !t.variables().contains(&name) => cx.error_spanned_by(
                &ident,
                format_args!(
                    "parameter `{name}` is not a variable of template '{}'; its variables are: {}",
                    t.as_str(),
                    t.variables().join(", ")
                ),
            ),
            _ => {}
        }
        out.push(Param::Variable { ident, ty: typed.ty.clone() });
    }
    if let Some(Address::Template(lit, t)) = address {
        for var in t.variables() {
            let has = out.iter().any(|p| matches!(p, Param::Variable { ident, .. } if ident == var));
            if !has {
                cx.error_spanned_by(
                    lit,
                    format_args!("template variable `{var}` has no parameter; add `{var}: <type>` to the fn"),
                );
            }
        }
    }
    crate::signature::check_shape(
        cx,
        &item.sig,
        &crate::signature::Shape {
            attr: "`#[resource]`",
            why_concrete: "each template variable is parsed as a concrete type",
            caller: "a client",
        },
    );
    out
}
