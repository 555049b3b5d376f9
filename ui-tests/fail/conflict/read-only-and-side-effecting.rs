/// Doc.
#[toolwire::tool(side_effecting, read_only)]
fn t() -> String {
    String::new()
}

fn main() {}
