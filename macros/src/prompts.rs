//! `prompts![a, b, path::c]`: a `PromptRegistry` of `#[prompt]` fns, named by the fns'
//! paths (each used as its companion struct, so a typo reads ``cannot find struct `a` ``).

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
                format!("{e}; write `prompts![a, b, module::c]`, naming `#[prompt]` fns"),
            )
            .to_compile_error();
        }
    };
    let paths = paths.iter();
    quote! {
        ::toolwire::__private::prompt_registry([
            #(::toolwire::__private::shared_prompt(#paths {})),*
        ])
    }
}
