//! Parameter shapes: raw identifiers, renames, `mut`, doc comments, nested types, no params.
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use toolwire::{Tool, tool};

#[derive(Deserialize, JsonSchema)]
struct Inner {
    v: Vec<u8>,
}

/// Shapes.
#[tool(read_only)]
fn shapes(
    /// A raw identifier becomes `type`.
    r#type: String,
    #[serde(rename = "dry-run")] dry_run: bool,
    mut count: u32,
    inner: Inner,
    map: BTreeMap<String, Option<f64>>,
    tuple: (u8, String),
) -> String {
    count += 1;
    format!("{type}{dry_run}{count}{}{}{}", inner.v.len(), map.len(), tuple.1, type = r#type)
}

/// Nothing.
#[tool(read_only)]
fn none() {}

fn main() {
    let schema = shapes {}.info().input_schema().value().clone();
    let props = schema["properties"].as_object().unwrap();
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    for n in ["type", "dry-run", "count", "inner", "map", "tuple"] {
        assert!(names.contains(&n), "{names:?}");
    }
    assert_eq!(props["type"]["description"], "A raw identifier becomes `type`.");
    assert_eq!(none {}.info().input_schema().as_str(), r#"{"additionalProperties":false,"type":"object"}"#);
}
