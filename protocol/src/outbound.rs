//! Writing outbound messages: one compact JSON object each, built around a body that is
//! already JSON text, so a pre-serialised `tools/list` page is copied, not re-encoded.

use super::error::RpcError;
use super::id::RequestId;
use crate::json::push_json_string;

/// Room a result body leaves in its buffer for [`Outbound::result_around`] (and what
/// [`Outbound::result`] reserves beyond its body): the envelope's head with any integer id
/// (at most 52 bytes), its closing brace, and a line's newline (stdio's framing).
pub const RESULT_ROOM: usize = 56;

/// A result response's text before its id, and between its id and its body.
const RESULT_OPEN: &str = "{\"jsonrpc\":\"2.0\",\"id\":";
const RESULT_KEY: &str = ",\"result\":";

/// What kind of message an [`Outbound`] is, so a transport can tell a request's final answer
/// from the notifications that precede it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutboundKind {
    /// A response (result or error), or a batch of them: the end of a request's exchange.
    Response,
    /// A notification (e.g. `notifications/progress`).
    Notification,
    /// A request from the server to the client (a `ping`).
    Request,
}

/// One outbound message: compact JSON on one line, without the trailing newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outbound {
    json: String,
    kind: OutboundKind,
    /// The code of a single error response, so a transport that maps errors to a status
    /// (HTTP) need not parse the JSON it was handed.
    error_code: Option<i64>,
}

impl Outbound {
    /// A result response: `{"jsonrpc":"2.0","id":…,"result":<body>}`. `body` must be a JSON
    /// object this crate wrote.
    pub fn result(id: &RequestId, body: &str) -> Outbound {
        let mut json = String::with_capacity(body.len() + RESULT_ROOM);
        json.push_str(RESULT_OPEN);
        id.write_json(&mut json);
        json.push_str(RESULT_KEY);
        json.push_str(body);
        json.push('}');
        Outbound { json, kind: OutboundKind::Response, error_code: None }
    }

    /// [`Outbound::result`] written in `body`'s own buffer: the envelope's head is moved in
    /// before the body. A body made with [`RESULT_ROOM`] to spare (a call's result is) takes
    /// no second allocation and no copy into one; a string id takes the copying path.
    pub fn result_around(id: &RequestId, mut body: String) -> Outbound {
        const OPEN: &[u8] = RESULT_OPEN.as_bytes();
        const RESULT: &[u8] = RESULT_KEY.as_bytes();
        let RequestId::Number(n) = id else { return Outbound::result(id, &body) };
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(*n).as_bytes();
        let mut head = [0u8; OPEN.len() + 20 + RESULT.len()];
        let len = OPEN.len() + digits.len() + RESULT.len();
        head[..OPEN.len()].copy_from_slice(OPEN);
        head[OPEN.len()..OPEN.len() + digits.len()].copy_from_slice(digits);
        head[OPEN.len() + digits.len()..len].copy_from_slice(RESULT);
        // ASCII throughout, so this never falls back.
        let Ok(head) = std::str::from_utf8(&head[..len]) else { return Outbound::result(id, &body) };
        body.insert_str(0, head);
        body.push('}');
        Outbound { json: body, kind: OutboundKind::Response, error_code: None }
    }

    /// An error response. The id is omitted when it could not be read; `null` is never sent.
    pub fn error(id: Option<&RequestId>, error: &RpcError) -> Outbound {
        let mut json = String::from("{\"jsonrpc\":\"2.0\",");
        if let Some(id) = id {
            json.push_str("\"id\":");
            id.write_json(&mut json);
            json.push(',');
        }
        json.push_str("\"error\":");
        error.write_json(&mut json);
        json.push('}');
        Outbound { json, kind: OutboundKind::Response, error_code: Some(error.code) }
    }

    /// A notification with params (a JSON object this crate wrote).
    pub fn notification(method: &str, params: &str) -> Outbound {
        let mut json = String::from("{\"jsonrpc\":\"2.0\",\"method\":");
        push_json_string(&mut json, method);
        json.push_str(",\"params\":");
        json.push_str(params);
        json.push('}');
        Outbound { json, kind: OutboundKind::Notification, error_code: None }
    }

    /// A request without params.
    pub fn request(id: &RequestId, method: &str) -> Outbound {
        let mut json = String::from("{\"jsonrpc\":\"2.0\",\"id\":");
        id.write_json(&mut json);
        json.push_str(",\"method\":");
        push_json_string(&mut json, method);
        json.push('}');
        Outbound { json, kind: OutboundKind::Request, error_code: None }
    }

    /// A request with `params` (a JSON object, already text).
    pub fn request_with(id: &RequestId, method: &str, params: &str) -> Outbound {
        let mut json = String::from("{\"jsonrpc\":\"2.0\",\"id\":");
        id.write_json(&mut json);
        json.push_str(",\"method\":");
        push_json_string(&mut json, method);
        json.push_str(",\"params\":");
        json.push_str(params);
        json.push('}');
        Outbound { json, kind: OutboundKind::Request, error_code: None }
    }

    /// A batch response: the responses as one JSON array.
    pub fn batch(responses: &[Outbound]) -> Outbound {
        let mut json = String::with_capacity(responses.iter().map(|r| r.json.len() + 1).sum::<usize>() + 2);
        json.push('[');
        for (i, r) in responses.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            json.push_str(&r.json);
        }
        json.push(']');
        Outbound { json, kind: OutboundKind::Response, error_code: None }
    }

    /// The message as JSON text (one line, no newline).
    pub fn as_str(&self) -> &str {
        &self.json
    }

    /// The message as JSON text, owned.
    pub fn into_string(self) -> String {
        self.json
    }

    /// What kind of message this is.
    pub fn kind(&self) -> OutboundKind {
        self.kind
    }

    /// The error code, when this is a single error response (not a result, not a batch).
    pub fn error_code(&self) -> Option<i64> {
        self.error_code
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code;

    #[test]
    fn envelopes_are_compact_and_never_carry_a_null_id() {
        let id = RequestId::String("a".into());
        assert_eq!(Outbound::result(&id, "{}").as_str(), r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
        // Written around the body, the same bytes, for every kind of id.
        for id in [id.clone(), RequestId::Number(0), RequestId::Number(i64::MIN), RequestId::Number(i64::MAX)]
        {
            let body = r#"{"content":[]}"#;
            let mut room = String::with_capacity(body.len() + RESULT_ROOM);
            room.push_str(body);
            let (around, capacity) = (Outbound::result_around(&id, room.clone()), room.capacity());
            assert_eq!(around, Outbound::result(&id, body), "{id:?}");
            if let RequestId::Number(_) = id {
                assert!(
                    around.as_str().len() < capacity,
                    "{id:?}: the room is enough, with a newline to spare"
                );
            }
        }
        let e = RpcError::new(code::PARSE_ERROR, "parse error: x");
        assert_eq!(
            Outbound::error(None, &e).as_str(),
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: x"}}"#
        );
        assert_eq!(
            Outbound::error(Some(&RequestId::Number(4)), &e).as_str(),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32700,"message":"parse error: x"}}"#
        );
        assert_eq!(
            Outbound::request(&RequestId::String("p1".into()), "ping").as_str(),
            r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#
        );
        let b = Outbound::batch(&[Outbound::result(&id, "{}"), Outbound::error(None, &e)]);
        assert!(b.as_str().starts_with("[{") && b.as_str().ends_with("}]"));
        assert_eq!(b.kind(), OutboundKind::Response);
    }
}
