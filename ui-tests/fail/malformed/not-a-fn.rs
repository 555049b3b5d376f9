#[toolwire::tool]
struct NotAFn;

fn main() {}
