/// Doc.
#[toolwire::tool(caps = ["egress"], caps = ["private_data"])]
fn t() -> String {
    String::new()
}

fn main() {}
