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

/// A `#[remote]` method's parameter, as the client needs it: sent. (`#[tool]` checks what
/// the server needs: read back, with a schema.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be sent as a `#[remote]` parameter",
    label = "the client sends this to the server",
    note = "a `#[remote]` parameter is `Serialize` (the client sends it), `Deserialize` and `JsonSchema` (the server reads it): `#[derive(Serialize, Deserialize, JsonSchema)]`"
)]
pub trait RemoteSent {}

impl<T: Serialize> RemoteSent for T {}

/// A `#[remote]` method's result, as the client needs it: read back. (`#[tool]` checks what
/// the server needs: sent, with a schema.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read back as a `#[remote]` result",
    label = "the client reads this from the server's result",
    note = "a `#[remote]` result is `Deserialize` (the client reads it), `Serialize` and `JsonSchema` (the server sends it): `#[derive(Serialize, Deserialize, JsonSchema)]`"
)]
pub trait RemoteRead {}

impl<T: DeserializeOwned> RemoteRead for T {}

/// Asserts `T` is a [`RemoteSent`], under the type the user wrote.
pub fn remote_sent<T: RemoteSent>() {}

/// Asserts `T` is a [`RemoteRead`], under the type the user wrote.
pub fn remote_read<T: RemoteRead>() {}

/// A served method's result as its tool returns it: its `ToolError` is the tool's own (the
/// engine names the tool, once), so a `ToolError::failed` message reaches untrusted callers
/// and a `ToolError::internal` detail does not.
pub fn remote_served<T>(r: Result<T, ToolError>) -> Result<T, ToolError> {
    r
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
