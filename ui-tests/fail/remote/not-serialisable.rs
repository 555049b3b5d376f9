use toolwire::ToolError;

struct Point {
    x: i64,
}

#[toolwire::remote]
trait Geo {
    /// Move to a point.
    async fn go(&self, to: Point) -> Result<String, ToolError>;
}

fn main() {}
