/// Doc.
#[toolwire::tool(task = "optional")]
fn build(target: String) -> String {
    target
}

fn main() {}
