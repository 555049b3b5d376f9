//! What `#[resource]` emits: the fn untouched, and a companion struct of the same name (type
//! namespace) that implements `Resource` (for `uri`) or `ResourceTemplate` (for
//! `template`), plus `ResourceEntry` so `resources![]` can add it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::attr::{self, Address};
use super::check::{self, Param};
use crate::ctxt::Ctxt;
use crate::signature::{doc_exprs, parse_fn};

pub(crate) fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: ItemFn = match parse_fn(
        item,
        "`#[resource]` goes on a fn: `#[resource(uri = \"file:///x\")] fn name() -> String { .. }`",
    ) {
        Ok(f) => f,
        Err(tokens) => return tokens,
    };
    let cx = Ctxt::new();
    let attr = attr::parse(&cx, args);
    let params = check::params(&cx, &item, attr.address.as_ref());
    check::completers(&cx, &attr.complete, attr.address.as_ref());
    if let Err(e) = cx.check() {
        let error = e.to_compile_error();
        return quote! { #item #error };
    }
    let Some(address) = attr.address else { unreachable!("checked above") };

    let fn_name = &item.sig.ident;
    let vis = &item.vis;
    let docs = doc_exprs(&item.attrs);
    let name = attr.name.map_or_else(|| fn_name.to_string(), |n| n.value());
    let description = match attr.description {
        Some(d) => quote! { #d },
        None => quote! { ::toolwire::__private::concat!("" #(, #docs, "\n")*) },
    };
    let title = attr.title.map(|t| quote! { .with_title(#t) });
    let mime = match &attr.mime_type {
        Some(m) => quote! { ::core::option::Option::Some(#m) },
        None => quote! { ::core::option::Option::None },
    };
    let with_mime = attr.mime_type.as_ref().map(|m| quote! { .with_mime_type(#m) });
    let icons: Vec<TokenStream> = attr
        .icons
        .iter()
        .map(|i| {
            let src = &i.src;
            let opt = |l: &Option<syn::LitStr>| match l {
                Some(l) => quote!(::core::option::Option::Some(#l)),
                None => quote!(::core::option::Option::None),
            };
            let (mime, theme, sizes) = (opt(&i.mime_type), opt(&i.theme), &i.sizes);
            quote!(.with_icon(::toolwire::__private::icon(#src, #mime, &[#(#sizes),*], #theme)))
        })
        .collect();
    let completers = attr.complete.iter().map(|(var, expr)| {
        let var = var.to_string();
        quote_spanned!(expr.span()=> (::std::string::String::from(#var), ::toolwire::__private::completer(#expr)))
    });
    let awaited = item.sig.asyncness.is_some().then(|| quote! { .await });
    let p = quote! { ::toolwire::__private };

    let mut takes = Vec::new();
    let mut describe = Vec::new();
    let mut call_args = Vec::new();
    let mut index = 0usize;
    for param in &params {
        match param {
            Param::Context => call_args.push(quote! { __ctx }),
            Param::Variable { ident, ty } => {
                let local = format_ident!("__var_{}", ident);
                let var = ident.to_string();
                takes.push(quote! {
                    let #local: #ty = __args.take(#index).map_err(|e| #p::bad_variable(__uri, __spec, e))?;
                });
                describe.push(quote! { .variable::<#ty>(#var) });
                call_args.push(quote! { #local });
                index += 1;
            }
        }
    }

    let body = match &address {
        Address::Uri(uri) => quote! {
            impl ::toolwire::resource::Resource for #fn_name {
                fn info(&self) -> &::toolwire::resource::ResourceInfo {
                    static INFO: #p::OnceLock<::toolwire::resource::ResourceInfo> = #p::OnceLock::new();
                    INFO.get_or_init(|| {
                        ::toolwire::resource::ResourceInfo::new(#uri, #name)
                            .with_description(#p::normalise_doc(#description))
                            #title #with_mime #(#icons)*
                    })
                }

                fn read<'a>(&'a self, __ctx: &'a ::toolwire::Context) -> ::toolwire::resource::ReadFuture<'a> {
                    #p::Box::pin(async move {
                        let __value = #fn_name(#(#call_args),*) #awaited;
                        ::toolwire::resource::ResourceReturn::into_contents(__value, #uri, #mime)
                    })
                }
            }

            impl #p::ResourceEntry for #fn_name {
                fn register(self, registry: &mut ::toolwire::resource::ResourceRegistry) -> ::core::result::Result<(), ::toolwire::resource::ResourceRegistryError> {
                    registry.add(self).map(|_| ())
                }
            }
        },
        Address::Template(template, _) => quote! {
            impl #fn_name {
                fn __spec() -> &'static #p::TemplateSpec {
                    static SPEC: #p::OnceLock<#p::TemplateSpec> = #p::OnceLock::new();
                    SPEC.get_or_init(|| #p::TemplateSpec::new(#template) #(#describe)* .build())
                }
            }

            impl ::toolwire::resource::ResourceTemplate for #fn_name {
                fn info(&self) -> &::toolwire::resource::TemplateInfo {
                    static INFO: #p::OnceLock<::toolwire::resource::TemplateInfo> = #p::OnceLock::new();
                    INFO.get_or_init(|| {
                        ::toolwire::resource::TemplateInfo::new(#p::template(#template), #name)
                            .with_description(#p::normalise_doc(#description))
                            #title #with_mime #(#icons)*
                    })
                }

                fn completers(&self) -> ::std::vec::Vec<(::std::string::String, #p::Arc<dyn #p::Complete>)> {
                    ::std::vec![#(#completers),*]
                }

                fn read<'a>(
                    &'a self,
                    __uri: &'a str,
                    __vars: &'a [(::std::string::String, ::std::string::String)],
                    __ctx: &'a ::toolwire::Context,
                ) -> ::toolwire::resource::ReadFuture<'a> {
                    #p::Box::pin(async move {
                        let __spec = #fn_name::__spec();
                        let __raw = __spec.arguments(__vars);
                        let __args = __spec.args.parse(&__raw).map_err(|e| #p::bad_variable(__uri, __spec, e))?;
                        #(#takes)*
                        let __value = #fn_name(#(#call_args),*) #awaited;
                        ::toolwire::resource::ResourceReturn::into_contents(__value, __uri, #mime)
                    })
                }
            }

            impl #p::ResourceEntry for #fn_name {
                fn register(self, registry: &mut ::toolwire::resource::ResourceRegistry) -> ::core::result::Result<(), ::toolwire::resource::ResourceRegistryError> {
                    registry.add_template(self).map(|_| ())
                }
            }
        },
    };

    quote! {
        #item

        #[allow(non_camel_case_types)]
        #[doc = ::core::concat!("The resource `", ::core::stringify!(#fn_name), "` as `#[resource]` serves it.")]
        #vis struct #fn_name {}

        #body
    }
}
