/// Settings.
#[toolwire::resource(uri = "just some words")]
fn app() -> String {
    String::new()
}

fn main() {}
