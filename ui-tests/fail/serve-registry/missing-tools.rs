fn main() {
    toolwire::serve_registry!(name = "demo")
}
