#[derive(Debug)]
struct Oops;

/// Doc.
#[toolwire::tool]
fn t() -> Result<String, Oops> {
    Err(Oops)
}

fn main() {}
