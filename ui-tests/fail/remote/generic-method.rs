use toolwire::ToolError;

#[toolwire::remote]
trait Store {
    /// Put a value.
    async fn put<T: serde::Serialize>(&self, value: T) -> Result<String, ToolError>;
}

fn main() {}
