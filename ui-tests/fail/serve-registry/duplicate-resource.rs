/// Echo the text back.
#[toolwire::tool]
fn echo(text: String) -> String {
    text
}

/// The greeting.
#[toolwire::resource(uri = "test://hello", mime_type = "text/plain")]
fn hello() -> String {
    "hello".to_string()
}

// The same path written with other spacing is the same path.
fn main() {
    toolwire::serve_registry!(name = "demo", tools = [echo], resources = [self::hello, self :: hello])
}
