/// Doc.
#[toolwire::tool]
fn t<T: ToString>(value: String) -> String {
    value
}

fn main() {}
