/// Settings.
#[toolwire::resource(uri = "config://app")]
fn app(name: String) -> String {
    name
}

fn main() {}
