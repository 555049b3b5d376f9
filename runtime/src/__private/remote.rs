//! What `#[toolwire::remote]` expands to: the checks on its parameter and result types, the
//! served tools' error text, and (feature `client`) the bound methods.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::tool::ToolError;

#[cfg(feature = "client")]
pub use crate::client::remote::{RemoteMethod, remote_arg};
pub use core::future::Future;
pub use core::pin::Pin;
pub use serde_json::Map;

/// A `#[remote]` method's parameter or result: the client sends or reads it, the server reads
/// or sends it, and its schema is advertised.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot cross the wire in a `#[remote]` trait",
    label = "a `#[remote]` parameter or result is sent by one side and read by the other",
    note = "a `#[remote]` parameter or result type must be `Serialize`, `DeserializeOwned` and `JsonSchema`: `#[derive(Serialize, Deserialize, JsonSchema)]`"
)]
pub trait RemoteValue {}

impl<T: Serialize + DeserializeOwned + schemars::JsonSchema> RemoteValue for T {}

/// Asserts `T` is a [`RemoteValue`], under the type the user wrote.
pub fn remote_value<T: RemoteValue>() {}

/// A served method's error as its tool reports it: a `ToolError::Failed` by its message (the
/// tool's name is added by the engine, once), any other by its text.
pub fn remote_served<T>(r: Result<T, ToolError>) -> Result<T, String> {
    r.map_err(|e| match e {
        ToolError::Failed { message, .. } => message,
        other => other.to_string(),
    })
}

/// The expansion's `if the client is compiled in`: what it gets is emitted only with feature
/// `client`, so a `#[remote]` trait compiles (as a served contract) without it.
#[cfg(feature = "client")]
#[doc(hidden)]
#[macro_export]
macro_rules! __toolwire_if_client {
    ($($t:tt)*) => { $($t)* };
}

/// Without feature `client`: nothing.
#[cfg(not(feature = "client"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __toolwire_if_client {
    ($($t:tt)*) => {};
}
