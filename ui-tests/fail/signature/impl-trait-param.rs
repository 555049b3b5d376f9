/// Doc.
#[toolwire::tool]
fn t(value: impl Into<String>) -> String {
    value.into()
}

fn main() {}
