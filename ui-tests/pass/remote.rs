//! `#[toolwire::remote]` shapes that compile: a `pub` trait in a module, docs on the trait,
//! methods and parameters, renamed tools with `#[tool]` keys, `Option` and raw-identifier
//! parameters, structured results, an impl written with `async fn`, and the served registry
//! merged with other tools.

use serde::{Deserialize, Serialize};
use toolwire::ToolError;

mod contract {
    use super::*;

    /// A point on the plane.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    pub struct Point {
        pub x: i64,
        pub y: i64,
    }

    /// Geometry tools.
    #[toolwire::remote]
    pub trait Geo {
        /// Move a point.
        #[remote(name = "move-point", read_only, title = "Move")]
        async fn shift(
            &self,
            /// Where it starts.
            from: Point,
            /// How far right.
            dx: i64,
            /// How far up, if at all.
            dy: Option<i64>,
        ) -> Result<Point, ToolError>;

        /// Name a shape's type.
        async fn r#type(&self, r#sides: u8) -> Result<String, ToolError>;
    }
}

use contract::{Geo, Point};

struct Plane;

impl Geo for Plane {
    async fn shift(&self, from: Point, dx: i64, dy: Option<i64>) -> Result<Point, ToolError> {
        Ok(Point { x: from.x + dx, y: from.y + dy.unwrap_or(0) })
    }

    async fn r#type(&self, sides: u8) -> Result<String, ToolError> {
        Ok(if sides == 3 { "triangle".into() } else { "polygon".into() })
    }
}

/// Echo.
#[toolwire::tool(read_only)]
fn echo(text: String) -> String {
    text
}

fn main() {
    let registry = toolwire::tools![echo, Geo::tools(Plane)].unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["echo", "move-point", "type"]);
    let shift = registry.get("move-point").unwrap().info();
    assert_eq!(shift.description(), "Move a point.");
    assert_eq!(shift.input_schema().value()["properties"]["dy"]["description"], "How far up, if at all.");
    assert_eq!(shift.input_schema().value()["required"], serde_json::json!(["from", "dx"]));
    assert!(shift.output_schema().is_some());
    assert!(!shift.declarations().side_effecting);
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let moved = rt.block_on(Plane.shift(Point { x: 1, y: 1 }, 2, None)).unwrap();
    assert_eq!(moved, Point { x: 3, y: 1 });
}
