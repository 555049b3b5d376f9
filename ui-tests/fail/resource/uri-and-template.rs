/// Settings.
#[toolwire::resource(uri = "config://app", template = "config://{name}")]
fn app(name: String) -> String {
    name
}

fn main() {}
