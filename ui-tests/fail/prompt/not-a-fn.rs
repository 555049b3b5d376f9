/// Review code.
#[toolwire::prompt]
struct Review {
    code: String,
}

fn main() {}
