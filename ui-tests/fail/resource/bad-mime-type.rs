/// Settings.
#[toolwire::resource(uri = "config://app", mime_type = "json")]
fn app() -> String {
    String::new()
}

fn main() {}
