//! Entry points of the fuzz targets (`fuzz/`) and of the property tests (feature `fuzzing`,
//! off by default). Not public API.
//!
//! Each target is `fn(&[u8])`: it must never panic, whatever the bytes. Each is a thin
//! wrapper around the one crate function it exercises, so a move of that function changes
//! one path here. The input formats (what the seed corpora in `fuzz/seeds/` hold):
//!
//! | target | input |
//! | --- | --- |
//! | `envelope` | one JSON-RPC line (a message or a batch) |
//! | `raw_value` | any text: one JSON value at its start, perhaps followed by more |
//! | `arguments` | an input schema (`properties`, `required`, `$defs`) on the first line, the call's arguments after it |
//! | `http_request` | `METHOD /path`, header lines, a blank line, the body |
//! | `head_scan` | two bytes saying where to cut, then a request head as a client sends it |
//! | `sse` | an SSE stream, as a server sends it |
//! | `adoption` | a listed tool's `inputSchema` on the first line, arguments to validate after it (optional) |

#![allow(missing_docs, unreachable_pub)]

use std::borrow::Cow;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Request};
use http_body_util::BodyExt;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tower::ServiceExt;

use crate::args::{ArgSpec, ParamSpec};
use crate::context::Context;
use crate::protocol::envelope::{self, Frame, Incoming};
use crate::protocol::methods;
use crate::protocol::tools::CallToolParams;
use crate::protocol::{Outbound, RequestId, RpcError};
use crate::registry::ToolRegistry;
use crate::schema::Schema;
use crate::server::{Server, ServerOptions};
use crate::tool::{Declarations, Tool, ToolFuture, ToolInfo, ToolOutput};
use crate::transport::http::{Auth, HttpConfig, mcp_router};

// ---- The JSON-RPC envelope ------------------------------------------------------------

/// An inbound message as the envelope decoder read it, owned, so it can be compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    Request { id: RequestId, method: String, params: Option<String> },
    Notification { method: String, params: Option<String> },
    Response { id: Option<RequestId>, outcome: Result<String, (Option<i64>, Option<String>)> },
}

/// Why a message was refused: the id it was answered under, and the JSON-RPC code.
pub type Refused = (Option<RequestId>, i64);

/// Decode one message object (`crate::protocol::envelope::decode`).
pub fn decode(text: &str) -> Result<Decoded, Refused> {
    let params = |p: Option<&RawValue>| p.map(|p| p.get().to_owned());
    match envelope::decode(text) {
        Ok(Incoming::Request { id, method, params: p }) => {
            Ok(Decoded::Request { id, method: method.into_owned(), params: params(p) })
        }
        Ok(Incoming::Notification { method, params: p }) => {
            Ok(Decoded::Notification { method: method.into_owned(), params: params(p) })
        }
        Ok(Incoming::Response { id, outcome }) => {
            Ok(Decoded::Response { id, outcome: outcome.map(|r| r.get().to_owned()) })
        }
        Err(rejected) => Err((rejected.id, rejected.error.code)),
    }
}

/// Read a request id from its JSON text (`RequestId::from_raw`); `None` if it is not one.
pub fn decode_id(text: &str) -> Option<RequestId> {
    let raw: &RawValue = serde_json::from_str(text).ok()?;
    RequestId::from_raw(raw).ok()
}

/// A request without params, as this crate writes it.
pub fn encode_request(id: &RequestId, method: &str) -> String {
    Outbound::request(id, method).into_string()
}

/// A result response around `body` (a JSON object).
pub fn encode_result(id: &RequestId, body: &str) -> String {
    Outbound::result(id, body).into_string()
}

/// An error response, under `id` when there is one.
pub fn encode_error(id: Option<&RequestId>, code: i64, message: &str) -> String {
    Outbound::error(id, &RpcError::new(code, message)).into_string()
}

/// A notification with `params` (a JSON object).
pub fn encode_notification(method: &str, params: &str) -> String {
    Outbound::notification(method, params).into_string()
}

/// Fuzz target: a line into the envelope decoder, each element of a batch too. A request
/// that decodes must decode the same once written back, and the one-pass `tools/call`
/// decode must agree with the general path on every message it reads.
pub fn envelope(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let messages = match envelope::parse_frame(text) {
        Ok(Frame::Single(one)) => vec![one],
        Ok(Frame::Batch(items)) => items.iter().map(|raw| raw.get()).collect(),
        Err(_) => return,
    };
    for message in messages {
        one_pass_call_agrees(message);
        if let Ok(Decoded::Request { id, method, .. }) = decode(message) {
            let again = decode(&encode_request(&id, &method));
            assert_eq!(again, Ok(Decoded::Request { id, method, params: None }), "{message}");
        }
    }
}

/// The one-pass `tools/call` decode (`envelope::decode_call`) reads a message only as the
/// general path reads it: the same id, method `tools/call`, and the same params as the
/// method decodes them from the raw `params` (an object, then `CallToolParams`).
fn one_pass_call_agrees(message: &str) {
    // The hand scan reads what the serde decode reads, when both read the message (the
    // serde decode also wants `method` before `params`; the general path, below, does not).
    if toolwire_protocol::call_scan::scan_call(message).is_some()
        && let Some(by_serde) = envelope::decode_call_serde(message)
    {
        assert_eq!(
            format!("{:?}", envelope::decode_call(message)),
            format!("{:?}", Some(by_serde)),
            "{message}"
        );
    }
    let Some(call) = envelope::decode_call(message) else { return };
    // The HTTP transport routes such a body by the decode's shape, not by peeking: the same.
    if let Some(shape) = crate::transport::http::read::peek::from_call(&call, message) {
        assert_eq!(shape, crate::transport::http::read::peek::peek(message), "{message}");
    }
    let (id, params) = (call.id, call.params);
    let Ok(Incoming::Request { id: general_id, method, params: raw }) = envelope::decode(message) else {
        panic!("the one-pass decode read a tools/call the general path refuses: {message}");
    };
    assert_eq!((&general_id, &*method), (&id, methods::TOOLS_CALL), "{message}");
    let raw = raw.map_or("{}", RawValue::get);
    assert!(raw.starts_with('{'), "the one-pass decode read params that are not an object: {message}");
    let general: CallToolParams<'_> = serde_json::from_str(raw).unwrap_or_else(|e| {
        panic!("the one-pass decode read params the general path refuses ({e}): {message}")
    });
    assert_eq!(format!("{general:?}"), format!("{params:?}"), "{message}");
}

// ---- One JSON value, found by hand -----------------------------------------------------------

/// Fuzz target: the call scan's value finder (`protocol::raw_value`) against serde_json, on
/// the value at the start of the text. Whatever the finder reads, serde_json reads too and
/// ends at the same byte, and the lent `&RawValue` is that text; whatever serde_json reads,
/// the finder reads too, unless it nests deeper than the finder's limit.
pub fn raw_value(data: &[u8]) {
    use serde::Deserialize as _;
    use toolwire_protocol::raw_value::{MAX_DEPTH, read, value_end};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let text = text.trim_start_matches([' ', '\t', '\n', '\r']);
    let ours = value_end(text.as_bytes(), 0);
    let theirs = <&RawValue>::deserialize(&mut serde_json::Deserializer::from_str(text))
        .ok()
        .map(|raw| raw.get().as_ptr() as usize - text.as_ptr() as usize + raw.get().len());
    match (ours, theirs) {
        (Some(ours), theirs) => {
            assert_eq!(Some(ours), theirs, "the finder read what serde_json does not: {text:?}");
            let (lent, end) = read(text, 0).expect("a value the finder read is lent");
            assert_eq!((lent.get(), end), (&text[..ours], ours), "{text:?}");
        }
        (None, Some(theirs)) => assert!(
            nesting(&text[..theirs]) > MAX_DEPTH as usize,
            "the finder refused what serde_json reads: {text:?}"
        ),
        (None, None) => {}
    }
}

/// How deep the containers of `json` (valid JSON) nest.
fn nesting(json: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in json.bytes() {
        match (in_string, b) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, b']' | b'}') => depth -= 1,
            _ => {}
        }
    }
    deepest
}

// ---- Arguments against a schema ------------------------------------------------------------

/// The facts an input schema describes (`properties` in order, `required`, `$defs`).
pub fn arg_spec(schema: &Value) -> ArgSpec {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let params = schema["properties"]
        .as_object()
        .map(|props| {
            props
                .iter()
                .map(|(name, schema)| ParamSpec {
                    name: Cow::Owned(name.clone()),
                    required: required.contains(&name.as_str()),
                    schema: schema.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let defs = schema["$defs"].as_object().cloned().unwrap_or_else(Map::new);
    ArgSpec::new(Cow::Borrowed("fuzzed"), params, defs)
}

/// Fuzz target: the first line an input schema, the rest a call's arguments, through
/// `ArgSpec::parse` and every parameter's check.
pub fn arguments(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (schema, args) = text.split_once('\n').unwrap_or((text, "{}"));
    let Ok(schema) = serde_json::from_str::<Value>(schema) else { return };
    let Ok(args) = serde_json::from_str::<&RawValue>(args) else { return };
    members_agree(args.get());
    let _ = check_arguments(&arg_spec(&schema), args);
}

/// The members of an arguments object found by structure (`args::members`) are the ones
/// serde reads: the same names, repeats included, with the same raw values, in order.
fn members_agree(object: &str) {
    use serde::de::{Deserializer as _, MapAccess, Visitor};
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, &'de str)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut members = Vec::new();
            while let Some(name) = map.next_key::<String>()? {
                members.push((name, map.next_value::<&RawValue>()?.get()));
            }
            Ok(members)
        }
    }
    let mut found = Vec::new();
    if crate::args::members::each_member(object, |name, value| found.push((name.to_owned(), value))).is_none()
    {
        return;
    }
    let by_serde = serde_json::Deserializer::from_str(object)
        .deserialize_map(Members)
        .unwrap_or_else(|e| panic!("members found in what serde does not read as an object ({e}): {object}"));
    assert_eq!(found, by_serde, "{object}");
    // A string value read without serde reads as serde reads it.
    for (_, value) in found {
        if let Some(plain) = crate::args::plain_string::<String>(value) {
            assert_eq!(Some(plain), serde_json::from_str::<String>(value).ok(), "{value}");
        }
    }
}

/// Validate `args` as a tool call would: the object, then each parameter in turn.
pub fn check_arguments(spec: &ArgSpec, args: &RawValue) -> Result<(), crate::args::ToolArgumentError> {
    let parsed = spec.parse(args)?;
    for i in 0..spec.params().len() {
        parsed.take::<Value>(i)?;
    }
    Ok(())
}

// ---- The HTTP request path ----------------------------------------------------------------

/// A tool with two parameters (`text`, required; `count`, optional), answering with them.
struct Echo {
    info: ToolInfo,
    spec: ArgSpec,
}

impl Tool for Echo {
    fn info(&self) -> &ToolInfo {
        &self.info
    }

    fn call<'a>(&'a self, args: &'a RawValue, _ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move {
            let args = self.spec.parse(args)?;
            let text: String = args.take(0)?;
            let count: Option<i64> = args.take(1)?;
            Ok(ToolOutput::text(format!("{text} {count:?}")))
        })
    }
}

fn echo() -> Echo {
    let schema = serde_json::json!({
        "properties": {"text": {"type": "string"}, "count": {"type": ["integer", "null"], "minimum": 0}},
        "required": ["text"],
    });
    let spec = arg_spec(&schema);
    let info = ToolInfo::new("echo", "Echo the text.", Schema::from_value(spec.input_schema()))
        .with_declarations(Declarations::read_only());
    Echo { info, spec }
}

/// Split a request as the `http_request` target reads it.
fn request(data: &[u8]) -> Option<Request<Body>> {
    let split = data.windows(2).position(|w| w == b"\n\n");
    let (head, body) = match split {
        Some(at) => (&data[..at], &data[at + 2..]),
        None => (data, &[][..]),
    };
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.lines();
    let (method, path) = lines.next()?.split_once(' ')?;
    let mut builder = Request::builder().method(method).uri(path);
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let name = HeaderName::from_bytes(name.trim().as_bytes()).ok()?;
        let value = HeaderValue::from_bytes(value.trim().as_bytes()).ok()?;
        builder = builder.header(name, value);
    }
    builder.body(Body::from(body.to_vec())).ok()
}

/// Fuzz target: headers and a body into `mcp_router` (Auth::None, stateful), in process,
/// on a paused clock so streams that stay open end at once. The response's body is read up
/// to a (virtual) second.
pub fn http_request(data: &[u8]) {
    let Some(req) = request(data) else { return };
    let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build()
    else {
        return;
    };
    let mut registry = ToolRegistry::new();
    if registry.register(echo()).is_err() {
        return;
    }
    let server = Server::new(registry, ServerOptions::new("fuzz", "0.1.0"));
    // Built outside the runtime: no session sweeper is left behind.
    let router = mcp_router(server, HttpConfig::new(Auth::None));
    rt.block_on(async move {
        let Ok(resp) = router.oneshot(req).await;
        let mut body = resp.into_body();
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            while let Some(Ok(_)) = body.frame().await {}
        })
        .await;
    });
}

/// Fuzz target: the socket layer's head scan (`transport::http::listen::head_scan`), which reads a
/// request head as its bytes arrive, fed the head in three pieces, against its line-by-line
/// reference on the whole head. The first two bytes say where to cut (each a fraction of
/// the head's length, in 256ths); the rest is the head.
pub fn head_scan(data: &[u8]) {
    use crate::transport::http::listen::head_scan::{reference, scan_in_pieces};
    let [a, b, head @ ..] = data else { return };
    let cut = |at: &u8| usize::from(*at) * (head.len() + 1) / 256;
    let (first, second) = (cut(a).min(cut(b)), cut(a).max(cut(b)));
    assert_eq!(
        scan_in_pieces(head, &[first, second]),
        reference(head),
        "{:?} cut at {first} and {second}",
        String::from_utf8_lossy(head)
    );
}

// ---- The client ---------------------------------------------------------------------------

/// Fuzz target: a server's SSE stream through the client's incremental parser, as the
/// client reads it. The first byte says where the rest splits into two chunks.
pub fn sse(data: &[u8]) {
    crate::client::fuzz_sse(data);
}

/// Fuzz target: a listed tool's `inputSchema` through the adoption checks; when adopted,
/// its validator compiles and checks the arguments on the next line.
pub fn adoption(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (schema, args) = text.split_once('\n').unwrap_or((text, "{}"));
    let Ok(schema) = serde_json::from_str::<Value>(schema) else { return };
    let Ok(checked) = crate::client::check_schema("fuzz", "tool", &schema) else { return };
    let Ok(validator) = crate::client::compile_schema(&checked) else { return };
    if let Ok(args) = serde_json::from_str::<Value>(args) {
        let _ = crate::client::validate_adopted(&validator, &checked.advertised, "tool", &args);
    }
}
