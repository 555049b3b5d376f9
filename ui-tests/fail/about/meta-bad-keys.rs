/// Doc.
#[toolwire::tool(meta = [
    ("toolwire", 1),
    ("io.modelcontextprotocol/x", 1),
    ("-bad-", 1),
    ("com.example/ok", 1),
    ("com.example/ok", 2),
])]
fn t() -> String {
    String::new()
}

fn main() {}
