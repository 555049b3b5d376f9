/// Doc.
#[toolwire::tool(name = "")]
fn t() -> String {
    String::new()
}

fn main() {}
