//! A type named `Context` that is not toolwire's is not injected: it is an argument, and
//! this one cannot be one.
mod mine {
    pub struct Context;
}

/// Doc.
#[toolwire::tool(read_only)]
fn t(ctx: &mine::Context) -> String {
    let _ = ctx;
    String::new()
}

fn main() {}
