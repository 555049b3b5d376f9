use toolwire::ToolError;

#[toolwire::remote]
trait Math {
    /// Add two integers.
    async fn add(a: i64, b: i64) -> Result<i64, ToolError>;
}

fn main() {}
