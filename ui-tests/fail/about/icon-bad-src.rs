/// Doc.
#[toolwire::tool(icon = "search.svg")]
fn t() -> String {
    String::new()
}

fn main() {}
