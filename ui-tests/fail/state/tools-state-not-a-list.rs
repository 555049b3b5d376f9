struct Config;

/// Doc.
#[toolwire::tool]
fn t() -> String {
    String::new()
}

fn main() {
    let _ = toolwire::tools![t; state = Config];
}
