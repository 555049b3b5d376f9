// The bound is checked where the schema is built and where the argument is read, so the
// one cause is reported twice, both times under the type, with the same message.
#[derive(schemars::JsonSchema)]
struct Opaque {
    _x: u32,
}

/// Doc.
#[toolwire::tool]
fn t(value: Opaque) -> String {
    let _ = value;
    String::new()
}

fn main() {}
