/// Echo.
#[toolwire::tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn main() {
    toolwire::serve_registry!(name = "", tools = [echo])
}
