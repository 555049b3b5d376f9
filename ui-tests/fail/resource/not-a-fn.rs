/// The item stays: `Readme` is still a struct the rest of the crate can name.
#[toolwire::resource(uri = "file:///readme")]
struct Readme;

fn use_it() -> Readme {
    Readme
}

fn main() {
    let _ = use_it();
}
