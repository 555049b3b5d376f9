/// Review code.
#[toolwire::prompt]
fn review(code: String, ctx: &mut toolwire::Context) -> String {
    let _ = ctx;
    code
}

fn main() {}
