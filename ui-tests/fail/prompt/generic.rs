/// Review code.
#[toolwire::prompt]
fn review<T: Into<String>>(code: String) -> String {
    code
}

fn main() {}
