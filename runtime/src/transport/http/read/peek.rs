//! What the HTTP layer must know about a body before the engine sees it: is it a request, a
//! notification or a response; its id and method; the tool name it names; the protocol
//! version its `_meta` claims, and whether `_meta` carries the client capabilities. The
//! engine decodes the message again, properly; this only routes, and lets an error the
//! transport answers itself carry the request's id.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::protocol::envelope::DecodedCall;
use crate::protocol::methods;

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
    /// `tasks/get`, `tasks/update`, `tasks/cancel`: the task (SEP-2663 routes on it).
    #[serde(rename = "taskId", borrow)]
    task_id: Option<Cow<'a, str>>,
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
                Some(p) => (p.name.or(p.uri).or(p.task_id), p.meta),
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

/// The shape of `body`, which the engine's one-pass decode read as `call` (see
/// `envelope::decode_call`), without parsing it again: exactly what [`peek`] says of the
/// same text. `None` wherever the two could differ, and the caller peeks:
///
/// - a `_meta` version that is not a plain string, or capabilities given as `null` (the
///   decode keeps them raw, `peek` reads them as a string and as absent);
/// - an escaped name;
/// - a member `uri` anywhere, or any `\u` escape (which could spell one): `peek` reads a
///   `uri` in `params`, and gives up on one that is not a string, where `tools/call` ignores
///   it;
/// - a `_meta` that is not an object, anywhere: the decode reads an array as its fields in
///   order (serde's derived structs do, and its fields all have defaults), where `peek`
///   gives up.
pub(crate) fn from_call<'a>(call: &DecodedCall<'a>, body: &str) -> Option<Shape<'a>> {
    if names_uri_or_escapes_u(body.as_bytes()) {
        return None;
    }
    if call.params.meta.is_some() && !every_meta_is_an_object(body) {
        return None;
    }
    let Cow::Borrowed(name) = call.params.name else { return None };
    let meta = call.params.meta.as_ref();
    let meta_version = match meta.and_then(|m| m.protocol_version) {
        None => None,
        Some(raw) => {
            let text = raw.get();
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            // Inside a JSON string a quote is escaped too: a backslash marks every escape.
            if inner.contains('\\') {
                return None;
            }
            Some(Cow::Borrowed(inner))
        }
    };
    let meta_capabilities = match meta.and_then(|m| m.client_capabilities) {
        None => false,
        Some(raw) if raw.get() == "null" => return None,
        Some(_) => true,
    };
    Some(Shape::Request {
        id: call.raw_id,
        method: Cow::Borrowed(methods::TOOLS_CALL),
        name: Some(Cow::Borrowed(name)),
        meta_version,
        meta_capabilities,
    })
}

/// Whether `body` has a `"uri"` or a `\u` anywhere: one vectorised search for the first
/// (its finder made once), and one for backslashes, which a body seldom has.
fn names_uri_or_escapes_u(body: &[u8]) -> bool {
    static URI: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"uri\""));
    URI.find(body).is_some() || memchr::memchr_iter(b'\\', body).any(|at| body.get(at + 1) == Some(&b'u'))
}

/// Whether every `_meta` member in `body` holds an object. A `"_meta"` token followed by a
/// colon is a member's name (inside a string its quotes would be escaped); one that is not
/// is a string value, and does not count.
fn every_meta_is_an_object(body: &str) -> bool {
    const SPACE: [char; 4] = [' ', '\t', '\n', '\r'];
    body.match_indices("\"_meta\"").all(|(at, token)| {
        let after = body[at + token.len()..].trim_start_matches(SPACE);
        match after.strip_prefix(':') {
            Some(value) => value.trim_start_matches(SPACE).starts_with('{'),
            None => true,
        }
    })
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

    /// The shape of a body read by the one-pass decode, where that decode's shape is used.
    fn shape_of_call(body: &str) -> Option<Shape<'_>> {
        let call = crate::protocol::envelope::decode_call(body).expect("a tools/call of the common shape");
        from_call(&call, body)
    }

    #[test]
    fn a_decoded_call_has_the_shape_peek_gives_it() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#" {"jsonrpc":"2.0","id":-4,"method":"tools/call","params":{"name":"e","_meta":{"progressToken":2}},"x":null} "#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"_meta","_meta" : {},"arguments":{"k":"_meta"}}}"#,
        ] {
            assert_eq!(shape_of_call(body), Some(peek(body)), "{body}");
        }
    }

    #[test]
    fn where_a_decoded_call_could_read_otherwise_peek_decides() {
        for body in [
            // A version that is not a plain string, capabilities given as null.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","_meta":{"io.modelcontextprotocol/protocolVersion":7}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-\n28"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","_meta":{"io.modelcontextprotocol/clientCapabilities":null}}}"#,
            // An escaped name; a `uri`, which peek reads and tools/call ignores; a \u escape.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e\tf"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","uri":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","\u0075ri":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"t":"\u00e9"}}}"#,
            // A `_meta` that is not an object (the property tests found `[]`), at params or
            // deeper.
            r#"{"jsonrpc":"2.0","id":-1,"method":"tools/call","params":{"_meta":[],"name":"e"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","_meta" :
               ["2026-07-28"]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","_meta":{},"arguments":{"_meta":[]}}}"#,
        ] {
            assert_eq!(shape_of_call(body), None, "{body}");
        }
        // What peek says of those where it differs: a non-string `uri` is unreadable to it.
        assert_eq!(
            peek(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","uri":5}}"#),
            Shape::Unreadable
        );
    }
}
