use toolwire::ToolError;

#[toolwire::remote]
trait Counter {
    /// Count.
    async fn bump(&mut self) -> Result<u64, ToolError>;
}

fn main() {}
