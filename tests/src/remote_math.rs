//! A `#[toolwire::remote]` contract shared by a server and its clients, as a shared trait
//! crate would be: tests/src/bin/remote-math.rs serves [`Local`] over stdio, and
//! tests/tests/remote_trait.rs binds [`MathClient`] to it (and to other servers).

use toolwire::ToolError;

/// A calculator's tools.
#[toolwire::remote]
pub trait Math {
    /// Add two integers.
    async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError>;

    /// Divide `a` by `b`.
    #[remote(name = "divide", read_only)]
    async fn div(
        &self,
        /// The dividend.
        a: f64,
        /// The divisor, not zero.
        b: f64,
    ) -> Result<f64, ToolError>;

    /// Greet someone, by title when given one.
    async fn greet(&self, name: String, title: Option<String>) -> Result<String, ToolError>;
}

/// The local implementation: what the server runs, and a test double.
#[derive(Debug, Default, Clone, Copy)]
pub struct Local;

impl Math for Local {
    async fn add(&self, a: i64, b: i64) -> Result<i64, ToolError> {
        Ok(a + b)
    }

    async fn div(&self, a: f64, b: f64) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::failed("divide", "division by zero"));
        }
        Ok(a / b)
    }

    async fn greet(&self, name: String, title: Option<String>) -> Result<String, ToolError> {
        Ok(match title {
            Some(t) => format!("Hello, {t} {name}"),
            None => format!("Hello, {name}"),
        })
    }
}
