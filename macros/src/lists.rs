//! `prompts![a, b, path::c]` and `resources![a, b, path::c]`: a registry of `#[prompt]` or
//! `#[resource]` fns, named by the same paths as the fns. Each path is used as the companion
//! struct (`a {}`), so a typo reads ``cannot find struct `a` `` under `a`.
//!
//! One parse for both (a comma-separated list of paths, and the same words when it is not
//! one); they differ only in the registry they fill. `tools![]` (`tools.rs`) takes more: a
//! toolbox expression and `; state = [..]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Token;
use syn::parse::Parser;
use syn::punctuated::Punctuated;

/// `prompts![..]`: `Result<PromptRegistry, PromptRegistryError>`.
pub(crate) fn prompts(input: TokenStream) -> TokenStream {
    let paths = match paths(input, "prompts", "prompt") {
        Ok(paths) => paths,
        Err(error) => return error,
    };
    quote! {
        ::toolwire::__private::prompt_registry([
            #(::toolwire::__private::shared_prompt(#paths {})),*
        ])
    }
}

/// `resources![..]`: `Result<ResourceRegistry, ResourceRegistryError>`. A companion struct
/// registers itself (`ResourceEntry`), as a resource or as a template.
pub(crate) fn resources(input: TokenStream) -> TokenStream {
    let paths = match paths(input, "resources", "resource") {
        Ok(paths) => paths,
        Err(error) => return error,
    };
    quote! {
        (|| {
            let mut __registry = ::toolwire::resource::ResourceRegistry::new();
            #( ::toolwire::__private::ResourceEntry::register(#paths {}, &mut __registry)?; )*
            ::core::result::Result::<_, ::toolwire::resource::ResourceRegistryError>::Ok(__registry)
        })()
    }
}

/// The list's paths, or the compile error saying how to write `list![..]` of `#[attr]` fns.
fn paths(input: TokenStream, list: &str, attr: &str) -> Result<Vec<syn::Path>, TokenStream> {
    match Punctuated::<syn::Path, Token![,]>::parse_terminated.parse2(input) {
        Ok(paths) => Ok(paths.into_iter().collect()),
        Err(e) => Err(syn::Error::new(
            e.span(),
            format!("{e}; write `{list}![a, b, module::c]`, naming `#[{attr}]` fns"),
        )
        .to_compile_error()),
    }
}
