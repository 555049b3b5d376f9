// Three mistakes, three errors, each under its own token, in one compile.
/// Doc.
#[toolwire::tool(approval, caps = "egress", name = "bad name")]
fn t(a: String, #[serde(rename = "a")] b: String) -> String {
    a + &b
}

fn main() {
    // The fn still exists, so this call adds no error of its own.
    let _ = t(String::new(), String::new());
}
