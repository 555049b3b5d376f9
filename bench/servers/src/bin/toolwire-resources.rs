//! toolwire's stdio server for the resources and prompts benches: a small text resource
//! `bench://small` (`#[toolwire::resource]`) and a prompt `echo(text)` (`#[toolwire::prompt]`),
//! served by `Server::builder(..).resources(..).prompts(..)` on the current-thread runtime
//! `serve_registry!` uses. `--resources N` also registers N more fixed resources
//! (`bench://r/0` ..), each a hand-written `Resource`, for the `resources/list` page bench.
//!
//! ```text
//! toolwire-resources [--resources 1000]
//! ```

use toolwire::resource::{ReadFuture, Resource, ResourceContents, ResourceInfo};
use toolwire::{Context, Server, ServerOptions, prompt, prompts, resource, resources};

/// A small text resource.
#[resource(uri = "bench://small", mime_type = "text/plain")]
fn small() -> &'static str {
    "hello from the toolwire bench"
}

/// Echo the text back, as one user message.
#[prompt]
fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// One of the `--resources N` fixed resources: its listing, and its text.
struct Numbered {
    info: ResourceInfo,
    text: String,
}

impl Resource for Numbered {
    fn info(&self) -> &ResourceInfo {
        &self.info
    }

    fn read<'a>(&'a self, _ctx: &'a Context) -> ReadFuture<'a> {
        Box::pin(async move { Ok(vec![ResourceContents::text(self.info.uri(), self.text.clone())]) })
    }
}

fn main() {
    let mut extra = 0usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|n| n.parse().ok())) {
            ("--resources", Some(n)) => extra = n,
            _ => {
                eprintln!("usage: toolwire-resources [--resources N]");
                std::process::exit(2);
            }
        }
    }
    let mut registry = resources![small].expect("one resource");
    for i in 0..extra {
        let info = ResourceInfo::new(format!("bench://r/{i}"), format!("r{i}"))
            .with_description(format!("Numbered resource {i} of the list bench."))
            .with_mime_type("text/plain");
        registry.add(Numbered { info, text: format!("resource {i}") }).expect("distinct URIs");
    }
    let server = Server::builder(ServerOptions::new("toolwire-bench-resources", "0.1.0"))
        .resources(registry)
        .prompts(prompts![echo].expect("one prompt"))
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    if let Err(e) = runtime.block_on(toolwire::stdio::serve(server, toolwire::stdio::StdioConfig::new())) {
        eprintln!("toolwire-resources: {e}");
        std::process::exit(1);
    }
}
