#[toolwire::remote]
trait Math {
    /// Add two integers.
    async fn add(&self, a: i64, b: i64) -> i64;

    /// Subtract, with the wrong error type.
    async fn sub(&self, a: i64, b: i64) -> Result<i64, String>;
}

fn main() {}
