fn main() {
    toolwire::serve_registry!(server = "demo")
}
