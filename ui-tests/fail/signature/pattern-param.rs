/// Doc.
#[toolwire::tool]
fn t((a, b): (String, String)) -> String {
    a + &b
}

fn main() {}
