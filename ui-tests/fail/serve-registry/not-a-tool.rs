struct Plain {}

fn main() {
    toolwire::serve_registry!(name = "demo", tools = [Plain])
}
