/// Doc.
#[toolwire::tool(requires_approval = "yes")]
fn t() -> String {
    String::new()
}

fn main() {}
