//! The `Math` contract of `toolwire_tests::remote_math`, its local impl served over stdio, for
//! tests/tests/remote_trait.rs.

use toolwire::{ServerOptions, serve_stdio};
use toolwire_tests::remote_math::{Local, Math};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Math::tools(Local)?;
    serve_stdio(
        toolwire::Server::new(registry, ServerOptions::new("math", "0.1.0")),
        toolwire::stdio::StdioConfig::new(),
    )
    .await?;
    Ok(())
}
