/// Doc.
#[toolwire::tool(read_only, inline)]
async fn t() -> String {
    String::new()
}

fn main() {}
