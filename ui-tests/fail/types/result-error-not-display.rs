#[derive(Debug)]
struct Oops;

/// Doc.
#[toolwire::tool]
fn t() -> Result<(), Oops> {
    Err(Oops)
}

fn main() {}
