/// Doc.
#[toolwire::tool]
unsafe fn t(value: String) -> String {
    value
}

fn main() {}
