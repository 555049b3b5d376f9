//! What the HTTP layer must know about a body before the engine sees it: is it a request, a
//! notification or a response; its id and method; the tool name it names; the protocol
//! version its `_meta` claims, and whether `_meta` carries the client capabilities. The
//! engine decodes the message again, properly; this only routes, and lets an error the
//! transport answers itself carry the request's id.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The shape of a POST body, as far as routing cares.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Shape<'a> {
    /// One request: an id and a method.
    Request {
        /// The id, as the JSON text it was sent as (`1`, `"a"`).
        id: &'a str,
        method: Cow<'a, str>,
        name: Option<Cow<'a, str>>,
        /// `_meta`'s `io.modelcontextprotocol/protocolVersion`, when it is a string.
        meta_version: Option<Cow<'a, str>>,
        /// `_meta` has `io.modelcontextprotocol/clientCapabilities`.
        meta_capabilities: bool,
    },
    /// A notification or a response: nothing to answer.
    NoReply,
    /// A JSON array (a batch); the engine decides whether the version allows it.
    Batch { has_requests: bool },
    /// Not JSON, or not an object the engine can route; the engine answers it.
    Unreadable,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uri: Option<Cow<'a, str>>,
    #[serde(rename = "_meta", borrow)]
    meta: Option<Meta<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    version: Option<Cow<'a, str>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow)]
    capabilities: Option<&'a RawValue>,
}

pub(crate) fn peek(body: &str) -> Shape<'_> {
    let trimmed = body.trim_start();
    if trimmed.starts_with('[') {
        let has_requests = serde_json::from_str::<Vec<Envelope<'_>>>(body)
            .map(|items| items.iter().any(|e| e.method.is_some() && e.id.is_some()))
            .unwrap_or(true);
        return Shape::Batch { has_requests };
    }
    let Ok(env) = serde_json::from_str::<Envelope<'_>>(body) else { return Shape::Unreadable };
    match (env.method, env.id) {
        (Some(method), Some(id)) => {
            let (name, meta) = match env.params {
                Some(p) => (p.name.or(p.uri), p.meta),
                None => (None, None),
            };
            let meta_capabilities = meta.as_ref().is_some_and(|m| m.capabilities.is_some());
            let meta_version = meta.and_then(|m| m.version);
            Shape::Request { id: id.get(), method, name, meta_version, meta_capabilities }
        }
        (Some(_), None) => Shape::NoReply,
        (None, Some(_)) => Shape::NoReply,
        (None, None) => Shape::Unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(
            peek(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
            ),
            Shape::Request {
                id: "1",
                method: "tools/call".into(),
                name: Some("echo".into()),
                meta_version: Some("2026-07-28".into()),
                meta_capabilities: false,
            }
        );
        assert_eq!(
            peek(
                r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}"#
            ),
            Shape::Request {
                id: r#""a""#,
                method: "tools/list".into(),
                name: None,
                meta_version: None,
                meta_capabilities: true,
            }
        );
        assert_eq!(peek(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Shape::NoReply);
        assert_eq!(peek(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Shape::NoReply);
        assert_eq!(peek("{nope"), Shape::Unreadable);
        assert_eq!(peek(r#"[{"jsonrpc":"2.0","method":"x"}]"#), Shape::Batch { has_requests: false });
    }
}
