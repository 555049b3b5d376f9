//! Procedural macros for [toolwire](https://docs.rs/toolwire). Depend on `toolwire`, which
//! re-exports these; this crate's paths are not meant to be named directly.
//!
//! Entry points only: each macro delegates to the module that implements it.

mod completers;
mod ctxt;
mod lists;
mod prompt;
mod remote;
mod resource;
mod serve;
mod signature;
mod tool;
mod toolbox;
mod tools;

use proc_macro::TokenStream;

/// Turn a plain fn into an MCP tool; documented at `toolwire::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args.into(), item.into()).into()
}

/// Serve an impl block's `#[tool]` methods from one value; documented at `toolwire::toolbox`.
#[proc_macro_attribute]
pub fn toolbox(args: TokenStream, item: TokenStream) -> TokenStream {
    toolbox::expand(args.into(), item.into()).into()
}

/// One trait for a server's tools, both sides: a typed client and a served impl; documented
/// at `toolwire::remote`.
#[proc_macro_attribute]
pub fn remote(args: TokenStream, item: TokenStream) -> TokenStream {
    remote::expand(args.into(), item.into()).into()
}

/// Build a `ToolRegistry` from `#[tool]` fns, named by the same paths as the fns.
///
/// ```
/// /// Echo the text back.
/// #[toolwire::tool(read_only)]
/// fn echo(text: String) -> String {
///     text
/// }
///
/// mod more {
///     /// Say hello.
///     #[toolwire::tool(read_only)]
///     pub fn hello() -> &'static str {
///         "hello"
///     }
/// }
///
/// let registry = toolwire::tools![echo, more::hello]?;
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["echo", "hello"]);
/// # Ok::<(), toolwire::registry::RegistryError>(())
/// ```
///
/// Equivalent code not using `tools!`:
///
/// ```
/// # #[toolwire::tool(read_only)] fn echo(text: String) -> String { text }
/// use std::sync::Arc;
/// let registry = toolwire::ToolRegistry::from_tools([Arc::new(echo {}) as Arc<dyn toolwire::Tool>])?;
/// # Ok::<(), toolwire::registry::RegistryError>(())
/// ```
///
/// It evaluates to `Result<ToolRegistry, RegistryError>`: a duplicate name is refused, naming
/// both tools. A path that is not a `#[tool]` fn is a compile error under that path.
///
/// Two optional parts. An item that is not a path is an expression giving a registry to merge
/// in, such as a `#[toolbox]`'s `Db::tools(db)`. A trailing `; state = [a, b]` gives the
/// registry its state values, which tools take as `State<T>` parameters; they are added
/// first, and a tool whose state is missing is refused, naming the tool and the type:
///
/// ```
/// use toolwire::state::State;
///
/// struct Greeting(&'static str);
///
/// /// Greet someone.
/// #[toolwire::tool(read_only)]
/// fn greet(greeting: State<Greeting>, name: String) -> String {
///     format!("{}, {name}", greeting.0)
/// }
///
/// let registry = toolwire::tools![greet; state = [Greeting("hello")]]?;
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["greet"]);
/// assert!(toolwire::tools![greet].unwrap_err().to_string().starts_with("tool 'greet' needs state `"));
/// # Ok::<(), toolwire::registry::RegistryError>(())
/// ```
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tools::expand(input.into()).into()
}

/// The whole body of an MCP server binary's `main`; documented at `toolwire::serve_registry`.
#[proc_macro]
pub fn serve_registry(input: TokenStream) -> TokenStream {
    serve::expand(input.into()).into()
}

/// Turn a plain fn into an MCP resource or resource template; documented at
/// `toolwire::resource`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    resource::expand(args.into(), item.into()).into()
}

/// Build a `ResourceRegistry` from `#[resource]` fns, named by the same paths as the fns.
///
/// ```
/// /// The app's settings.
/// #[toolwire::resource(uri = "config://app", mime_type = "application/json")]
/// fn app() -> &'static str {
///     "{}"
/// }
///
/// let registry = toolwire::resources![app]?;
/// assert!(registry.serves("config://app"));
/// # Ok::<(), toolwire::resource::ResourceRegistryError>(())
/// ```
///
/// It evaluates to `Result<ResourceRegistry, ResourceRegistryError>`: a duplicate URI or
/// template is refused, naming both. A path that is not a `#[resource]` fn is a compile
/// error under that path.
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    lists::resources(input.into()).into()
}

/// Make a fn a prompt: `#[prompt]` emits a companion struct of the fn's name that implements
/// `toolwire::prompt::Prompt`, and leaves the fn as written.
///
/// - the fn's doc comment is the prompt's description; each parameter is an argument, its
///   doc comment the argument's description: `String` (required), `Option<String>`
///   (optional), an enum of strings (`#[derive(Deserialize, JsonSchema)]`: its values are
///   the only ones accepted, and complete by prefix), or an `Option` of one;
/// - a `&Context` parameter is handed the request's context;
/// - sync or async; it returns a `String` (one user message), a `PromptMessage`, a
///   `Vec<PromptMessage>`, a `GetPromptResult`, or a `Result` of one;
/// - attribute keys: `name = "..."`, `title = "..."`, `description = "..."`,
///   `icon = "https://..."` (repeatable), and `complete(arg = completer, ..)`, where a
///   completer is a fn (sync or async) from a `CompletionRequest` to a `Completion` or a
///   `Vec<String>`, or a `Complete` value.
///
/// ```
/// use toolwire::complete::{CompletionRequest, prefix_matches};
/// use toolwire::{Context, prompt, prompts};
///
/// fn complete_focus(request: CompletionRequest) -> Vec<String> {
///     prefix_matches(["security", "style", "speed"], &request.value)
/// }
///
/// /// Review a piece of code.
/// #[prompt(title = "Code review", complete(focus = complete_focus))]
/// async fn code_review(
///     /// The code to review.
///     code: String,
///     /// What to look at first.
///     focus: Option<String>,
///     _ctx: &Context,
/// ) -> String {
///     format!("Review this, for {}:\n{code}", focus.as_deref().unwrap_or("anything"))
/// }
///
/// let registry = prompts![code_review].unwrap();
/// let info = registry.get("code_review").unwrap().info();
/// assert_eq!(info.description.as_deref(), Some("Review a piece of code."));
/// assert_eq!(info.arguments[0].required, true);
/// assert_eq!(info.arguments[1].description.as_deref(), Some("What to look at first."));
/// // The fn is untouched: still an ordinary async fn.
/// let ctx = Context::default();
/// let _future = code_review("x".into(), None, &ctx);
/// ```
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    prompt::expand(args.into(), item.into()).into()
}

/// `prompts![a, b, module::c]`: a `Result<PromptRegistry, PromptRegistryError>` of
/// `#[prompt]` fns, named by their paths. A duplicate name, or a prompt whose argument is
/// not a string or an enum of strings, is an `Err` naming it.
///
/// ```
/// /// Say hi.
/// #[toolwire::prompt]
/// fn hi() -> &'static str {
///     "hi"
/// }
///
/// assert_eq!(toolwire::prompts![hi].unwrap().len(), 1);
/// assert_eq!(
///     toolwire::prompts![hi, hi].unwrap_err().to_string(),
///     "duplicate prompt name 'hi': registered twice"
/// );
/// ```
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    lists::prompts(input.into()).into()
}
