//! JSON-RPC error objects and the codes MCP uses.
//!
//! These are *protocol* errors: the request itself could not be served. A tool that failed is
//! not one of them; it is an `isError: true` result (see the server's error contract).

use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::json::push_json_string;

/// JSON-RPC and MCP error codes.
pub mod code {
    /// The message was not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The message was JSON but not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method (or one behind a capability the server did not advertise).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The method exists but its parameters are wrong (unknown tool, bad cursor, ...).
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed while handling a valid request.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// 2026-07-28: the request's `_meta` protocol version is not one the server supports.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// 2026-07-28: the request needs a client capability the client did not declare
    /// (`data.requiredCapabilities` names it).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// Up to 2025-11-25: `resources/read` of a URI nothing serves (2026-07-28 uses
    /// [`INVALID_PARAMS`] instead).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// A JSON-RPC error object: an integer code, a message, and optional data.
#[derive(Debug, Clone)]
pub struct RpcError {
    /// The error code (see [`code`]).
    pub code: i64,
    /// A short sentence saying what was wrong.
    pub message: String,
    /// Extra detail as raw JSON, e.g. the supported versions for -32022.
    pub data: Option<Box<RawValue>>,
}

impl RpcError {
    /// An error with a code and a message, and no data.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError { code, message: message.into(), data: None }
    }

    /// Attach data, given as JSON text the caller built; text that is not JSON is dropped.
    pub fn with_data(mut self, json: String) -> RpcError {
        self.data = RawValue::from_string(json).ok();
        self
    }

    /// -32700.
    pub fn parse_error(detail: impl fmt::Display) -> RpcError {
        RpcError::new(code::PARSE_ERROR, format!("parse error: {detail}"))
    }

    /// -32600.
    pub fn invalid_request(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INVALID_REQUEST, message)
    }

    /// -32602.
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INVALID_PARAMS, message)
    }

    /// Append the error object as JSON.
    pub fn write_json(&self, out: &mut String) {
        use fmt::Write;
        let _ = write!(out, "{{\"code\":{},\"message\":", self.code);
        push_json_string(out, &self.message);
        if let Some(data) = &self.data {
            out.push_str(",\"data\":");
            out.push_str(data.get());
        }
        out.push('}');
    }
}

impl PartialEq for RpcError {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.message == other.message
            && self.data.as_deref().map(RawValue::get) == other.data.as_deref().map(RawValue::get)
    }
}

impl Eq for RpcError {}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// An error of its own, so it travels as one where errors are boxed (a tower layer's error
/// that is an `RpcError` is answered as it is).
impl std::error::Error for RpcError {}

/// An error object as a peer sent it (in a response to a request we made); read leniently.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorIn {
    /// The code, when it was an integer.
    #[serde(default)]
    pub code: Option<i64>,
    /// The message, when there was one.
    #[serde(default)]
    pub message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_objects_serialise_compactly() {
        let mut out = String::new();
        RpcError::new(code::METHOD_NOT_FOUND, "method 'x' not found").write_json(&mut out);
        assert_eq!(out, r#"{"code":-32601,"message":"method 'x' not found"}"#);
        let mut out = String::new();
        RpcError::new(code::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(r#"{"supported":["2026-07-28"],"requested":"1900-01-01"}"#.into())
            .write_json(&mut out);
        assert_eq!(
            out,
            r#"{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}"#
        );
    }
}
