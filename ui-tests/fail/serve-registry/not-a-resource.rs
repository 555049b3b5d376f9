/// Echo the text back.
#[toolwire::tool]
fn echo(text: String) -> String {
    text
}

fn main() {
    toolwire::serve_registry!(name = "demo", tools = [echo], resources = [echo])
}
