/// Settings.
#[toolwire::resource(uri = "config://app", icon = "ftp://example.com/a.png", icons = "x")]
fn settings() -> String {
    String::new()
}

fn main() {}
