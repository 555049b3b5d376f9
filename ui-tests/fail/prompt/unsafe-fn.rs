/// Review code.
#[toolwire::prompt]
unsafe fn review(code: String) -> String {
    code
}

fn main() {}
