/// Review code.
#[toolwire::prompt(name = "review code", title = 3)]
fn review(code: String) -> String {
    code
}

fn main() {}
