//! Decoding one inbound JSON-RPC message, borrowed from the text it arrived in.
//!
//! The hot path never builds a `serde_json::Value` and uses no `untagged` or `flatten`: the
//! envelope's members are read as raw slices of the input by a hand-written visitor, and only
//! then interpreted. So a message with a readable id and a bad `method` still gets its error
//! answered under that id, and `params` reach the method's own decoder as the original bytes.
//!
//! One message is read differently: a well-formed `tools/call` in the usual member order,
//! which [`decode_call`] reads with its params in one pass (by hand, module `call_scan`,
//! when its shape is the common one). It reads nothing the general path
//! would read otherwise, and turns everything unusual back to it, so the table below holds
//! for every message.
//!
//! | the text | the verdict |
//! | --- | --- |
//! | not JSON (or trailing garbage) | -32700, no id |
//! | an array | a batch ([`Frame::Batch`]); whether that is allowed depends on the version |
//! | neither an object nor an array | -32600, no id |
//! | an object whose `id` is null, a float, a bool, ... | -32600, no id |
//! | `jsonrpc` other than `"2.0"`, a non-string `method`, both `result` and `error`, ... | -32600, with the id when it was readable |

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::call_scan::{ScannedCall, scan_call};
use super::error::{ErrorIn, RpcError};
use super::id::{BadId, RequestId};
use super::tools::CallToolParams;
use crate::methods;

/// One line (or HTTP body) as it arrived: a single message or a batch of them.
#[derive(Debug)]
pub enum Frame<'a> {
    /// A single message object, not yet checked: [`decode`] parses it in one pass.
    Single(&'a str),
    /// A JSON-RPC batch: the array's elements, still raw.
    Batch(Vec<&'a RawValue>),
}

/// Split `text` into a [`Frame`], or say why it is not one.
pub fn parse_frame(text: &str) -> Result<Frame<'_>, RpcError> {
    // Every message in practice starts with its `{`: no trim for it.
    let first = match text.as_bytes().first() {
        Some(b'{') => return Ok(Frame::Single(text)),
        _ => text.trim_start().as_bytes().first().copied(),
    };
    if first == Some(b'[') {
        return match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) => Ok(Frame::Batch(items)),
            Err(e) => Err(RpcError::parse_error(clean(&e))),
        };
    }
    // An object is decoded straight away (one pass over the text); `decode` tells a
    // syntax error from a shape error.
    if first == Some(b'{') {
        return Ok(Frame::Single(text));
    }
    let raw: &RawValue = serde_json::from_str(text).map_err(|e| RpcError::parse_error(clean(&e)))?;
    Err(RpcError::invalid_request(format!(
        "invalid request: a message must be a JSON object, got {}",
        kind(raw.get())
    )))
}

/// A decoded inbound message.
#[derive(Debug)]
pub enum Incoming<'a> {
    /// A request: it has an id and expects exactly one response.
    Request {
        /// The id to answer under.
        id: RequestId,
        /// The method name.
        method: Cow<'a, str>,
        /// The raw `params`, if present.
        params: Option<&'a RawValue>,
    },
    /// A notification: no id, never answered.
    Notification {
        /// The method name.
        method: Cow<'a, str>,
        /// The raw `params`, if present.
        params: Option<&'a RawValue>,
    },
    /// A response to a request this side sent (a server-initiated `ping`).
    Response {
        /// The id it answers; `None` when the peer sent `null` or none.
        id: Option<RequestId>,
        /// The result, or the peer's error code and message.
        outcome: Result<&'a RawValue, (Option<i64>, Option<String>)>,
    },
}

/// An inbound message that is not valid: the error to answer with, under the id when it was
/// readable.
#[derive(Debug)]
pub struct RejectedMessage {
    /// The request's id, if it could be read.
    pub id: Option<RequestId>,
    /// What was wrong.
    pub error: RpcError,
}

/// Decode one message object from its text: malformed JSON (including trailing garbage) is
/// -32700, JSON of the wrong shape -32600.
pub fn decode(text: &str) -> Result<Incoming<'_>, RejectedMessage> {
    let env: RawEnvelope<'_> = serde_json::from_str(text).map_err(|e| RejectedMessage {
        id: None,
        error: match e.classify() {
            serde_json::error::Category::Data => {
                RpcError::invalid_request(format!("invalid request: {}", clean(&e)))
            }
            _ => RpcError::parse_error(clean(&e)),
        },
    })?;
    env.interpret()
}

/// The hot message in one pass: a well-formed `tools/call` request whose `method` comes
/// before its `params` (the order every client we know writes), decoded with its params
/// as [`CallToolParams`] straight from the text, where [`decode`] would keep `params` raw
/// and the method decode them again (two scans of the same bytes).
///
/// `None` for anything else: another method, members in another order, an escaped
/// `method`, a duplicate member, `params` that are not an object or do not decode, a bad
/// `id` or `jsonrpc`, a `result` or `error`. The caller then takes the general path
/// ([`decode`], the method's own params decode), which answers each of those exactly as it
/// always has; a message this accepts is one the general path accepts with the same id and
/// params. Text without `"tools/call"` in it is turned away by one substring search.
pub fn decode_call(text: &str) -> Option<DecodedCall<'_>> {
    match scan_call(text) {
        Some(ScannedCall { id, raw_id, name, arguments, meta }) => {
            let params = CallToolParams {
                name: Cow::Borrowed(name),
                arguments,
                meta,
                input_responses: None,
                request_state: None,
            };
            Some(DecodedCall { id, raw_id, params })
        }
        None => decode_call_serde(text),
    }
}

/// [`decode_call`] by serde's machinery, for what the hand scan ([`scan_call`]) turns away:
/// the same verdicts, at about three times the cost.
pub fn decode_call_serde(text: &str) -> Option<DecodedCall<'_>> {
    if !text.contains("\"tools/call\"") {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let call = de.deserialize_map(CallVisitor).ok()?;
    de.end().ok()?;
    Some(call)
}

/// A `tools/call` request [`decode_call`] read in one pass.
#[derive(Debug)]
pub struct DecodedCall<'a> {
    /// The request's id.
    pub id: RequestId,
    /// The id as the JSON text it was sent as (`1`, `"a"`), for a transport that names it
    /// in an answer of its own (HTTP's routing).
    pub raw_id: &'a str,
    /// The params, decoded.
    pub params: CallToolParams<'a>,
}

/// The visitor behind [`decode_call`]: any surprise is an error, and the caller falls back.
struct CallVisitor;

impl<'de> Visitor<'de> for CallVisitor {
    type Value = DecodedCall<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tools/call request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let fall_back = || de::Error::custom("not the common tools/call shape");
        let (mut jsonrpc, mut id, mut method, mut params) = (false, None, false, None);
        while let Some(key) = map.next_key::<Member>()? {
            match key {
                Member::Jsonrpc if !jsonrpc => {
                    jsonrpc = map.next_value::<&RawValue>()?.get() == "\"2.0\"";
                    if !jsonrpc {
                        return Err(fall_back());
                    }
                }
                Member::Id if id.is_none() => {
                    let raw: &RawValue = map.next_value()?;
                    id = Some((RequestId::from_raw(raw).map_err(|_| fall_back())?, raw.get()));
                }
                Member::Method if !method => {
                    method = map.next_value::<&str>()? == methods::TOOLS_CALL;
                    if !method {
                        return Err(fall_back());
                    }
                }
                Member::Params if method && params.is_none() => {
                    params = Some(map.next_value_seed(CallParamsSeed)?);
                }
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => return Err(fall_back()),
            }
        }
        match (jsonrpc, id, method, params) {
            (true, Some((id, raw_id)), true, Some(params)) => Ok(DecodedCall { id, raw_id, params }),
            _ => Err(fall_back()),
        }
    }
}

/// `params` read as [`CallToolParams`], from an object only (a derived struct would also
/// take an array, which the general path refuses).
struct CallParamsSeed;

impl<'de> de::DeserializeSeed<'de> for CallParamsSeed {
    type Value = CallToolParams<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        CallToolParams::deserialize(ObjectOnly(deserializer))
    }
}

/// A deserializer that reads every value as a map: the derived struct visitor then never
/// sees a sequence.
struct ObjectOnly<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// The members of an envelope, each as raw text.
#[derive(Default)]
struct RawEnvelope<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
    duplicate: Option<&'static str>,
}

impl<'a> RawEnvelope<'a> {
    fn interpret(self) -> Result<Incoming<'a>, RejectedMessage> {
        // The id first: every later rejection is answered under it when it is readable.
        let id = match self.id {
            None => None,
            Some(raw) => match RequestId::from_raw(raw) {
                Ok(id) => Some(id),
                // A response whose id is null is the peer saying it could not read ours.
                Err(BadId::Null) if self.method.is_none() => None,
                Err(bad) => {
                    return Err(RejectedMessage {
                        id: None,
                        error: RpcError::invalid_request(bad.message()),
                    });
                }
            },
        };
        let reject = |message: String| {
            Err(RejectedMessage { id: id.clone(), error: RpcError::invalid_request(message) })
        };
        if let Some(name) = self.duplicate {
            return reject(format!("invalid request: member `{name}` appears more than once"));
        }
        match self.jsonrpc {
            Some(v) if v.get() == "\"2.0\"" => {}
            Some(v) => return reject(format!("invalid request: `jsonrpc` must be \"2.0\", got {}", v.get())),
            None => return reject("invalid request: the `jsonrpc` member is missing".to_owned()),
        }
        if let Some(params) = self.params {
            let first = params.get().as_bytes().first();
            if !matches!(first, Some(b'{' | b'[')) {
                return reject(format!(
                    "invalid request: `params` must be an object, got {}",
                    kind(params.get())
                ));
            }
        }
        if let Some(method) = self.method {
            if self.result.is_some() || self.error.is_some() {
                return reject("invalid request: a request cannot carry `result` or `error`".to_owned());
            }
            let Some(method) = raw_str(method) else {
                return reject(format!(
                    "invalid request: `method` must be a string, got {}",
                    kind(method.get())
                ));
            };
            let params = self.params;
            // A request with a null id was refused above, so no id here means none was sent.
            return Ok(match id {
                Some(id) => Incoming::Request { id, method, params },
                None => Incoming::Notification { method, params },
            });
        }
        match (self.result, self.error) {
            (Some(result), None) => Ok(Incoming::Response { id, outcome: Ok(result) }),
            (None, Some(error)) => {
                let e: ErrorIn =
                    serde_json::from_str(error.get()).unwrap_or(ErrorIn { code: None, message: None });
                Ok(Incoming::Response { id, outcome: Err((e.code, e.message)) })
            }
            (Some(_), Some(_)) => {
                reject("invalid request: a response cannot carry both `result` and `error`".to_owned())
            }
            (None, None) => reject("invalid request: the `method` member is missing".to_owned()),
        }
    }
}

/// A raw JSON string's value, borrowed when it has no escapes.
pub fn raw_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    if let Ok(s) = <&str>::deserialize(raw) {
        return Some(Cow::Borrowed(s));
    }
    String::deserialize(raw).ok().map(Cow::Owned)
}

impl<'de> Deserialize<'de> for RawEnvelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = RawEnvelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut env = RawEnvelope::default();
        while let Some(key) = map.next_key::<Member>()? {
            let (slot, name) = match key {
                Member::Jsonrpc => (&mut env.jsonrpc, "jsonrpc"),
                Member::Id => (&mut env.id, "id"),
                Member::Method => (&mut env.method, "method"),
                Member::Params => (&mut env.params, "params"),
                Member::Result => (&mut env.result, "result"),
                Member::Error => (&mut env.error, "error"),
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let value: &'de RawValue = map.next_value()?;
            if slot.replace(value).is_some() && env.duplicate.is_none() {
                env.duplicate = Some(name);
            }
        }
        Ok(env)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _seq: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom("a message must be a JSON object, got an array"))
    }
}

/// An envelope member name, read without allocating.
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MemberVisitor;
        impl Visitor<'_> for MemberVisitor {
            type Value = Member;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Member, E> {
                Ok(match name {
                    "jsonrpc" => Member::Jsonrpc,
                    "id" => Member::Id,
                    "method" => Member::Method,
                    "params" => Member::Params,
                    "result" => Member::Result,
                    "error" => Member::Error,
                    _ => Member::Other,
                })
            }
        }
        deserializer.deserialize_identifier(MemberVisitor)
    }
}

/// "an object", "a string", ... for raw JSON text.
pub fn kind(raw: &str) -> &'static str {
    match raw.trim_start().as_bytes().first() {
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        Some(_) => "a number",
        None => "nothing",
    }
}

/// serde_json's message without its ` at line L column C` suffix when the input is one line
/// (it always is on stdio); the column stays, since it points into what the peer sent.
fn clean(err: &serde_json::Error) -> String {
    let msg = err.to_string();
    match msg.rfind(" at line 1 column ") {
        Some(i) => format!("{} at column {}", &msg[..i], &msg[i + " at line 1 column ".len()..]),
        None => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Result<Incoming<'_>, RejectedMessage> {
        match parse_frame(text) {
            Ok(Frame::Single(text)) => decode(text),
            Ok(Frame::Batch(_)) => panic!("not a single message: {text}"),
            Err(error) => Err(RejectedMessage { id: None, error }),
        }
    }

    fn rejection(text: &str) -> (Option<RequestId>, i64, String) {
        match one(text) {
            Err(r) => (r.id, r.error.code, r.error.message),
            Ok(m) => panic!("accepted {text}: {m:?}"),
        }
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        match one(r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":{"x":1}}"#).unwrap() {
            Incoming::Request { id, method, params } => {
                assert_eq!(id, RequestId::String("a".into()));
                assert_eq!(method, "ping");
                assert_eq!(params.unwrap().get(), r#"{"x":1}"#);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            one(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            one(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap(),
            Incoming::Response { id: Some(RequestId::Number(3)), outcome: Ok(_) }
        ));
        // A null id is accepted on a response we receive.
        assert!(matches!(
            one(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#).unwrap(),
            Incoming::Response { id: None, outcome: Err((Some(-32600), Some(_))) }
        ));
        // Unknown members are ignored.
        assert!(matches!(
            one(r#"{"extra":[1,{"a":2}],"jsonrpc":"2.0","method":"m"}"#).unwrap(),
            Incoming::Notification { .. }
        ));
    }

    #[test]
    fn bad_messages_get_the_exact_error() {
        assert_eq!(
            rejection("{not json"),
            (None, -32700, "parse error: key must be a string at column 2".into())
        );
        assert_eq!(rejection("{} x").1, -32700);
        assert_eq!(
            rejection("42"),
            (None, -32600, "invalid request: a message must be a JSON object, got a number".into())
        );
        assert_eq!(
            rejection(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            (None, -32600, "invalid request: the request id must not be null".into())
        );
        assert_eq!(rejection(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).0, None);
        assert_eq!(
            rejection(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#),
            (
                Some(RequestId::Number(9)),
                -32600,
                "invalid request: `jsonrpc` must be \"2.0\", got \"1.0\"".into()
            )
        );
        assert_eq!(
            rejection(r#"{"jsonrpc":"2.0","id":"k","method":7}"#),
            (
                Some(RequestId::String("k".into())),
                -32600,
                "invalid request: `method` must be a string, got a number".into()
            )
        );
        assert_eq!(
            rejection(r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#).2,
            "invalid request: member `method` appears more than once"
        );
        assert_eq!(
            rejection(r#"{"jsonrpc":"2.0","id":1,"method":"a","params":3}"#).2,
            "invalid request: `params` must be an object, got a number"
        );
        assert_eq!(
            rejection(r#"{"jsonrpc":"2.0","id":1}"#).2,
            "invalid request: the `method` member is missing"
        );
    }

    #[test]
    fn the_common_tools_call_is_read_in_one_pass() {
        let DecodedCall { id, raw_id, params: p } = decode_call(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{ "text":"hi" },"_meta":{"progressToken":1}},"x":[1]}"#,
        )
        .expect("the common shape");
        assert_eq!((id, raw_id), (RequestId::Number(7), "7"));
        assert_eq!(p.name, "echo");
        assert_eq!(p.arguments.unwrap().get(), r#"{ "text":"hi" }"#);
        assert_eq!(p.meta.unwrap().progress_token.unwrap().get(), "1");
        // `method` after `params`, which a client may write: read by the hand scan (module
        // `call_scan`); the serde decode leaves it to the general path.
        let late = r#"{"jsonrpc":"2.0","id":1,"params":{"name":"echo"},"method":"tools/call"}"#;
        assert_eq!(decode_call(late).expect("the hand scan reads it").params.name, "echo");
        assert!(decode_call_serde(late).is_none());
        assert!(matches!(decode(late), Ok(Incoming::Request { .. })));
    }

    #[test]
    fn anything_unusual_leaves_the_one_pass_decode_to_the_general_path() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"tools/call"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"echo"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{"name":"e"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"e"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"},"params":{"name":"f"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["echo"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","name":"f"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"e"}}"#,
            r#"{"id":1,"method":"tools/call","params":{"name":"e"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"e"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"e"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"e"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"}} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"}"#,
        ] {
            assert!(decode_call(text).is_none(), "read in one pass: {text}");
        }
        // Each still gets its general-path answer, under its id where it was readable.
        assert_eq!(
            rejection(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{"name":"e"}}"#
            ),
            (
                Some(RequestId::Number(1)),
                -32600,
                "invalid request: member `method` appears more than once".into()
            )
        );
        assert_eq!(
            rejection(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"}} x"#).1,
            -32700
        );
    }

    #[test]
    fn arrays_are_batches() {
        match parse_frame(r#" [{"a":1}, 2]"#).unwrap() {
            Frame::Batch(items) => assert_eq!(items.len(), 2),
            Frame::Single(_) => panic!("not a batch"),
        }
        assert_eq!(parse_frame("[1,").unwrap_err().code, -32700);
    }
}
