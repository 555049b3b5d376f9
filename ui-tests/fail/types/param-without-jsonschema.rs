// The bound is checked where the schema is built and where the argument is read, so the
// one cause is reported twice, both times under the type, with the same message.
#[derive(serde::Deserialize)]
struct Undescribed {
    _x: u32,
}

/// Doc.
#[toolwire::tool]
fn t(value: Undescribed) -> String {
    let _ = value;
    String::new()
}

fn main() {}
