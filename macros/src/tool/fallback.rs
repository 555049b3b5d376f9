//! What `#[tool]` emits when the attribute or the signature is wrong: the user's fn as it
//! is, a stub companion, and the errors. The fn still exists, so calls to it do not add a
//! cascade of "cannot find" errors; the stub keeps `tools![name]` resolving.

use proc_macro2::TokenStream;
use quote::quote;

use super::ast::ToolFn;

pub(crate) fn tool(f: &ToolFn, errors: syn::Error) -> TokenStream {
    let item = &f.item;
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let errors = errors.to_compile_error();
    // A method cannot have a companion struct beside it (it sits in an `impl`), so give
    // back the method alone.
    if item.sig.receiver().is_some() {
        return quote! { #item #errors };
    }
    quote! {
        #item

        #[allow(non_camel_case_types, dead_code)]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #ident {}

        const _: () = {
            impl ::toolwire::__private::Tool for #ident {
                fn info(&self) -> &::toolwire::__private::ToolInfo {
                    ::core::unreachable!()
                }
                fn call<'a>(
                    &'a self,
                    _: &'a ::toolwire::__private::RawValue,
                    _: &'a ::toolwire::__private::Context,
                ) -> ::toolwire::__private::ToolFuture<'a> {
                    ::core::unreachable!()
                }
            }
        };

        #errors
    }
}
