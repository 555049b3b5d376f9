/// Doc.
#[toolwire::tool]
fn t(value: &str) -> String {
    value.to_owned()
}

fn main() {}
