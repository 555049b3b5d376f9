//! [`Client::complete`]: `completion/complete`, for a prompt's argument or a resource
//! template's variable, with the shared wire types of `protocol::wire`.

use super::connection::Client;
use super::error::ClientError;
use crate::protocol::methods;
use crate::protocol::wire::{CompleteParams, CompleteResult};

impl Client {
    /// Ask the server for completions of `params.argument` (see
    /// [`CompleteParams::new`]). A server that serves no completions answers -32601, which
    /// is an error here like any other.
    pub async fn complete(&self, params: &CompleteParams) -> Result<CompleteResult, ClientError> {
        let protocol = |detail: String| ClientError::Protocol {
            server: self.name().to_owned(),
            method: methods::COMPLETION_COMPLETE.into(),
            detail,
        };
        let params = serde_json::to_value(params).map_err(|e| protocol(e.to_string()))?;
        let result = self.request(methods::COMPLETION_COMPLETE, Some(params)).await?;
        serde_json::from_value(result).map_err(|e| protocol(format!("the result is not a completion: {e}")))
    }
}
