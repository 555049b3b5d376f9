struct Handle;

/// Doc.
#[toolwire::tool]
fn t() -> Handle {
    Handle
}

fn main() {}
