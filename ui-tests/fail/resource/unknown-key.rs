/// Settings.
#[toolwire::resource(uri = "config://app", mime = "text/plain", size = "3")]
fn app() -> String {
    String::new()
}

fn main() {}
