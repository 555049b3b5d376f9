/// Doc.
#[toolwire::tool(read_only, read_only)]
fn t() -> String {
    String::new()
}

fn main() {}
