/// Settings.
#[toolwire::resource(uri = "config://app")]
fn settings() -> String {
    String::new()
}

/// Review code.
#[toolwire::prompt]
fn review(code: String) -> String {
    code
}

fn main() {
    toolwire::serve_registry!(name = "demo", tools = [], resources = settings, prompts = ["review"])
}
