/// Doc.
#[toolwire::tool]
fn t(path: String, #[serde(rename = "path")] other: String) -> String {
    path + &other
}

fn main() {}
