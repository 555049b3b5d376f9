//! Every supported return type.
use schemars::JsonSchema;
use serde::Serialize;
use toolwire::{Content, Context, Tool, ToolOutput, tool};

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

/// String.
#[tool(read_only)]
fn text() -> String {
    "t".into()
}

/// &'static str.
#[tool(read_only)]
fn static_str() -> &'static str {
    "s"
}

/// Nothing.
#[tool(read_only)]
fn unit() {}

/// Full control.
#[tool(read_only)]
fn output() -> ToolOutput {
    ToolOutput::text("a").with(Content::Image { data: "AAAA".into(), mime_type: "image/png".into() })
}

/// Structured.
#[tool(read_only)]
fn structured() -> Sum {
    Sum { sum: 5 }
}

/// A scalar, wrapped.
#[tool(read_only)]
fn scalar() -> u32 {
    9
}

/// Result of text.
#[tool(read_only)]
fn fallible_text(fail: bool) -> Result<String, String> {
    if fail { Err("nope".into()) } else { Ok("fine".into()) }
}

/// Result of structured, with an io::Error.
#[tool(read_only)]
async fn fallible_structured(fail: bool) -> Result<Sum, std::io::Error> {
    if fail { Err(std::io::Error::other("disk")) } else { Ok(Sum { sum: 1 }) }
}

#[tokio::main]
async fn main() {
    let ctx = Context::new();
    let none = serde_json::json!({});
    assert_eq!(text {}.call_json(none.clone(), &ctx).await.unwrap().joined_text(), "t");
    assert_eq!(static_str {}.call_json(none.clone(), &ctx).await.unwrap().joined_text(), "s");
    assert!(unit {}.call_json(none.clone(), &ctx).await.unwrap().content.is_empty());
    assert_eq!(output {}.call_json(none.clone(), &ctx).await.unwrap().content.len(), 2);
    let s = structured {}.call_json(none.clone(), &ctx).await.unwrap();
    assert_eq!(s.structured, Some(serde_json::json!({"sum": 5})));
    assert_eq!(s.joined_text(), r#"{"sum":5}"#);
    assert!(structured {}.info().output_schema().is_some());
    let w = scalar {}.call_json(none.clone(), &ctx).await.unwrap();
    assert_eq!(w.structured, Some(serde_json::json!({"result": 9})));
    assert!(text {}.info().output_schema().is_none());
    let ok = fallible_text {}.call_json(serde_json::json!({"fail": false}), &ctx).await.unwrap();
    assert_eq!(ok.joined_text(), "fine");
    let err = fallible_text {}.call_json(serde_json::json!({"fail": true}), &ctx).await.unwrap_err();
    assert_eq!(err.to_string(), "tool 'fallible_text' failed: nope");
    let err = fallible_structured {}.call_json(serde_json::json!({"fail": true}), &ctx).await.unwrap_err();
    assert_eq!(err.to_string(), "tool 'fallible_structured' failed: disk");
    assert!(fallible_structured {}.info().output_schema().is_some());
}
