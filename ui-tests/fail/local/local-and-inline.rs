/// Doc.
#[toolwire::tool(read_only, inline, local)]
fn t() -> String {
    String::new()
}

fn main() {}
