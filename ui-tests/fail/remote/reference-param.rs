use toolwire::ToolError;

#[toolwire::remote]
trait Greeter {
    /// Greet someone.
    async fn greet(&self, name: &str) -> Result<String, ToolError>;
}

fn main() {}
