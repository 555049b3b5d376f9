//! A broad set of `#[tool]` signatures, shared by the golden-schema and agreement tests:
//! every primitive, `Option`, `Vec`, arrays, tuples, nested structs, enums (unit and data),
//! maps, defaults, renamed fields and parameters, doc comments, and no parameters.

#![allow(dead_code, unreachable_pub, missing_docs, clippy::too_many_arguments)]

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwire::{Context, Tool, ToolOutput, tool};

/// Every JSON-representable primitive.
#[tool(read_only)]
pub fn primitives(
    b: bool,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    usize_: usize,
    f32_: f32,
    f64_: f64,
    c: char,
    s: String,
) -> String {
    format!("{b}{i8_}{i16_}{i32_}{i64_}{u8_}{u16_}{u32_}{u64_}{usize_}{f32_}{f64_}{c}{s}")
}

/// Optional arguments of several shapes.
#[tool(read_only)]
pub fn optionals(
    /// An optional flag.
    flag: Option<bool>,
    /// An optional count.
    count: Option<u32>,
    nested: Option<Point>,
    names: Option<Vec<String>>,
) -> String {
    format!("{flag:?}{count:?}{nested:?}{names:?}")
}

/// Sequences: a Vec, a fixed array, a tuple, a nested Vec.
#[tool(read_only)]
pub fn sequences(list: Vec<i64>, pair: [u8; 2], tuple: (String, bool), grid: Vec<Vec<f64>>) -> String {
    format!("{list:?}{pair:?}{tuple:?}{grid:?}")
}

/// A 2-D point.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Point {
    /// Horizontal.
    pub x: f64,
    /// Vertical.
    pub y: f64,
}

/// A shape with nested structure.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Polygon {
    /// Its name.
    pub name: String,
    /// Its corners, in order.
    pub corners: Vec<Point>,
    /// Optional style.
    pub style: Option<Style>,
}

/// How a shape is drawn.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Style {
    pub stroke_width: u16,
    #[serde(default)]
    pub fill_colour: Option<String>,
}

/// Nested structs, referenced from `$defs`.
#[tool(read_only)]
pub fn nested(polygon: Polygon, origin: Point) -> String {
    format!("{polygon:?}{origin:?}")
}

/// A unit enum.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Quiet.
    #[default]
    Low,
    /// Loud.
    High,
}

/// A data-carrying enum, externally tagged.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Stop,
    Move { dx: i32, dy: i32 },
    Say(String),
}

/// An internally tagged enum.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    File { path: String },
    Url { href: String },
}

/// Enums, unit and data.
#[tool(read_only)]
pub fn enums(level: Level, action: Action, target: Target) -> String {
    format!("{level:?}{action:?}{target:?}")
}

/// Maps with string keys.
#[tool(read_only)]
pub fn maps(labels: BTreeMap<String, String>, scores: BTreeMap<String, Vec<u32>>) -> String {
    format!("{labels:?}{scores:?}")
}

fn default_retries() -> u8 {
    3
}

/// Defaults, three ways.
#[tool(read_only)]
pub fn defaults(
    /// Retries, defaulting to 3.
    #[arg(default = 3)]
    retries: u8,
    /// Level, defaulting to `Level::default()`.
    #[serde(default)]
    level: Level,
    /// Backoff, from a fn.
    #[serde(default = "default_retries")]
    backoff: u8,
    /// A label, defaulting to "none".
    #[arg(default = String::from("none"))]
    label: String,
) -> String {
    format!("{retries}{level:?}{backoff}{label}")
}

/// Renamed parameters.
#[tool(read_only)]
pub fn renamed(
    #[serde(rename = "type")] kind: String,
    #[arg(rename = "dry-run")] dry_run: bool,
    r#ref: String,
) -> String {
    format!("{kind}{dry_run}{ref}", ref = r#ref)
}

/// Doc comments as descriptions.
///
/// The second paragraph is kept, line breaks and all.
#[tool(read_only)]
pub fn documented(
    /// The first line.
    /// The second line of the same description.
    query: String,
    undocumented: u32,
) -> String {
    format!("{query}{undocumented}")
}

/// Takes nothing at all.
#[tool(read_only)]
pub fn no_params() -> String {
    "nothing".into()
}

/// The context is injected, never advertised.
#[tool(read_only)]
pub async fn with_context(ctx: &Context, text: String) -> String {
    format!("{text}{}", ctx.is_cancelled())
}

/// A structured return with an object schema.
#[tool(read_only)]
pub fn structured_object(a: i64, b: i64) -> Sum {
    Sum { sum: a + b }
}

/// The result of an addition.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Sum {
    /// a + b.
    pub sum: i64,
}

/// A scalar structured return, wrapped as `{"result": …}`.
#[tool(read_only)]
pub fn structured_scalar(n: u32) -> Result<u64, String> {
    Ok(u64::from(n) * 2)
}

/// Full control over content.
#[tool(read_only)]
pub fn full_output(text: String) -> ToolOutput {
    ToolOutput::text(text)
}

/// Declarations, to check `_meta` and annotations.
#[tool(side_effecting, requires_approval, caps = ["egress", "private_data"], idempotent, open_world, title = "Deploy it")]
pub async fn declared(target: String) -> Result<String, std::io::Error> {
    Ok(target)
}

/// Serde-level `serde_json::Value` accepts anything.
#[tool]
pub fn any_value(payload: serde_json::Value) -> String {
    payload.to_string()
}

pub fn all() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(primitives {}),
        Arc::new(optionals {}),
        Arc::new(sequences {}),
        Arc::new(nested {}),
        Arc::new(enums {}),
        Arc::new(maps {}),
        Arc::new(defaults {}),
        Arc::new(renamed {}),
        Arc::new(documented {}),
        Arc::new(no_params {}),
        Arc::new(with_context {}),
        Arc::new(structured_object {}),
        Arc::new(structured_scalar {}),
        Arc::new(full_output {}),
        Arc::new(declared {}),
        Arc::new(any_value {}),
    ]
}
