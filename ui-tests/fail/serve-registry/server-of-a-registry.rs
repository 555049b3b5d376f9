/// Echo.
#[toolwire::tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn main() {
    // A registry is not a server: build one with `Server::new(registry, options)`.
    toolwire::serve_registry!(server = toolwire::tools![echo])
}
