struct Handle;

/// Doc.
#[toolwire::tool(read_only)]
fn t(#[arg(context)] handle: Handle) -> String {
    let _ = handle;
    String::new()
}

fn main() {}
