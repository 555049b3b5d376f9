/// Review code.
#[toolwire::prompt]
fn review(code: String) -> u32 {
    code.len() as u32
}

fn main() {}
