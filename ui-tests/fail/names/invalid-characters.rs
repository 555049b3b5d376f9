/// Doc.
#[toolwire::tool(name = "run check!")]
fn t() -> String {
    String::new()
}

fn main() {}
