/// Doc.
#[toolwire::tool(icon(src = "https://example.com/a.png", sizes = ["48"], theme = "blue", mime_type = "text/html"))]
fn t() -> String {
    String::new()
}

fn main() {}
