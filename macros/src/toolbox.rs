//! `#[toolbox] impl Db { #[tool] async fn query(&self, sql: String) .. }`: `#[tool]` methods
//! registered from one value.
//!
//! The impl is given back as written, minus the `#[tool]` attributes and the parameters'
//! helper attributes, so its methods stay ordinary methods. Beside it, each `#[tool]` method
//! gets a hidden free fn that takes `State<Db>` for `&self` and calls the method, with
//! `#[tool]` on it: a toolbox method is a stateful tool like any other, through the same
//! mechanism (`State<T>`, the registry's state). Last comes `Db::tools(self)`, the registry of
//! those tools with `self` as their state.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ImplItem, ItemImpl, Meta, Token, Type};

use crate::ctxt::Ctxt;

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut imp: ItemImpl = match syn::parse2(item.clone()) {
        Ok(i) => i,
        Err(e) => {
            let mut out = item;
            out.extend(
                syn::Error::new(
                    e.span(),
                    "`#[toolbox]` goes on an impl block: `#[toolbox] impl Db { #[tool] fn query(&self, ..) .. }`",
                )
                .to_compile_error(),
            );
            return out;
        }
    };
    let cx = Ctxt::new();
    if !args.is_empty() {
        cx.error_spanned_by(&args, "`#[toolbox]` takes no arguments; put them on each `#[tool]`");
    }
    if let Some((path, _)) = &imp.trait_ {
        cx.error_spanned_by(
            path,
            "`#[toolbox]` goes on an inherent impl (`impl Db { .. }`), not a trait impl",
        );
    }
    if let Some(param) = imp.generics.params.first() {
        cx.error_spanned_by(
            param,
            "`#[toolbox]` impls cannot be generic; a tool's schema is fixed at compile time, so name a concrete type",
        );
    } else if let Some(w) = &imp.generics.where_clause {
        cx.error_spanned_by(w, "`#[toolbox]` impls cannot have a `where` clause; name a concrete type");
    }
    let self_ty = (*imp.self_ty).clone();
    let base = type_base_name(&self_ty);

    let mut shims = Vec::new();
    let mut shim_names = Vec::new();
    for item in imp.items.iter_mut() {
        let ImplItem::Fn(method) = item else { continue };
        let Some(pos) = method.attrs.iter().position(is_tool_attr) else { continue };
        let tool_attr = method.attrs.remove(pos);
        let ident = method.sig.ident.clone();
        let shim = format_ident!("__toolwire_{}_{}", base, ident);

        // The method keeps every attribute but `#[tool]`; its docs are also the tool's.
        let docs: Vec<&Attribute> = method.attrs.iter().filter(|a| a.path().is_ident("doc")).collect();
        let docs: Vec<Attribute> = docs.into_iter().cloned().collect();

        let mut shim_params = Vec::new();
        let mut call_args = Vec::new();
        let mut receiver = None;
        for input in method.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => {
                    match &r.kind {
                        syn::ReceiverKind::Reference(_, _, None) => {}
                        syn::ReceiverKind::Reference(_, _, Some(_)) => cx.error_spanned_by(
                            &*r,
                            "a `#[tool]` method takes `&self`, not `&mut self`: calls run concurrently on one shared value; keep what changes behind a lock or an atomic inside it",
                        ),
                        _ => cx.error_spanned_by(
                            &*r,
                            "a `#[tool]` method takes `&self`, not `self`: every call shares the one value the toolbox was built from",
                        ),
                    }
                    receiver = Some(r.self_token.span);
                }
                FnArg::Typed(pt) => {
                    // Helper attributes (docs, `#[arg]`, `#[serde]`) go to the shim, where
                    // `#[tool]` reads them; rustc refuses them on the method's parameters.
                    let (kept, helper): (Vec<_>, Vec<_>) =
                        std::mem::take(&mut pt.attrs).into_iter().partition(|a| {
                            !(a.path().is_ident("doc")
                                || a.path().is_ident("arg")
                                || a.path().is_ident("serde"))
                        });
                    pt.attrs = kept.clone();
                    let pat = &pt.pat;
                    let ty = &pt.ty;
                    shim_params.push(quote!(#(#helper)* #(#kept)* #pat: #ty));
                    call_args.push(quote!(#pat));
                }
            }
        }

        let state_ty = quote_spanned!(self_ty.span()=> ::toolwire::__private::State<#self_ty>);
        let self_param = receiver.map(|span| {
            let s = syn::Ident::new("__toolwire_self", span);
            quote!(#s: #state_ty,)
        });
        let self_arg = receiver.map(|_| quote!(&*__toolwire_self,));
        let asyncness = &method.sig.asyncness;
        let await_ = asyncness.as_ref().map(|_| quote!(.await));
        let output = &method.sig.output;
        let vis = &method.vis;
        let tool_args = tool_args(&tool_attr, &ident);
        shims.push(quote! {
            #(#docs)*
            #[::toolwire::tool(#tool_args)]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #[doc(hidden)]
            #vis #asyncness fn #shim(#self_param #(#shim_params),*) #output {
                <#self_ty>::#ident(#self_arg #(#call_args),*) #await_
            }
        });
        shim_names.push(shim);
    }
    if shim_names.is_empty() {
        cx.error_at(
            Span::call_site(),
            "this `#[toolbox]` has no `#[tool]` methods; mark the methods to serve with `#[tool]`",
        );
    }
    if let Err(e) = cx.check() {
        let e = e.to_compile_error();
        return quote!(#imp #e);
    }
    let ty_doc = quote!(#self_ty).to_string().replace(' ', "");
    let tools_doc = format!(
        "The `#[toolbox]` registry: every `#[tool]` method of `{ty_doc}`, with `self` as the value their `&self` is.\n\nMerge it with other tools: `tools![echo, {ty_doc}::tools(value)]`."
    );
    quote! {
        #imp

        #(#shims)*

        impl #self_ty {
            #[doc = #tools_doc]
            pub fn tools(self) -> ::core::result::Result<::toolwire::__private::ToolRegistry, ::toolwire::__private::RegistryError> {
                ::toolwire::tools![#(#shim_names),*; state = [self]]
            }
        }
    }
}

/// Whether an attribute is `#[tool]` (or `#[toolwire::tool]`).
fn is_tool_attr(a: &Attribute) -> bool {
    a.path().segments.last().is_some_and(|s| s.ident == "tool")
}

/// The `#[tool(..)]` arguments, with `name = "<method>"` added unless a name is given: the
/// tool is named for the method, not for the hidden fn.
fn tool_args(attr: &Attribute, method: &syn::Ident) -> TokenStream {
    let given = match &attr.meta {
        Meta::List(list) => list.tokens.clone(),
        _ => TokenStream::new(),
    };
    let names_itself = syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<Meta, Token![,]>::parse_terminated,
        given.clone(),
    )
    .map(|metas| metas.iter().any(|m| m.path().is_ident("name")))
    .unwrap_or(true);
    if names_itself {
        return given;
    }
    let s = method.to_string();
    let name = syn::LitStr::new(s.strip_prefix("r#").unwrap_or(&s), method.span());
    if given.is_empty() { quote!(name = #name) } else { quote!(#given, name = #name) }
}

/// The last identifier of the impl's type, for the hidden fns' names.
fn type_base_name(ty: &Type) -> syn::Ident {
    match ty {
        Type::Path(p) => match p.path.segments.last() {
            Some(seg) => seg.ident.clone(),
            None => format_ident!("Toolbox"),
        },
        _ => format_ident!("Toolbox"),
    }
}
