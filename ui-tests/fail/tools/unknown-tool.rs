/// Doc.
#[toolwire::tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = toolwire::tools![echo, ecko];
}
