//! `#[tool(local)]`: a body whose future is not `Send` (an `Rc`, a `RefCell` borrow held across
//! an `.await`), async or sync, with the context and arguments as any tool has them, run on
//! one of toolwire's local threads.
use std::cell::RefCell;
use std::rc::Rc;

use toolwire::{Context, Tool, tool};

/// Holds an `Rc` and a `RefCell` borrow across an await.
#[tool(read_only, local)]
async fn tally(ctx: &Context, n: u32) -> String {
    let cell = Rc::new(RefCell::new(n));
    let mut borrow = cell.borrow_mut();
    tokio::task::yield_now().await;
    *borrow += 1;
    format!("{}:{}", *borrow, ctx.is_cancelled())
}

/// A sync body on a local thread.
#[tool(read_only, local)]
fn label(text: String) -> String {
    let thread = std::thread::current();
    format!("{text}@{}", thread.name().unwrap_or_default().starts_with("toolwire-local-"))
}

#[tokio::main]
async fn main() {
    let ctx = Context::new();
    assert_eq!(tally {}.call_json(serde_json::json!({"n": 1}), &ctx).await.unwrap().joined_text(), "2:false");
    assert_eq!(label {}.call_json(serde_json::json!({"text": "x"}), &ctx).await.unwrap().joined_text(), "x@true");
}
