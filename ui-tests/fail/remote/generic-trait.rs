use toolwire::ToolError;

#[toolwire::remote]
trait Store<T> {
    /// Count the rows.
    async fn count(&self) -> Result<u64, ToolError>;
}

fn main() {}
