//! The context is injected, in any position, by type or by attribute, sync or async.
use toolwire::{Context, Tool, tool};

/// By type, first.
#[tool(read_only)]
async fn a(ctx: &Context, text: String) -> String {
    format!("{text}:{}", ctx.is_cancelled())
}

/// By full path, last, in a sync fn.
#[tool(read_only)]
fn b(text: String, ctx: &toolwire::Context) -> String {
    format!("{text}:{}", ctx.reports_progress())
}

/// By attribute.
#[tool(read_only)]
fn c(#[arg(context)] ctx: &Context) -> String {
    format!("{}", ctx.deadline().is_none())
}

#[tokio::main]
async fn main() {
    let ctx = Context::new();
    assert_eq!(a {}.call_json(serde_json::json!({"text": "x"}), &ctx).await.unwrap().joined_text(), "x:false");
    assert_eq!(b {}.call_json(serde_json::json!({"text": "y"}), &ctx).await.unwrap().joined_text(), "y:false");
    assert_eq!(c {}.call_json(serde_json::json!({}), &ctx).await.unwrap().joined_text(), "true");
    assert!(!a {}.info().input_schema().as_str().contains("ctx"));
}
