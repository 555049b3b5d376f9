/// Doc.
#[toolwire::tool(task = "sometimes")]
fn t() -> String {
    String::new()
}

/// Doc.
#[toolwire::tool(task = true)]
fn u() -> String {
    String::new()
}

/// Doc.
#[toolwire::tool(tasks = "optional")]
fn v() -> String {
    String::new()
}

fn main() {}
