//! `tools![a, b, path::c]`: a `ToolRegistry` of `#[tool]` fns, named by the same paths as
//! the fns. Each path is used as the companion struct (`a {}`), so a typo reads
//! ``cannot find struct `a` `` under `a`.
//!
//! Two additions, both optional: an item that is not a path is an expression giving a whole
//! registry to merge in (a toolbox: `Db::tools(db)`), and a trailing `; state = [v, ..]`
//! gives the registry its state values, added before any tool so each tool's needs are
//! checked as it is added.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

const FORM: &str =
    "write `tools![a, b, module::c]`, naming `#[tool]` fns, optionally followed by `; state = [value, ..]`";

/// The parsed input: items, then the optional state list.
struct Input {
    items: Vec<Expr>,
    states: Vec<Expr>,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut items = Vec::new();
        while !input.is_empty() && !input.peek(Token![;]) {
            items.push(input.parse::<Expr>()?);
            if input.is_empty() || input.peek(Token![;]) {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        let mut states = Vec::new();
        if input.parse::<Option<Token![;]>>()?.is_some() {
            let key: syn::Ident = input.parse()?;
            if key != "state" {
                return Err(syn::Error::new(key.span(), "expected `state = [value, ..]` after `;`"));
            }
            input.parse::<Token![=]>()?;
            let content;
            syn::bracketed!(content in input);
            states = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?.into_iter().collect();
            let _ = input.parse::<Option<Token![,]>>()?;
        }
        Ok(Input { items, states })
    }
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let input = match Input::parse.parse2(input) {
        Ok(p) => p,
        Err(e) => {
            return syn::Error::new(e.span(), format!("{e}; {FORM}")).to_compile_error();
        }
    };
    let tw = quote!(::toolwire::__private);
    let all_paths = input.items.iter().all(|i| matches!(i, Expr::Path(_)));
    if input.states.is_empty() && all_paths {
        // The plain form, as it always was.
        let paths = input.items.iter();
        return quote! {
            #tw::ToolRegistry::from_tools([
                #(#tw::shared(#paths {})),*
            ])
        };
    }
    let states = input.states.iter();
    let adds = input.items.iter().map(|item| match item {
        Expr::Path(p) => quote!(__toolwire_r.insert(#tw::shared(#p {}))?;),
        other => quote!(#tw::Include::include(#other, &mut __toolwire_r)?;),
    });
    quote! {
        (|| -> ::core::result::Result<#tw::ToolRegistry, #tw::RegistryError> {
            let mut __toolwire_r = #tw::ToolRegistry::new();
            #(__toolwire_r.add_state(#states)?;)*
            #(#adds)*
            ::core::result::Result::Ok(__toolwire_r)
        })()
    }
}
