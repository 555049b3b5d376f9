//! `Option` is optional; `#[arg(default)]`, `#[arg(default = expr)]`, `#[serde(default)]` and
//! `#[serde(default = "path")]` fill absent arguments.
use toolwire::{Context, Tool, tool};

fn three() -> u32 {
    3
}

/// Defaults.
#[tool(read_only)]
fn t(
    a: Option<String>,
    #[arg(default)] b: u32,
    #[arg(default = 7)] c: u32,
    #[serde(default)] d: bool,
    #[serde(default = "three")] e: u32,
) -> String {
    format!("{a:?} {b} {c} {d} {e}")
}

#[tokio::main]
async fn main() {
    let out = t {}.call_json(serde_json::json!({}), &Context::new()).await.unwrap();
    assert_eq!(out.joined_text(), "None 0 7 false 3");
    let schema = t {}.info().input_schema().as_str().to_owned();
    assert!(!schema.contains("\"required\""), "{schema}");
    assert!(schema.contains("\"default\":7"), "{schema}");
}
