/// Doc.
#[toolwire::tool(read_only, colour = "blue")]
fn t() -> String {
    String::new()
}

fn main() {}
