/// Doc.
#[toolwire::tool(caps = "egress")]
fn t() -> String {
    String::new()
}

fn main() {}
