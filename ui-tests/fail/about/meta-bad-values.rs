const OWNER: &str = "team";

/// Doc.
#[toolwire::tool(meta = [("com.example/owner", OWNER), ("com.example/list", [1, 2]), "loose"])]
fn t() -> String {
    String::new()
}

fn main() {}
