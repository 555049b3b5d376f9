/// Doc.
#[toolwire::tool]
fn t(#[arg(optional)] a: String, #[serde(flatten)] b: String) -> String {
    a + &b
}

fn main() {}
