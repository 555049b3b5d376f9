/// Doc.
#[toolwire::tool(scopes = ["files:read", "files write", "", r#"say "hi""#, files])]
fn t() -> String {
    String::new()
}

/// Doc.
#[toolwire::tool(scopes = "files:read")]
fn u() -> String {
    String::new()
}

fn main() {}
