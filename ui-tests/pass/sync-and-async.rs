//! Sync and async fns; both stay callable as written.
use toolwire::{Context, tool, tools};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// Wait, then echo.
#[tool(read_only)]
async fn later(text: String) -> String {
    tokio::task::yield_now().await;
    text
}

#[tokio::main]
async fn main() {
    assert_eq!(echo("a".into()), "a");
    assert_eq!(later("b".into()).await, "b");
    let registry = tools![echo, later].unwrap();
    for name in ["echo", "later"] {
        let out = registry
            .get(name)
            .unwrap()
            .call_json(serde_json::json!({"text": "hi"}), &Context::new())
            .await
            .unwrap();
        assert_eq!(out.joined_text(), "hi");
    }
}
