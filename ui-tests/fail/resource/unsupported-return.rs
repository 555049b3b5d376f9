/// Settings.
#[toolwire::resource(uri = "config://app")]
fn app() -> u32 {
    3
}

fn main() {}
