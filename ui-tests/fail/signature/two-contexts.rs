use toolwire::Context;

/// Doc.
#[toolwire::tool]
async fn t(ctx: &Context, value: String, again: &Context) -> String {
    let _ = (ctx, again);
    value
}

fn main() {}
