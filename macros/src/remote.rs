//! `#[remote] trait Math { async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError>; }`:
//! one trait, both sides of an MCP tool contract.
//!
//! The trait comes back with each `async fn` written as `fn .. -> impl Future<Output = ..> +
//! Send` (so a served impl's futures can cross threads), and beside it:
//!
//! - per method, a hidden free fn with `#[tool]` on it, taking `State<served>` and calling the
//!   method: the trait's tools are made by `#[tool]` itself (descriptions, schemas, output),
//!   exactly as for a `#[toolbox]` method;
//! - a provided `fn tools(self)`: the registry of those tools with `self` as their state;
//! - `<Trait>Client` (when toolwire has its `client` feature), which implements the trait by
//!   calling the server. Its `bind` checks each method against the server's schemas, with the
//!   hidden tool's own schemas as the local side, so what a served impl advertises is what
//!   binding expects.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, ItemTrait, Meta, Pat, PathArguments, ReturnType, Token, TraitItem,
    Type,
};

use crate::ctxt::Ctxt;

/// One method, read.
struct Method {
    ident: syn::Ident,
    /// Every attribute but `#[remote]`: docs, lints, cfgs.
    attrs: Vec<Attribute>,
    /// The `#[tool(..)]` arguments: the `#[remote(..)]` ones, with `name` added.
    tool_args: TokenStream,
    /// The server's name for the tool.
    tool_name: String,
    params: Vec<Param>,
    /// `Result<T, ToolError>` as written.
    ret: Type,
    /// Its `T`.
    ok: Type,
}

struct Param {
    ident: syn::Ident,
    ty: Type,
    /// Doc comments (the parameter's description).
    docs: Vec<Attribute>,
    /// Attributes left on the parameter (`cfg`-like ones).
    kept: Vec<Attribute>,
}

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let tr: ItemTrait = match syn::parse2(item.clone()) {
        Ok(t) => t,
        Err(e) => {
            let mut out = item;
            out.extend(
                syn::Error::new(
                    e.span(),
                    "`#[remote]` goes on a trait: `#[remote] trait Math { async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError>; }`",
                )
                .to_compile_error(),
            );
            return out;
        }
    };
    let cx = Ctxt::new();
    if !args.is_empty() {
        cx.error_spanned_by(
            &args,
            "`#[remote]` takes no arguments; put a method's `name = \"..\"` and tool keys in `#[remote(..)]` on the method",
        );
    }
    if let Some(param) = tr.generics.params.first() {
        cx.error_spanned_by(
            param,
            "a `#[remote]` trait cannot be generic: each method is a tool whose schema is fixed at compile time",
        );
    } else if let Some(w) = &tr.generics.where_clause {
        cx.error_spanned_by(w, "a `#[remote]` trait cannot have a `where` clause");
    }
    if let Some(first) = tr.supertraits.first() {
        cx.error_spanned_by(
            first,
            "a `#[remote]` trait cannot have supertraits: its generated client implements this trait and nothing else",
        );
    }
    let mut methods = Vec::new();
    for item in &tr.items {
        match item {
            TraitItem::Fn(f) => {
                if let Some(m) = read_method(&cx, f) {
                    methods.push(m);
                }
            }
            other => cx.error_spanned_by(
                other,
                "a `#[remote]` trait holds only `async fn` methods: each is one of the server's tools",
            ),
        }
    }
    if methods.is_empty() && tr.items.is_empty() {
        cx.error_spanned_by(
            &tr.ident,
            "this `#[remote]` trait has no methods; each `async fn` is one of the server's tools",
        );
    }
    if let Err(e) = cx.check() {
        // The trait still comes back, as written minus the helper attributes, so uses of it
        // do not pile up errors of their own.
        let trait_out = cleaned(tr);
        let e = e.to_compile_error();
        return quote!(#trait_out #e);
    }
    let trait_out = rewrite_trait(&tr, &methods, true);
    let rest = generate(&tr, &methods);
    quote!(#trait_out #rest)
}

fn read_method(cx: &Ctxt, f: &syn::TraitItemFn) -> Option<Method> {
    let sig = &f.sig;
    let ident = sig.ident.clone();
    let mut ok = true;
    let mut fail = |tokens: &dyn quote::ToTokens, msg: &str| {
        cx.error_spanned_by(tokens.to_token_stream(), msg);
        ok = false;
    };
    if let Some(body) = &f.default {
        fail(body, "a `#[remote]` method has no default body: its body is the server's, or your impl's");
    }
    if let Some(param) = sig.generics.params.first() {
        fail(
            param,
            "a `#[remote]` method cannot be generic: it is a tool, and a tool's schema is fixed at compile time; name concrete types",
        );
    } else if let Some(w) = &sig.generics.where_clause {
        fail(w, "a `#[remote]` method cannot have a `where` clause; name concrete types");
    }
    if sig.asyncness.is_none() {
        fail(
            &sig.fn_token,
            "a `#[remote]` method is an `async fn`: calling it is a request to a server; write `async fn`",
        );
    }
    let mut receiver = false;
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => {
                receiver = true;
                match &r.kind {
                    syn::ReceiverKind::Reference(_, _, None) => {}
                    syn::ReceiverKind::Reference(_, _, Some(_)) => fail(
                        r,
                        "a `#[remote]` method takes `&self`, not `&mut self`: a client's calls and a served impl's run concurrently on one shared value",
                    ),
                    _ => fail(
                        r,
                        "a `#[remote]` method takes `&self`: a client calls it many times, and a served impl is shared by every call",
                    ),
                }
            }
            FnArg::Typed(pt) => {
                let (docs, rest): (Vec<Attribute>, Vec<Attribute>) =
                    pt.attrs.iter().cloned().partition(|a| a.path().is_ident("doc"));
                if let Some(a) = rest.iter().find(|a| a.path().is_ident("arg") || a.path().is_ident("serde"))
                {
                    fail(
                        a,
                        "a `#[remote]` parameter takes doc comments only: its name is its argument's name on both sides",
                    );
                }
                let Pat::Ident(p) = &*pt.pat else {
                    fail(
                        &pt.pat,
                        "a `#[remote]` parameter is a plain name, such as `a: i64`; the name is the argument's name in the schema",
                    );
                    continue;
                };
                if p.by_ref.is_some() || p.subpat.is_some() {
                    fail(&pt.pat, "a `#[remote]` parameter is a plain name, such as `a: i64`");
                    continue;
                }
                if let Type::Reference(r) = &*pt.ty {
                    fail(
                        r,
                        "a `#[remote]` parameter is an owned value: it is sent to the server and read back into one (`String` for `&str`, `Vec<T>` for `&[T]`)",
                    );
                }
                params.push(Param { ident: p.ident.clone(), ty: (*pt.ty).clone(), docs, kept: rest });
            }
        }
    }
    if !receiver {
        fail(
            &sig.ident,
            "a `#[remote]` method takes `&self` first: `async fn name(&self, ..)`; it is called on a bound client or on your impl",
        );
    }
    let ok_ty = match &sig.output {
        ReturnType::Type(_, ty) => result_ok(ty),
        ReturnType::Default => None,
    };
    let Some(ok_ty) = ok_ty else {
        let at: TokenStream = match &sig.output {
            ReturnType::Type(_, ty) => quote!(#ty),
            ReturnType::Default => {
                let i = &sig.ident;
                quote!(#i)
            }
        };
        fail(
            &at,
            "a `#[remote]` method returns `Result<T, ToolError>`: a call to a server can fail, and `ToolError` says how",
        );
        return None;
    };
    if ident == "tools" {
        fail(
            &ident,
            "a `#[remote]` method cannot be called `tools`: the trait's `tools(self)` serves an impl; give the method `#[remote(name = \"tools\")]` and another Rust name",
        );
    }
    let (tool_args, tool_name) = tool_args(cx, &f.attrs, &ident);
    let attrs = f.attrs.iter().filter(|a| !is_remote_attr(a)).cloned().collect();
    let ReturnType::Type(_, ret) = &sig.output else { unreachable!("checked above") };
    ok.then(|| Method { ident, attrs, tool_args, tool_name, params, ret: (**ret).clone(), ok: ok_ty })
}

/// `T` of `Result<T, ToolError>` (the error written as any path ending in `ToolError`).
fn result_ok(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let (ok, err) = (types.next()?, types.next()?);
    let Type::Path(e) = err else { return None };
    (e.path.segments.last()?.ident == "ToolError").then(|| ok.clone())
}

fn is_remote_attr(a: &Attribute) -> bool {
    a.path().segments.last().is_some_and(|s| s.ident == "remote")
}

/// The method's `#[remote(..)]` arguments given to `#[tool]`, with `name = "<method>"` added
/// unless a name is given; and the tool's name.
fn tool_args(cx: &Ctxt, attrs: &[Attribute], method: &syn::Ident) -> (TokenStream, String) {
    let mut given = TokenStream::new();
    for a in attrs.iter().filter(|a| is_remote_attr(a)) {
        match &a.meta {
            Meta::List(list) => {
                if !given.is_empty() {
                    cx.error_spanned_by(a, "give a method one `#[remote(..)]`");
                }
                given = list.tokens.clone();
            }
            Meta::Path(_) => {}
            Meta::NameValue(_) => cx.error_spanned_by(a, "write `#[remote(name = \"..\")]`"),
        }
    }
    let metas = syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<Meta, Token![,]>::parse_terminated,
        given.clone(),
    )
    .unwrap_or_default();
    let named = metas.iter().find_map(|m| match m {
        Meta::NameValue(nv) if nv.path.is_ident("name") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    });
    if let Some(name) = named {
        return (given, name);
    }
    let s = method.to_string();
    let s = s.strip_prefix("r#").unwrap_or(&s).to_owned();
    let name = syn::LitStr::new(&s, method.span());
    let args = if given.is_empty() { quote!(name = #name) } else { quote!(#given, name = #name) };
    (args, s)
}

/// The trait as the user wrote it, each method's `async fn` spelled `fn .. -> impl Future +
/// Send`, the helper attributes removed, and `tools(self)` added.
/// The trait as written, without `#[remote]` on its methods and the doc comments on their
/// parameters (which rustc refuses there): what is emitted beside errors.
fn cleaned(mut tr: ItemTrait) -> TokenStream {
    for item in &mut tr.items {
        if let TraitItem::Fn(f) = item {
            f.attrs.retain(|a| !is_remote_attr(a));
            for input in &mut f.sig.inputs {
                if let FnArg::Typed(pt) = input {
                    pt.attrs.retain(|a| !a.path().is_ident("doc"));
                }
            }
        }
    }
    quote!(#tr)
}

fn rewrite_trait(tr: &ItemTrait, methods: &[Method], serves: bool) -> TokenStream {
    let attrs = &tr.attrs;
    let vis = &tr.vis;
    let ident = &tr.ident;
    let sigs = methods.iter().map(|m| {
        let (attrs, name, ret) = (&m.attrs, &m.ident, &m.ret);
        let params = m.params.iter().map(|p| {
            let (kept, pi, ty) = (&p.kept, &p.ident, &p.ty);
            quote!(#(#kept)* #pi: #ty)
        });
        quote! {
            #(#attrs)*
            fn #name(&self, #(#params),*) -> impl ::core::future::Future<Output = #ret> + ::core::marker::Send;
        }
    });
    let shims = methods.iter().map(|m| shim_ident(ident, &m.ident));
    let served = served_ident(ident);
    let tools_doc = format!(
        "Serve this impl of `{ident}` as tools: each method is one, named and described as `{ident}Client::bind` expects.\n\nMerge it with other tools: `tools![echo, {ident}::tools(value)]`. Generated by `#[toolwire::remote]`; do not override it."
    );
    let tools_fn = serves.then(|| {
        quote! {
            #[doc = #tools_doc]
            fn tools(self) -> ::core::result::Result<::toolwire::__private::ToolRegistry, ::toolwire::__private::RegistryError>
            where
                Self: ::core::marker::Sized + ::core::marker::Send + ::core::marker::Sync + 'static,
            {
                ::toolwire::tools![#(#shims),*; state = [#served(::toolwire::__private::Arc::new(self))]]
            }
        }
    });
    quote! {
        #(#attrs)*
        #vis trait #ident {
            #(#sigs)*
            #tools_fn
        }
    }
}

fn shim_ident(tr: &syn::Ident, m: &syn::Ident) -> syn::Ident {
    let m = m.to_string();
    format_ident!("__toolwire_{}_{}", tr, m.strip_prefix("r#").unwrap_or(&m))
}

fn served_ident(tr: &syn::Ident) -> syn::Ident {
    format_ident!("__toolwire_served_{}", tr)
}

fn generate(tr: &ItemTrait, methods: &[Method]) -> TokenStream {
    let tw = quote!(::toolwire::__private);
    let ident = &tr.ident;
    let dyn_ident = format_ident!("__toolwire_dyn_{}", ident);
    let served = served_ident(ident);
    let client = format_ident!("{}Client", ident);

    let mut dyn_sigs = Vec::new();
    let mut dyn_impls = Vec::new();
    let mut shims = Vec::new();
    let mut checks = Vec::new();
    for m in methods {
        let name = &m.ident;
        let (ret, ok) = (&m.ret, &m.ok);
        let pis: Vec<&syn::Ident> = m.params.iter().map(|p| &p.ident).collect();
        let tys: Vec<&Type> = m.params.iter().map(|p| &p.ty).collect();
        // Named apart from the trait's own methods, so a call on a value that implements both
        // is never ambiguous.
        let dyn_name = format_ident!("__toolwire_{}", name.to_string().trim_start_matches("r#"));
        let fut =
            quote!(#tw::Pin<#tw::Box<dyn #tw::Future<Output = #ret> + ::core::marker::Send + '__toolwire>>);
        dyn_sigs.push(quote!(fn #dyn_name<'__toolwire>(&'__toolwire self, #(#pis: #tys),*) -> #fut;));
        dyn_impls.push(quote! {
            fn #dyn_name<'__toolwire>(&'__toolwire self, #(#pis: #tys),*) -> #fut {
                #tw::Box::pin(<__T as #ident>::#name(self, #(#pis),*))
            }
        });
        let shim = shim_ident(ident, name);
        let docs = m.attrs.iter().filter(|a| a.path().is_ident("doc"));
        let params = m.params.iter().map(|p| {
            let (docs, kept, pi, ty) = (&p.docs, &p.kept, &p.ident, &p.ty);
            quote!(#(#docs)* #(#kept)* #pi: #ty)
        });
        let tool_args = &m.tool_args;
        // Spanned at `T`, so `#[tool]`'s errors about the result point at it.
        let shim_ret = quote_spanned!(ok.span()=> ::core::result::Result<#ok, #tw::ToolError>);
        shims.push(quote! {
            #(#docs)*
            #[::toolwire::tool(#tool_args)]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            async fn #shim(__toolwire_self: #tw::State<#served>, #(#params),*) -> #shim_ret {
                #tw::remote_served(#dyn_ident::#dyn_name(&*__toolwire_self.0, #(#pis),*).await)
            }
        });
        // `#[tool]` checks what the server needs (parameters it reads, a result it sends);
        // these, what the client needs: parameters it sends, a result it reads.
        for ty in &tys {
            checks.push(quote_spanned!(ty.span()=> #tw::remote_sent::<#ty>();));
        }
        checks.push(quote_spanned!(ok.span()=> #tw::remote_read::<#ok>();));
    }

    let client_part = client_part(tr, methods, &client);
    let served_doc = format!("The value `{ident}::tools` serves: the impl, behind its object-safe twin.");
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        trait #dyn_ident: ::core::marker::Send + ::core::marker::Sync + 'static {
            #(#dyn_sigs)*
        }

        impl<__T: #ident + ::core::marker::Send + ::core::marker::Sync + 'static> #dyn_ident for __T {
            #(#dyn_impls)*
        }

        #[doc = #served_doc]
        #[allow(non_camel_case_types)]
        struct #served(#tw::Arc<dyn #dyn_ident>);

        #(#shims)*

        // Every parameter and result crosses the wire both ways.
        const _: () = {
            #[allow(dead_code)]
            fn __toolwire_check() {
                #(#checks)*
            }
        };

        ::toolwire::__toolwire_if_client! {
            #client_part
        }
    }
}

fn client_part(tr: &ItemTrait, methods: &[Method], client: &syn::Ident) -> TokenStream {
    let tw = quote!(::toolwire::__private);
    let vis = &tr.vis;
    let ident = &tr.ident;
    let fields = methods.iter().map(|m| {
        let (name, ok) = (&m.ident, &m.ok);
        quote!(#name: #tw::RemoteMethod<#ok>)
    });
    let binds = methods.iter().map(|m| {
        let name = &m.ident;
        let shim = shim_ident(ident, name);
        let s = name.to_string();
        let method = format!("{ident}::{}", s.strip_prefix("r#").unwrap_or(&s));
        let tool = &m.tool_name;
        quote! {
            #name: #tw::RemoteMethod::bind(client, #method, #tool, #tw::Tool::info(&#shim {})).await?
        }
    });
    let timeouts = methods.iter().map(|m| {
        let name = &m.ident;
        quote!(#name: self.#name.with_timeout(timeout))
    });
    let impls = methods.iter().map(|m| {
        let (name, ret) = (&m.ident, &m.ret);
        let tool = &m.tool_name;
        let params = m.params.iter().map(|p| {
            let (pi, ty) = (&p.ident, &p.ty);
            quote!(#pi: #ty)
        });
        let args = m.params.iter().map(|p| {
            let pi = &p.ident;
            let s = pi.to_string();
            let wire = s.strip_prefix("r#").unwrap_or(&s).to_owned();
            let optional = is_option(&p.ty);
            quote!(#tw::remote_arg(&mut __toolwire_args, #tool, #wire, #optional, &#pi);)
        });
        quote! {
            fn #name(&self, #(#params),*) -> impl ::core::future::Future<Output = #ret> + ::core::marker::Send {
                #[allow(unused_mut)]
                let mut __toolwire_args = ::core::result::Result::Ok(#tw::Map::new());
                #(#args)*
                self.#name.call(__toolwire_args)
            }
        }
    });
    let names: Vec<String> = methods.iter().map(|m| format!("`{}`", m.tool_name)).collect();
    let struct_doc = format!(
        "A server's `{ident}` tools ({}), bound by [`{client}::bind`]: it implements [`{ident}`] by calling them.\n\nGenerated by `#[toolwire::remote]`.",
        names.join(", ")
    );
    quote! {
        #[doc = #struct_doc]
        #[derive(Debug)]
        #vis struct #client {
            #(#fields,)*
        }

        impl #client {
            /// Bind to the server `client` is connected to, checking every method against the
            /// server's tool of the same name, once: its `inputSchema` must accept the
            /// method's parameters, and its `outputSchema`, when it has one, fit the method's
            /// result. The first method that does not fit is the error.
            #vis async fn bind(
                client: &::toolwire::client::Client,
            ) -> ::core::result::Result<Self, ::toolwire::client::BindError> {
                ::core::result::Result::Ok(Self { #(#binds,)* })
            }

            /// Bound each call of every method (unset: the client's `request_timeout`).
            #vis fn with_timeout(self, timeout: ::core::time::Duration) -> Self {
                Self { #(#timeouts,)* }
            }
        }

        impl #ident for #client {
            #(#impls)*
        }
    }
}

/// Whether a type is written `Option<..>` (any path ending in `Option`).
fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}
