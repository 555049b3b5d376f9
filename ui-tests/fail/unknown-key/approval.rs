/// Doc.
#[toolwire::tool(approval)]
fn t() -> String {
    String::new()
}

fn main() {}
