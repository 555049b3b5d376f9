/// Doc.
#[toolwire::tool(capabilities = ["egress"])]
fn t() -> String {
    String::new()
}

fn main() {}
