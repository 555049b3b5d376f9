struct Plain {}

fn main() {
    let _ = toolwire::tools![Plain];
}
