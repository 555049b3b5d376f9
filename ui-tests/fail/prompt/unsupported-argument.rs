struct Lines(Vec<String>);

/// Review code.
#[toolwire::prompt]
fn review(code: Lines) -> String {
    code.0.join("\n")
}

fn main() {}
