/// Review code.
#[toolwire::prompt(complete(language = "rust"))]
fn review(language: String) -> String {
    language
}

fn main() {}
