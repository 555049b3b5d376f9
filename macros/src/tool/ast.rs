//! The typed model of a `#[tool]` fn: its parameters (with their helper attributes read and
//! removed) and its return type, holding the original `syn` nodes so spans survive.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, ItemFn, LitStr, Pat, ReturnType, Type};

use crate::ctxt::Ctxt;
use crate::signature::{doc_exprs, plain_ident, wire_name};

/// How an absent argument gets its value.
pub(crate) enum DefaultValue {
    /// Required (or an `Option`, which reads absent as `None`).
    None,
    /// `#[arg(default)]` / `#[serde(default)]`: `Default::default()`.
    Trait,
    /// `#[arg(default = expr)]`.
    Expr(Expr),
    /// `#[serde(default = "path")]`: a fn to call.
    Path(syn::ExprPath),
}

/// How a parameter is told injected from argument.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// By its type, when the crate is compiled: injected if it implements
    /// `toolwire::inject::FromContext`, an argument otherwise.
    ByType,
    /// Marked `#[arg(context)]`, or a reference (only the context lends): injected, and an
    /// error if its type is not `FromContext`.
    Injected,
    /// Given a `rename` or a `default`, which only an argument can have.
    Argument,
}

/// One parameter of the fn, in order.
pub(crate) struct Param {
    /// Injected or argument.
    pub(crate) kind: Kind,
    /// The name on the wire, after renaming (an argument's; an injected parameter has none).
    pub(crate) wire_name: String,
    /// Where the wire name came from (the rename literal, or the parameter's ident).
    pub(crate) name_span: Span,
    pub(crate) ty: Type,
    pub(crate) docs: Vec<Expr>,
    pub(crate) default: DefaultValue,
}

pub(crate) struct ToolFn {
    pub(crate) item: ItemFn,
    pub(crate) inputs: Vec<Param>,
    pub(crate) docs: Vec<Expr>,
    /// The return type, `()` when none is written.
    pub(crate) ret: Type,
    pub(crate) ret_span: Span,
}

impl ToolFn {
    /// Read the fn. Helper attributes on parameters are removed from `item` here, because
    /// rustc rejects doc comments and unknown attributes on fn parameters.
    pub(crate) fn from_item(cx: &Ctxt, mut item: ItemFn) -> ToolFn {
        let docs = doc_exprs(&item.attrs);
        let mut inputs = Vec::new();
        for arg in item.sig.inputs.iter_mut() {
            match arg {
                FnArg::Receiver(r) => {
                    cx.error_spanned_by(
                        r.self_token,
                        "`#[tool]` cannot take `self` here; put `#[toolbox]` on the impl block (`#[toolbox] impl Db { #[tool] fn query(&self, ..) }`), or write a free fn taking `State<T>`",
                    );
                }
                FnArg::Typed(pt) => {
                    let attrs = std::mem::take(&mut pt.attrs);
                    let (kept, helper) = split_attrs(attrs);
                    pt.attrs = kept;
                    inputs.push(read_param(cx, &pt.pat, &pt.ty, &helper));
                }
            }
        }
        let (ret, ret_span) = match &item.sig.output {
            ReturnType::Default => (syn::parse_quote!(()), item.sig.ident.span()),
            ReturnType::Type(_, ty) => ((**ty).clone(), ty.span()),
        };
        ToolFn { item, inputs, docs, ret, ret_span }
    }
}

/// Attributes rustc may keep (`cfg`-like ones we leave alone) and the ones we consume
/// (`doc`, `arg`, `serde`).
fn split_attrs(attrs: Vec<Attribute>) -> (Vec<Attribute>, Vec<Attribute>) {
    attrs
        .into_iter()
        .partition(|a| !(a.path().is_ident("doc") || a.path().is_ident("arg") || a.path().is_ident("serde")))
}

fn read_param(cx: &Ctxt, pat: &Pat, ty: &Type, attrs: &[Attribute]) -> Param {
    let mut rename: Option<LitStr> = None;
    let mut default = DefaultValue::None;
    let mut context = false;
    for attr in attrs {
        let is_arg = attr.path().is_ident("arg");
        let is_serde = attr.path().is_ident("serde");
        if !(is_arg || is_serde) {
            continue;
        }
        let which = if is_arg { "arg" } else { "serde" };
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let lit: LitStr = meta.value()?.parse()?;
                if rename.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `rename`; give it once");
                }
                rename = Some(lit);
            } else if meta.path.is_ident("default") {
                if !matches!(default, DefaultValue::None) {
                    cx.error_spanned_by(&meta.path, "duplicate `default`; give it once");
                }
                if meta.input.peek(syn::Token![=]) {
                    let value = meta.value()?;
                    if is_serde {
                        // serde's form names a fn in a string.
                        let lit: LitStr = value.parse()?;
                        default = DefaultValue::Path(lit.parse()?);
                    } else {
                        default = DefaultValue::Expr(value.parse()?);
                    }
                } else {
                    default = DefaultValue::Trait;
                }
            } else if is_arg && (meta.path.is_ident("context") || meta.path.is_ident("ctx")) {
                context = true;
            } else {
                let known = if is_arg { "`rename`, `default`, `context`" } else { "`rename`, `default`" };
                cx.error_spanned_by(
                    &meta.path,
                    format_args!(
                        "unsupported `{which}` parameter attribute; on a tool parameter `{which}` understands {known}"
                    ),
                );
                // Skip whatever value follows so parsing can go on.
                if meta.input.peek(syn::Token![=]) {
                    let _: Expr = meta.value()?.parse()?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }

    let kind = if context {
        if rename.is_some() || !matches!(default, DefaultValue::None) {
            cx.error_spanned_by(
                ty,
                "an injected parameter takes no `rename` or `default`; remove them, or `#[arg(context)]`",
            );
        }
        Kind::Injected
    } else if rename.is_some() || !matches!(default, DefaultValue::None) {
        // Arguments are deserialized into owned values: a borrowed one has nothing to borrow
        // from once the call's bytes are gone.
        if let Type::Reference(r) = ty {
            cx.error_spanned_by(
                r,
                "tool parameters are deserialized into owned values; use an owned type here (`String` for `&str`, `Vec<T>` for `&[T]`)",
            );
        }
        Kind::Argument
    } else if let Type::Reference(_) = ty {
        // Only an injected value can be borrowed (from the context), so a reference is
        // injected or refused, with the message that says to own it.
        Kind::Injected
    } else {
        Kind::ByType
    };

    let Some(ident) = plain_ident(pat) else {
        cx.error_spanned_by(pat, "tool parameters must be plain names, such as `path: String`; the name is the argument's name in the schema");
        return Param {
            kind,
            wire_name: String::new(),
            name_span: pat.span(),
            ty: ty.clone(),
            docs: doc_exprs(attrs),
            default,
        };
    };
    let (wire_name, name_span) = match &rename {
        Some(lit) => (lit.value(), lit.span()),
        None => (wire_name(ident), ident.span()),
    };
    if let Some(lit) = &rename
        && lit.value().is_empty()
    {
        cx.error_spanned_by(lit, "an argument name cannot be empty");
    }
    Param { kind, wire_name, name_span, ty: ty.clone(), docs: doc_exprs(attrs), default }
}
