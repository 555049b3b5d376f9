//! `serve_registry!(name = "...", tools = [a, b, ...])`: the whole body of a server binary's
//! `main`; `resources = [..]` and `prompts = [..]` serve `#[resource]` and `#[prompt]` fns
//! beside the tools. `serve_registry!(server = expr)` serves a `Server` built in code
//! instead (a live one, with authorization, rate limits, a fan-out): `expr` is evaluated
//! inside the main's runtime, and no other key goes with it.
//!
//! Parse raw (keys with their spans), check every key in one pass (unknown, duplicate,
//! malformed and missing keys are all reported at once, each under its own token), then
//! expand thinly: one call to `::toolwire::__private::serve_main`, which holds the logic.
//! The version is `env!("CARGO_PKG_VERSION")` written into the expansion, so it is the
//! version of the crate that invokes the macro, not toolwire's.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token};

use crate::ctxt::Ctxt;

/// The keys `serve_registry!` takes.
const KEYS: &str =
    "`name`, `version`, `title`, `instructions`, `tools`, `resources`, `prompts`, `state`, `server`";

/// One `key = value` as written.
struct RawKey {
    key: Ident,
    value: RawValue,
}

enum RawValue {
    Str(LitStr),
    Paths(Punctuated<syn::Expr, Token![,]>),
    Other(syn::Expr),
}

impl Parse for RawKey {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let value = if input.peek(LitStr) {
            RawValue::Str(input.parse()?)
        } else if input.peek(syn::token::Bracket) {
            let content;
            syn::bracketed!(content in input);
            RawValue::Paths(Punctuated::parse_terminated(&content)?)
        } else {
            RawValue::Other(input.parse()?)
        };
        Ok(RawKey { key, value })
    }
}

/// The checked input.
struct Spec {
    name: Option<LitStr>,
    version: Option<LitStr>,
    title: Option<LitStr>,
    instructions: Option<LitStr>,
    /// `#[tool]` fn paths, or expressions giving a registry (a toolbox's `Db::tools(db)`).
    tools: Vec<syn::Expr>,
    /// State values for `State<T>` parameters.
    state: Vec<syn::Expr>,
    /// `#[resource]` fn paths, when `resources = [..]` was given.
    resources: Option<Vec<syn::Path>>,
    /// `#[prompt]` fn paths, when `prompts = [..]` was given.
    prompts: Option<Vec<syn::Path>>,
    /// `server = expr`: a `Server` built in code, served as it is.
    server: Option<syn::Expr>,
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let raw = match Punctuated::<RawKey, Token![,]>::parse_terminated.parse2(input) {
        Ok(r) => r,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                format!("{e}; write `serve_registry!(name = \"my-server\", tools = [a, b])`"),
            )
            .to_compile_error();
        }
    };
    let cx = Ctxt::new();
    let spec = resolve(&cx, raw);
    match cx.check() {
        Ok(()) => generate(&spec),
        // The body of `main` must still be an expression: a block holding every error (two
        // `compile_error!`s side by side are not one expression).
        Err(e) => {
            let errors = e.to_compile_error();
            quote!({ #errors })
        }
    }
}

fn resolve(cx: &Ctxt, raw: Punctuated<RawKey, Token![,]>) -> Spec {
    let mut spec = Spec {
        name: None,
        version: None,
        title: None,
        instructions: None,
        tools: Vec::new(),
        state: Vec::new(),
        resources: None,
        prompts: None,
        server: None,
    };
    let mut tools_seen: Option<Ident> = None;
    let mut state_seen = false;
    // Every key but `server`, for the refusal of each beside it.
    let mut others: Vec<Ident> = Vec::new();
    let mut server_seen = false;
    for RawKey { key, value } in raw {
        let name = key.to_string();
        if name == "server" {
            if server_seen {
                cx.error_spanned_by(&key, "duplicate `server`; give it once");
            }
            server_seen = true;
            match value {
                RawValue::Other(expr) => spec.server = Some(expr),
                other => cx.error_spanned_by(
                    value_tokens(&other),
                    "`server` takes an expression giving a built `Server`, e.g. `server = build_server()`",
                ),
            }
            continue;
        }
        others.push(key.clone());
        let slot = match name.as_str() {
            "name" => Some(&mut spec.name),
            "version" => Some(&mut spec.version),
            "title" => Some(&mut spec.title),
            "instructions" => Some(&mut spec.instructions),
            _ => None,
        };
        match (slot, value) {
            (Some(slot), RawValue::Str(lit)) => {
                if slot.is_some() {
                    cx.error_spanned_by(&key, format!("duplicate `{name}`; give it once"));
                }
                // Rule: a server name is what a client shows and an agent CLI addresses;
                // an empty one names nothing.
                if name == "name" && lit.value().trim().is_empty() {
                    cx.error_spanned_by(
                        &lit,
                        "`name` is empty; name the server, e.g. `name = \"my-server\"`",
                    );
                }
                *slot = Some(lit);
            }
            (Some(_), other) => cx.error_spanned_by(
                value_tokens(&other),
                format!("`{name}` takes a string literal, e.g. `{name} = \"...\"`"),
            ),
            (None, RawValue::Paths(paths)) if name == "tools" => {
                if tools_seen.is_some() {
                    cx.error_spanned_by(&key, "duplicate `tools`; list every tool in one `tools = [..]`");
                }
                tools_seen = Some(key);
                spec.tools.extend(paths);
            }
            (None, RawValue::Paths(values)) if name == "state" => {
                if state_seen {
                    cx.error_spanned_by(
                        &key,
                        "duplicate `state`; list every state value in one `state = [..]`",
                    );
                }
                state_seen = true;
                spec.state.extend(values);
            }
            (None, RawValue::Paths(items)) if name == "resources" || name == "prompts" => {
                let (slot, what) = if name == "resources" {
                    (&mut spec.resources, "resource")
                } else {
                    (&mut spec.prompts, "prompt")
                };
                if slot.is_some() {
                    cx.error_spanned_by(
                        &key,
                        format!("duplicate `{name}`; list every {what} in one `{name} = [..]`"),
                    );
                }
                let paths = slot.get_or_insert_with(Vec::new);
                for item in items {
                    match item {
                        syn::Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
                            if paths.iter().any(|listed| same_tokens(listed, &p.path)) {
                                cx.error_spanned_by(
                                    &p,
                                    format!("this {what} is already listed; list each {what} once"),
                                );
                            }
                            paths.push(p.path);
                        }
                        other => cx.error_spanned_by(
                            &other,
                            format!(
                                "`{name}` lists `#[{what}]` fns by name, e.g. `{name} = [{}]`",
                                example(&name)
                            ),
                        ),
                    }
                }
            }
            (None, other) if name == "resources" || name == "prompts" => {
                let what = if name == "resources" { "resource" } else { "prompt" };
                cx.error_spanned_by(
                    value_tokens(&other),
                    format!("`{name}` takes a list of `#[{what}]` fns, e.g. `{name} = [{}]`", example(&name)),
                )
            }
            (None, other) if name == "state" => cx.error_spanned_by(
                value_tokens(&other),
                "`state` takes a list of values, e.g. `state = [Config::load()]`",
            ),
            (None, other) if name == "tools" => cx.error_spanned_by(
                value_tokens(&other),
                "`tools` takes a list of `#[tool]` fns, e.g. `tools = [echo, math::add]`",
            ),
            (None, _) => cx.error_spanned_by(&key, unknown_key(&name)),
        }
    }
    // Rule: a tool is listed once. The registry refuses two tools with one name when it is
    // built; the same path written twice is caught here, under the second one.
    for (i, path) in spec.tools.iter().enumerate() {
        if spec.tools[..i].iter().any(|listed| same_tokens(listed, path)) {
            cx.error_spanned_by(path, "this tool is already listed; list each tool once");
        }
    }
    if server_seen {
        // Rule: a server built in code says what it serves and who it is itself; a key
        // beside it would be a second, ignored answer.
        for key in &others {
            cx.error_spanned_by(
                key,
                format!(
                    "`{key}` cannot go with `server`: a server built in code sets its tools, resources, prompts, state, name, version, title and instructions itself; drop `{key}`"
                ),
            );
        }
    } else if tools_seen.is_none() {
        cx.error_at(
            Span::call_site(),
            "missing `tools`; list the `#[tool]` fns to serve, e.g. `tools = [echo, add]`",
        );
    }
    spec
}

/// Whether two paths or expressions are written the same, token for token (spans aside):
/// what `==` on syn's types means with its `extra-traits` feature, which toolwire does not
/// turn on (it adds about a quarter to syn's compile, on the path of every user's first build).
fn same_tokens(a: &impl quote::ToTokens, b: &impl quote::ToTokens) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// Two fns a `resources`/`prompts` message shows.
fn example(key: &str) -> &'static str {
    if key == "resources" { "settings, table_rows" } else { "review, summarise" }
}

/// The message for an unknown key, with the fix for the likely slips.
fn unknown_key(name: &str) -> String {
    let hint = match name {
        "server_name" => Some("name"),
        "tool" | "registry" => Some("tools"),
        "resource" | "templates" | "resource_templates" => Some("resources"),
        "prompt" => Some("prompts"),
        "description" | "instruction" => Some("instructions"),
        "ver" => Some("version"),
        _ => None,
    };
    match hint {
        Some(fix) => format!("unknown `serve_registry!` key `{name}`; write `{fix}`"),
        None => format!("unknown `serve_registry!` key `{name}`; expected one of {KEYS}"),
    }
}

fn value_tokens(value: &RawValue) -> TokenStream {
    match value {
        RawValue::Str(l) => quote!(#l),
        RawValue::Paths(p) => quote!(#p),
        RawValue::Other(e) => quote!(#e),
    }
}

fn generate(spec: &Spec) -> TokenStream {
    let tw = quote!(::toolwire::__private);
    if let Some(server) = &spec.server {
        // `env!` expands in the invoking crate: `--help` and `--version` name it; the server
        // names itself.
        return quote! {
            #tw::serve_main(
                #tw::MainSpec {
                    name: ::core::env!("CARGO_PKG_NAME"),
                    version: ::core::env!("CARGO_PKG_VERSION"),
                    title: ::core::option::Option::None,
                    instructions: ::core::option::Option::None,
                    built_in_code: true,
                },
                |_| #server,
            )
        };
    }
    let option = |lit: &Option<LitStr>| match lit {
        Some(l) => quote!(::core::option::Option::Some(#l)),
        None => quote!(::core::option::Option::None),
    };
    // `env!` expands in the invoking crate, so these are the user's crate name and version.
    let name = match &spec.name {
        Some(l) => quote!(#l),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let version = match &spec.version {
        Some(l) => quote!(#l),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let title = option(&spec.title);
    let instructions = option(&spec.instructions);
    let tools = &spec.tools;
    let state = (!spec.state.is_empty()).then(|| {
        let state = &spec.state;
        quote!(; state = [#(#state),*])
    });
    let resources = spec.resources.as_ref().map(|r| quote!(.resources(::toolwire::resources![#(#r),*])));
    let prompts = spec.prompts.as_ref().map(|p| quote!(.prompts(::toolwire::prompts![#(#p),*])));
    quote! {
        #tw::serve_main(
            #tw::MainSpec {
                name: #name,
                version: #version,
                title: #title,
                instructions: #instructions,
                built_in_code: false,
            },
            |options| #tw::Surface::new(options, ::toolwire::tools![#(#tools),* #state]) #resources #prompts,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(input: TokenStream) -> Vec<String> {
        let raw = Punctuated::<RawKey, Token![,]>::parse_terminated.parse2(input).unwrap();
        let cx = Ctxt::new();
        resolve(&cx, raw);
        match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn expands_to_one_call_with_the_callers_version() {
        let out: syn::Expr = syn::parse2(expand(quote!(name = "demo", tools = [a, m::b]))).unwrap();
        let want: syn::Expr = syn::parse_quote! {
            ::toolwire::__private::serve_main(
                ::toolwire::__private::MainSpec {
                    name: "demo",
                    version: ::core::env!("CARGO_PKG_VERSION"),
                    title: ::core::option::Option::None,
                    instructions: ::core::option::Option::None,
                    built_in_code: false,
                },
                |options| ::toolwire::__private::Surface::new(options, ::toolwire::tools![a, m::b]),
            )
        };
        assert_eq!(out, want);
    }

    #[test]
    fn resources_and_prompts_are_served_beside_the_tools() {
        let out: syn::Expr =
            syn::parse2(expand(quote!(tools = [a], resources = [app, db::rows], prompts = [review])))
                .unwrap();
        let want: syn::Expr = syn::parse_quote! {
            ::toolwire::__private::serve_main(
                ::toolwire::__private::MainSpec {
                    name: ::core::env!("CARGO_PKG_NAME"),
                    version: ::core::env!("CARGO_PKG_VERSION"),
                    title: ::core::option::Option::None,
                    instructions: ::core::option::Option::None,
                    built_in_code: false,
                },
                |options| ::toolwire::__private::Surface::new(options, ::toolwire::tools![a])
                    .resources(::toolwire::resources![app, db::rows])
                    .prompts(::toolwire::prompts![review]),
            )
        };
        assert_eq!(out, want);
        assert_eq!(
            errors(quote!(tools = [], resources = app, prompts = ["review"], prompt = [x])),
            [
                "`resources` takes a list of `#[resource]` fns, e.g. `resources = [settings, table_rows]`",
                "`prompts` lists `#[prompt]` fns by name, e.g. `prompts = [review, summarise]`",
                "unknown `serve_registry!` key `prompt`; write `prompts`",
            ]
        );
        assert_eq!(
            errors(quote!(tools = [], resources = [a, a], resources = [b])),
            [
                "this resource is already listed; list each resource once",
                "duplicate `resources`; list every resource in one `resources = [..]`",
            ]
        );
    }

    #[test]
    fn a_server_built_in_code_is_served_as_it_is_and_alone() {
        let out: syn::Expr = syn::parse2(expand(quote!(server = build_server()))).unwrap();
        let want: syn::Expr = syn::parse_quote! {
            ::toolwire::__private::serve_main(
                ::toolwire::__private::MainSpec {
                    name: ::core::env!("CARGO_PKG_NAME"),
                    version: ::core::env!("CARGO_PKG_VERSION"),
                    title: ::core::option::Option::None,
                    instructions: ::core::option::Option::None,
                    built_in_code: true,
                },
                |_| build_server(),
            )
        };
        assert_eq!(out, want);
        assert!(errors(quote!(server = build_server())).is_empty());
        assert_eq!(
            errors(quote!(name = "x", server = build(), tools = [a], server = [b])),
            [
                "duplicate `server`; give it once",
                "`server` takes an expression giving a built `Server`, e.g. `server = build_server()`",
                "`name` cannot go with `server`: a server built in code sets its tools, resources, prompts, state, name, version, title and instructions itself; drop `name`",
                "`tools` cannot go with `server`: a server built in code sets its tools, resources, prompts, state, name, version, title and instructions itself; drop `tools`",
            ]
        );
    }

    #[test]
    fn every_bad_key_is_reported_at_once() {
        assert_eq!(
            errors(quote!(server_name = "x", name = 3, tools = [a], tools = [b], colour = "red")),
            [
                "unknown `serve_registry!` key `server_name`; write `name`",
                "`name` takes a string literal, e.g. `name = \"...\"`",
                "duplicate `tools`; list every tool in one `tools = [..]`",
                "unknown `serve_registry!` key `colour`; expected one of `name`, `version`, `title`, `instructions`, `tools`, `resources`, `prompts`, `state`, `server`",
            ]
        );
        assert_eq!(
            errors(quote!(name = "")),
            [
                "`name` is empty; name the server, e.g. `name = \"my-server\"`",
                "missing `tools`; list the `#[tool]` fns to serve, e.g. `tools = [echo, add]`",
            ]
        );
        assert!(errors(quote!(tools = [])).is_empty());
        assert_eq!(
            errors(quote!(tools = [a, m::b, a, m::b, b])),
            [
                "this tool is already listed; list each tool once",
                "this tool is already listed; list each tool once"
            ]
        );
    }
}
