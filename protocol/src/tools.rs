//! `tools/call` params. (`tools/list` takes [`ListParams`](super::meta::ListParams).)
//!
//! The advertised tool object and the call result are written by the engine
//! (`crate::server::tools`), from the `tool` layer's types: this layer imports nothing above
//! it.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::meta::RequestMeta;

/// `tools/call` params.
#[derive(Debug, Deserialize)]
pub struct CallToolParams<'a> {
    /// The tool to call.
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    /// The arguments, raw, exactly as received. `null` is read as absent.
    #[serde(default, borrow)]
    pub arguments: Option<&'a RawValue>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
    /// 2026-07-28: the client's answers to the previous round's `inputRequests`, raw
    /// (present-but-null kept, so it can be refused).
    #[serde(rename = "inputResponses", default, borrow, deserialize_with = "super::meta::present")]
    pub input_responses: Option<&'a RawValue>,
    /// 2026-07-28: the previous round's `requestState`, raw.
    #[serde(rename = "requestState", default, borrow, deserialize_with = "super::meta::present")]
    pub request_state: Option<&'a RawValue>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_params_keep_the_argument_bytes() {
        let p: CallToolParams<'_> =
            serde_json::from_str(r#"{"name":"echo","arguments":{ "text" : "hi" }}"#).unwrap();
        assert_eq!(p.name, "echo");
        assert_eq!(p.arguments.unwrap().get(), r#"{ "text" : "hi" }"#);
        let p: CallToolParams<'_> = serde_json::from_str(r#"{"name":"echo","arguments":null}"#).unwrap();
        assert!(p.arguments.is_none());
    }
}
