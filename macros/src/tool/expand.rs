//! Code generation for `#[tool]`: the user's fn untouched, a companion struct of the same
//! name (type namespace only, so it cannot clash with the fn), and its `Tool` impl, which
//! calls thin helpers in `::toolwire::__private`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::ast::{DefaultValue, Kind, ToolFn};
use super::attr::{RawAttr, check_name};
use super::{check, fallback};
use crate::ctxt::Ctxt;
use crate::signature::{docs_concat, parse_fn};

pub(crate) fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_fn =
        match parse_fn(item, "`#[tool]` goes on a fn: `#[tool] fn name(arg: Type) -> String { .. }`") {
            Ok(f) => f,
            Err(tokens) => return tokens,
        };
    let cx = Ctxt::new();
    let raw = RawAttr::parse(&cx, args);
    let attr = raw.resolve(&cx);
    let f = ToolFn::from_item(&cx, item_fn);
    check::signature(&cx, &f);
    if let (Some(span), Some(_)) = (attr.inline, &f.item.sig.asyncness) {
        cx.error_at(span, "`inline` is for a sync fn; an `async fn` already runs in place: remove `inline`");
    }
    // A call becomes a task when its body first waits, and the body then runs again from the
    // start in the task: a sync body has no wait of its own, and one handed to another
    // thread would run twice.
    if let (Some(span), None) = (attr.task_span, &f.item.sig.asyncness) {
        cx.error_at(
            span,
            "`task` is for an `async fn`: a call becomes a task when its body first waits (`.await`), and a sync body never does; make the fn `async` and await its long work",
        );
    }
    let tool_name = match &attr.name {
        Some(lit) => lit.value(),
        None => {
            let s = f.item.sig.ident.to_string();
            let s = s.strip_prefix("r#").unwrap_or(&s).to_owned();
            // A fn name is always a valid tool name but for length; check it like any other.
            check_name(&cx, &syn::LitStr::new(&s, f.item.sig.ident.span()));
            s
        }
    };
    let out = match cx.check() {
        Ok(()) => generate(&f, &attr, &tool_name),
        Err(errors) => fallback::tool(&f, errors),
    };
    debug_print(&tool_name, &out);
    out
}

/// `TOOLWIRE_MACROS_DEBUG=1` prints each expansion to stderr while compiling.
fn debug_print(name: &str, out: &TokenStream) {
    if std::env::var_os("TOOLWIRE_MACROS_DEBUG").is_some_and(|v| v != "0") {
        eprintln!("---- #[tool] {name} ----\n{out}\n");
    }
}

fn generate(f: &ToolFn, attr: &super::attr::ToolAttr, tool_name: &str) -> TokenStream {
    let item = &f.item;
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let tw = quote!(::toolwire::__private);

    let description = match &attr.description {
        Some(lit) => quote!(#lit),
        None => docs_concat(&f.docs),
    };
    let title = attr.title.as_ref().map(|t| quote!(.title(#t)));
    let icons = attr.icons.iter().map(|i| {
        let src = &i.src;
        let opt = |l: &Option<syn::LitStr>| match l {
            Some(l) => quote!(::core::option::Option::Some(#l)),
            None => quote!(::core::option::Option::None),
        };
        let (mime, theme, sizes) = (opt(&i.mime_type), opt(&i.theme), &i.sizes);
        quote!(.icon(#src, #mime, &[#(#sizes),*], #theme))
    });
    let metas = attr.meta.iter().map(|(k, v)| quote!(.meta(#k, #tw::Value::from(#v))));
    let side_effecting = attr.side_effecting;
    let requires_approval = attr.requires_approval;
    let idempotent = attr.idempotent;
    let open_world = attr.open_world;
    let caps = &attr.caps;
    // Emitted only when given, so a tool without scopes expands as before.
    let task = attr.task.map(|required| quote!(.task(#required)));
    let scopes = (!attr.scopes.is_empty()).then(|| {
        let scopes = &attr.scopes;
        quote!(.scopes(&[#(#scopes),*]))
    });

    // Every parameter goes through `ToolInput`, with its own type as `Self`: the kind (injected
    // or argument) picks the impl, so the type checker, not the macro, tells them apart.
    // Each use is spanned at the type, so a type that is neither is one error, under it.
    let mut describes = Vec::new();
    let mut seeds = Vec::new();
    let mut finishes = Vec::new();
    let mut call_args = Vec::new();
    for (i, p) in f.inputs.iter().enumerate() {
        let ty = &p.ty;
        let span = ty_span(ty);
        let wire = &p.wire_name;
        let doc = docs_concat(&p.docs);
        let var = format_ident!("__toolwire_arg{}", i);
        let seed = format_ident!("__toolwire_seed{}", i);
        let kvar = format_ident!("__toolwire_kind{}", i);
        let kind = match p.kind {
            Kind::ByType => quote_spanned!(span=> (&&&#tw::probes::Probe::<#ty>::new()).__toolwire_kind()),
            Kind::Injected => quote_spanned!(span=> #tw::ViaContext),
            Kind::Argument => quote_spanned!(span=> #tw::ViaArguments),
        };
        let param = quote_spanned!(span=> <#ty as #tw::ToolInput<'_, _>>);
        let default_expr = match &p.default {
            DefaultValue::None => None,
            DefaultValue::Trait => Some(quote!(<#ty as ::core::default::Default>::default())),
            DefaultValue::Expr(e) => Some(quote!({ let __toolwire_d: #ty = #e; __toolwire_d })),
            DefaultValue::Path(path) => Some(quote!({ let __toolwire_d: #ty = #path(); __toolwire_d })),
        };
        let (optional, advertised) = match &default_expr {
            Some(d) => (quote!(true), quote!((&&#tw::probes::DefaultProbe(&#d)).__toolwire_default())),
            None => (
                quote!((&&#tw::probes::Probe::<#ty>::new()).__toolwire_optional()),
                quote!(::core::option::Option::None),
            ),
        };
        describes.push(quote_spanned!(span=> {
            let #kvar = #kind;
            #param::describe(#kvar, &mut __toolwire_b, #wire, #doc, #optional, #advertised);
        }));
        seeds.push(match &default_expr {
            None => quote_spanned!(span=>
                let #kvar = #kind;
                let #seed = #param::seed(#kvar, &__toolwire_a, &mut __toolwire_next)?;
            ),
            Some(d) => quote_spanned!(span=>
                let #kvar = #kind;
                let #seed = #param::seed_or_else(#kvar, &__toolwire_a, &mut __toolwire_next, || #d)?;
            ),
        });
        finishes.push(quote_spanned!(span=>
            let #var: #ty = #param::finish(#kvar, #seed, __toolwire_ctx, #tool_name)?;
        ));
        call_args.push(var);
    }

    let ret = &f.ret;
    let convert = quote_spanned!(f.ret_span=>
        #tw::outcome::<#ret, _>((&&&&#tw::probes::Returned::new(__toolwire_ret)).__toolwire_into_output(#tool_name, __toolwire_s.wraps_output))
    );
    let asyncness = item.sig.asyncness.as_ref();
    let body = if attr.local.is_some() {
        // `local`: the arguments were read here; the body is made, polled and its return value
        // converted on one of toolwire's local threads, so neither its future nor its return
        // value need be `Send`. Injected values are taken there, from its own context handle.
        let call = match asyncness {
            Some(_) => quote!(#ident(#(#call_args),*).await),
            None => quote!(#ident(#(#call_args),*)),
        };
        quote!(
            let __toolwire_ctx_owned = ::core::clone::Clone::clone(__toolwire_ctx);
            #tw::run_local(#tool_name, move || async move {
                let __toolwire_ctx = &__toolwire_ctx_owned;
                #(#finishes)*
                let __toolwire_ret = #call;
                #convert
            })
            .await
        )
    } else {
        let run = if let Some(token) = asyncness {
            // Spanned at `async`: a future that is not `Send` is reported there, under a bound
            // whose name says to write `local`.
            let probe = quote_spanned!(token.span=> #tw::send_or_write_tool_local(#ident(#(#call_args),*)));
            quote!({
                #(#finishes)*
                #tw::run_async(#tool_name, #probe).await?
            })
        } else if attr.inline.is_some() {
            // `inline`: the body runs right here, on the thread that polls the call.
            quote!({
                #(#finishes)*
                #tw::run_inline(#tool_name, || #ident(#(#call_args),*))?
            })
        } else {
            // A sync body runs on a hot worker or the blocking pool: the arguments were read here, and injected
            // values are taken there, from the body's own handle on the context.
            quote!({
                let __toolwire_ctx_owned = ::core::clone::Clone::clone(__toolwire_ctx);
                #tw::run_blocking(#tool_name, move || {
                    let __toolwire_ctx = &__toolwire_ctx_owned;
                    #(#finishes)*
                    ::core::result::Result::Ok::<_, #tw::ToolError>(#ident(#(#call_args),*))
                })
                .await??
            })
        };
        quote!(
            let __toolwire_ret = #run;
            #convert
        )
    };
    let companion_doc = format!(
        "The [`Tool`](::toolwire::Tool) `{tool_name}`, generated by `#[tool]` from [`{ident}()`]({ident}()).\n\nName it where a tool is expected: `tools![{ident}]`."
    );

    quote! {
        #item

        #[doc = #companion_doc]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #ident {}

        const _: () = {
            #[allow(unused_imports)]
            use #tw::probes::{
                KindSettled as _, KindInjected as _, KindArgument as _,
                AdvertiseDefault as _, SilentDefault as _, IsOptionParam as _, IsRequiredParam as _,
                OutputViaReturn as _, OutputViaStructuredResult as _, OutputViaStructured as _, OutputUnsupported as _,
                ReturnViaReturn as _, ReturnViaStructuredResult as _, ReturnViaStructured as _, ReturnUnsupported as _,
            };

            impl #ident {
                fn __toolwire_statics() -> &'static #tw::ToolStatics {
                    static STATICS: #tw::OnceLock<#tw::ToolStatics> = #tw::OnceLock::new();
                    STATICS.get_or_init(|| {
                        #[allow(unused_mut)]
                        let mut __toolwire_b = #tw::StaticsBuilder::new(#tool_name, #description)
                            #title
                            #(#icons)*
                            #(#metas)*
                            .declarations(#side_effecting, #requires_approval, #idempotent, #open_world, &[#(#caps),*])
                            #scopes
                            #task;
                        #(#describes)*
                        __toolwire_b
                            .output((&&&&#tw::probes::Probe::<#ret>::new()).__toolwire_output_schema())
                            .build()
                    })
                }
            }

            impl #tw::Tool for #ident {
                fn info(&self) -> &#tw::ToolInfo {
                    &Self::__toolwire_statics().info
                }

                fn call<'__toolwire>(
                    &'__toolwire self,
                    __toolwire_raw: &'__toolwire #tw::RawValue,
                    __toolwire_ctx: &'__toolwire #tw::Context,
                ) -> #tw::ToolFuture<'__toolwire> {
                    #tw::Box::pin(async move {
                        let __toolwire_s = Self::__toolwire_statics();
                        let __toolwire_a = __toolwire_s.args.parse(__toolwire_raw)?;
                        #[allow(unused_mut)]
                        let mut __toolwire_next = 0usize;
                        #(#seeds)*
                        #body
                    })
                }
            }
        };
    }
}

fn ty_span(ty: &syn::Type) -> proc_macro2::Span {
    syn::spanned::Spanned::span(ty)
}

#[cfg(test)]
mod tests {
    use quote::quote;
    use syn::{File, Item};

    fn expand(args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> File {
        syn::parse2(super::tool(args, item)).expect("the expansion is valid Rust")
    }

    fn errors(file: &File) -> Vec<String> {
        file.items
            .iter()
            .filter_map(|i| match i {
                Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error") => {
                    Some(m.mac.tokens.to_string())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_fn_is_kept_as_written_and_a_companion_struct_is_added() {
        let item = quote! {
            /// Echo.
            pub async fn echo(text: String, n: Option<u32>) -> String { text }
        };
        let file = expand(quote!(read_only), item.clone());
        let original: syn::ItemFn = syn::parse2(item).unwrap();
        assert_eq!(file.items[0], Item::Fn(original));
        let Item::Struct(s) = &file.items[1] else { panic!("second item is the companion struct") };
        assert_eq!(s.ident, "echo");
        assert!(matches!(s.vis, syn::Visibility::Public(_)));
        assert!(matches!(file.items[2], Item::Const(_)));
        assert!(errors(&file).is_empty());
    }

    #[test]
    fn parameter_doc_comments_and_helper_attributes_are_removed_from_the_fn() {
        let file = expand(
            quote!(),
            quote! {
                fn f(
                    /// The path.
                    #[serde(rename = "p")] path: String,
                    #[arg(default = 3)] #[cfg_attr(any(), allow(unused))] n: u8,
                ) {}
            },
        );
        let Item::Fn(f) = &file.items[0] else { panic!() };
        let expected: syn::ItemFn = syn::parse2(quote! {
            fn f(path: String, #[cfg_attr(any(), allow(unused))] n: u8,) {}
        })
        .unwrap();
        assert_eq!(*f, expected);
    }

    #[test]
    fn on_error_the_fn_and_a_stub_still_expand_beside_every_error() {
        let file = expand(
            quote!(approval, caps = "x"),
            quote!(
                fn f() {}
            ),
        );
        assert!(matches!(file.items[0], Item::Fn(_)));
        assert!(matches!(file.items[1], Item::Struct(_)));
        let errors = errors(&file);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("did you mean `requires_approval`?"));
        assert!(errors[1].contains("`caps` takes a list of strings"));
    }

    #[test]
    fn an_item_that_is_not_a_fn_comes_back_with_the_error() {
        let out = super::tool(
            quote!(),
            quote!(
                struct S;
            ),
        );
        let file: File = syn::parse2(out).unwrap();
        assert!(matches!(file.items[0], Item::Struct(_)));
        assert_eq!(errors(&file).len(), 1);
    }
}
