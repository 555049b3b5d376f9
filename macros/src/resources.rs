//! `resources![a, b, path::c]`: a `ResourceRegistry` of `#[resource]` fns, named by the same
//! paths as the fns. Each path is used as the companion struct (`a {}`), so a typo reads
//! ``cannot find struct `a` `` under `a`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Token;
use syn::parse::Parser;
use syn::punctuated::Punctuated;

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let paths = match Punctuated::<syn::Path, Token![,]>::parse_terminated.parse2(input) {
        Ok(p) => p,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                format!("{e}; write `resources![a, b, module::c]`, naming `#[resource]` fns"),
            )
            .to_compile_error();
        }
    };
    let paths = paths.iter();
    quote! {
        (|| {
            let mut __registry = ::toolwire::resource::ResourceRegistry::new();
            #( ::toolwire::__private::ResourceEntry::register(#paths {}, &mut __registry)?; )*
            ::core::result::Result::<_, ::toolwire::resource::ResourceRegistryError>::Ok(__registry)
        })()
    }
}
