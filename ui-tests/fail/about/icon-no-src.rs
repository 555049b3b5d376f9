/// Doc.
#[toolwire::tool(icon(mime_type = "image/png", colour = "red"))]
fn t() -> String {
    String::new()
}

fn main() {}
