/// Doc.
#[toolwire::tool(readonly)]
fn t() -> String {
    String::new()
}

fn main() {}
