/// Doc.
#[toolwire::tool(read_only, not_send)]
async fn t() -> String {
    String::new()
}

fn main() {}
