use toolwire::{Server, ServerOptions, tools};

/// Echo.
#[toolwire::tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn build() -> Server {
    Server::new(tools![echo].unwrap(), ServerOptions::new("demo", "1.0.0"))
}

fn main() {
    toolwire::serve_registry!(server = build(), name = "demo", tools = [echo])
}
