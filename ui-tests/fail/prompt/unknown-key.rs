/// Review code.
#[toolwire::prompt(desc = "Review", completion = "x", arguments = 2)]
fn review(code: String) -> String {
    code
}

fn main() {}
