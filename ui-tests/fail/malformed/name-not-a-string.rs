/// Doc.
#[toolwire::tool(name = run_check)]
fn t() -> String {
    String::new()
}

fn main() {}
