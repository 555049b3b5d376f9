/// Doc.
#[toolwire::tool(side_effect)]
fn t() -> String {
    String::new()
}

fn main() {}
