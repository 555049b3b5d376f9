//! `#[resource]` shapes that compile and work: fixed and templated, sync and async, with
//! `&Context`, every supported return type; the fn stays callable.

use toolwire::resource::{ResourceContents, ResourceTemplate};
use toolwire::{Context, Json, resource, resources};

/// Text.
#[resource(uri = "test://text", mime_type = "text/plain")]
fn text() -> &'static str {
    "hello"
}

/// Bytes.
#[resource(uri = "test://blob", mime_type = "application/octet-stream", title = "Blob")]
async fn blob(_ctx: &Context) -> Vec<u8> {
    vec![1, 2, 3]
}

/// Json.
#[resource(uri = "test://json")]
fn json() -> Result<Json<Vec<u32>>, std::io::Error> {
    Ok(Json(vec![1]))
}

/// Several items.
#[resource(template = "test://dir/{+path}", name = "dir")]
fn dir(path: String) -> Vec<ResourceContents> {
    vec![ResourceContents::text("test://a", path), ResourceContents::blob("test://b", "AQID")]
}

/// A row.
#[resource(template = "db://{table}/rows/{id}")]
async fn row(ctx: &Context, id: u64, table: String) -> String {
    let _ = ctx.is_cancelled();
    format!("{table}{id}")
}

fn main() {
    assert_eq!(text(), "hello");
    assert_eq!(dir("x".into()).len(), 2);
    let registry = resources![text, blob, json, dir, row].unwrap();
    assert_eq!(registry.len(), 5);
    assert_eq!(row {}.variables(), ["table", "id"]);
    assert!(resources![text, text].is_err());
}
