//! A server of prompts (and one tool), for tests/tests/prompts.rs: real clients list and get
//! its prompts and complete their arguments.
//!
//! - `prompt-server` serves over stdio.
//! - `prompt-server --http` serves loopback HTTP without auth, prints its URL as one line,
//!   and serves until its stdin closes.

use std::io::Read;

use serde::Deserialize;
use toolwire::complete::{Completion, CompletionRequest, prefix_matches};
use toolwire::http::{Auth, HttpConfig};
use toolwire::prompt::{ContentBlock, PromptMessage, PromptRegistry, ResourceContents};
use toolwire::spec::SpecOptions;
use toolwire::{Context, Server, ServerOptions, prompt, prompts, serve_registry, tool, tools};

/// A language code can be reviewed in.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Language {
    /// Python 3.
    Python,
    /// Rust 2024.
    Rust,
    /// Go.
    Go,
}

/// The focus areas for a language already chosen: async, given the other arguments.
async fn complete_focus(request: CompletionRequest) -> Completion {
    let areas: &[&str] = match request.filled("language") {
        Some("rust") => &["safety", "lifetimes", "speed", "style"],
        Some(_) => &["speed", "style", "security"],
        None => &["security", "speed", "style"],
    };
    Completion::of(prefix_matches(areas, &request.value))
}

/// Five hundred numbered items: more than one answer can carry.
fn complete_item(request: CompletionRequest) -> Vec<String> {
    (0..500).map(|i| format!("item-{i:03}")).filter(|s| s.starts_with(&request.value)).collect()
}

/// Review a piece of code.
#[prompt(title = "Code review", icon = "https://example.com/review.png", complete(focus = complete_focus))]
async fn code_review(
    /// The code to review.
    code: String,
    /// The language it is written in.
    language: Option<Language>,
    /// What to look at first.
    focus: Option<String>,
    ctx: &Context,
) -> String {
    let _ = ctx.is_cancelled();
    let language = language.map_or("unknown".to_owned(), |l| format!("{l:?}").to_lowercase());
    format!("Review this {language} code, focusing on {}:\n{code}", focus.as_deref().unwrap_or("anything"))
}

/// Say hello.
#[prompt]
fn greet() -> &'static str {
    "Hello! What shall we build today?"
}

/// Pick an item.
#[prompt(complete(item = complete_item))]
fn pick(
    /// The item.
    item: String,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("You picked {item}.")), PromptMessage::assistant("Noted.")]
}

/// Show an image and a document.
#[prompt(name = "show_media")]
fn media() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new("user", ContentBlock::image("iVBORw0KGgo=", "image/png")),
        PromptMessage::new(
            "user",
            ContentBlock::resource(
                ResourceContents::text("file:///notes.txt", "The notes.").with_mime_type("text/plain"),
            ),
        ),
    ]
}

/// Always fails.
#[prompt]
fn broken() -> Result<String, String> {
    Err("the template file is missing".to_owned())
}

/// Echo the text back.
#[tool(read_only)]
fn echo(
    /// The text to echo.
    text: String,
) -> String {
    text
}

fn registry() -> PromptRegistry {
    prompts![code_review, greet, pick, media, broken].expect("fixture prompts are unique")
}

fn main() {
    let options = ServerOptions::new("prompt-server", "0.1.0");
    let tools = tools![echo].expect("one tool");
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let server = Server::builder(options).tools(tools).prompts(registry()).build();
    if std::env::args().any(|a| a == "--http") {
        rt.block_on(async {
            let open = SpecOptions::http().http_config(HttpConfig::new(Auth::None));
            let mut spec = serve_registry(server, open).expect("serve over HTTP");
            spec.start().expect("start serving");
            println!("{}", spec.url().expect("an HTTP spec has a URL"));
            // Serve until stdin closes.
            tokio::task::spawn_blocking(|| std::io::stdin().read_to_end(&mut Vec::new())).await.ok();
            spec.stop();
        });
        return;
    }
    rt.block_on(toolwire::stdio::serve(server, toolwire::stdio::StdioConfig::new()))
        .expect("serve over stdio");
}
