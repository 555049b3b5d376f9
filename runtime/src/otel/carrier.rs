//! W3C trace context in a request's `_meta`, both ways, and the names every span and
//! instrument of `otel` shares.

#[cfg(feature = "client")]
use opentelemetry::propagation::Injector;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::protocol::RequestId;

/// The instrumentation scope's name: what toolwire's spans and instruments are made by.
pub(crate) const SCOPE: &str = "toolwire";

pub(crate) const METHOD: &str = "mcp.method.name";
pub(crate) const REQUEST_ID: &str = "jsonrpc.request.id";
pub(crate) const PROTOCOL_VERSION: &str = "mcp.protocol.version";
pub(crate) const SESSION_ID: &str = "mcp.session.id";
pub(crate) const OPERATION: &str = "gen_ai.operation.name";
pub(crate) const TOOL: &str = "gen_ai.tool.name";
pub(crate) const PROMPT: &str = "gen_ai.prompt.name";
pub(crate) const RESOURCE: &str = "mcp.resource.uri";
#[cfg(feature = "http")]
pub(crate) const TRANSPORT: &str = "network.transport";
pub(crate) const ERROR_TYPE: &str = "error.type";
pub(crate) const STATUS_CODE: &str = "rpc.response.status_code";

/// The three instruments of one side (`server` or `client`).
pub(crate) struct Instruments {
    pub(crate) duration: opentelemetry::metrics::Histogram<f64>,
    pub(crate) requests: opentelemetry::metrics::Counter<u64>,
    pub(crate) active: opentelemetry::metrics::UpDownCounter<i64>,
}

impl Instruments {
    /// `side`'s instruments, from the global meter provider.
    pub(crate) fn new(side: &'static str) -> Instruments {
        let meter = opentelemetry::global::meter(SCOPE);
        let (duration, requests, active) = match side {
            "server" => (
                "mcp.server.operation.duration",
                "toolwire.server.requests",
                "toolwire.server.active_requests",
            ),
            _ => (
                "mcp.client.operation.duration",
                "toolwire.client.requests",
                "toolwire.client.active_requests",
            ),
        };
        Instruments {
            duration: meter
                .f64_histogram(duration)
                .with_unit("s")
                .with_description("How long an MCP request took, until its answer")
                .build(),
            requests: meter
                .u64_counter(requests)
                .with_unit("{request}")
                .with_description("MCP requests")
                .build(),
            active: meter
                .i64_up_down_counter(active)
                .with_unit("{request}")
                .with_description("MCP requests not yet answered")
                .build(),
        }
    }
}

/// Why a request failed, as its span and metrics say: `error.type`, the status's message,
/// and the JSON-RPC code when there is one.
pub(crate) struct Failure {
    pub(crate) kind: String,
    pub(crate) message: String,
    pub(crate) code: Option<i64>,
}

impl Failure {
    pub(crate) fn new(kind: impl Into<String>, message: impl Into<String>, code: Option<i64>) -> Failure {
        Failure { kind: kind.into(), message: message.into(), code }
    }

    /// A request not answered: the client cancelled it or went away, or (a client's) its
    /// caller stopped waiting.
    pub(crate) fn cancelled() -> Failure {
        Failure::new("cancelled", "not answered", None)
    }
}

/// One request in flight: its span (in `cx`), when it started, and what its metrics carry.
/// Ended once, by [`Record::end`]; one dropped unended (a watch dropped without being told
/// the outcome: its caller stopped waiting) ends as [`Failure::cancelled`], so its span is
/// exported and the in-flight count comes down.
pub(crate) struct Record {
    live: Option<Live>,
}

struct Live {
    cx: Context,
    started: std::time::Instant,
    shared: Vec<KeyValue>,
    instruments: std::sync::Arc<Instruments>,
}

impl Record {
    /// Count the request in flight, under `shared`.
    pub(crate) fn start(
        cx: Context,
        shared: Vec<KeyValue>,
        instruments: std::sync::Arc<Instruments>,
    ) -> Record {
        instruments.active.add(1, &shared);
        Record { live: Some(Live { cx, started: std::time::Instant::now(), shared, instruments }) }
    }

    /// The request's context (its span current), to enter around its user code.
    pub(crate) fn context(&self) -> Option<&Context> {
        self.live.as_ref().map(|l| &l.cx)
    }

    /// The request ended, failed or not: end the span, record the metrics.
    pub(crate) fn end(mut self, failure: Option<Failure>) {
        if let Some(live) = self.live.take() {
            live.end(failure);
        }
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if let Some(live) = self.live.take() {
            live.end(Some(Failure::cancelled()));
        }
    }
}

impl Live {
    fn end(self, failure: Option<Failure>) {
        use opentelemetry::trace::Status;
        let Live { cx, started, mut shared, instruments } = self;
        // Taken down under the attributes it was put up with, before `error.type` is added.
        instruments.active.add(-1, &shared);
        let span = cx.span();
        if let Some(failure) = failure {
            span.set_attribute(KeyValue::new(ERROR_TYPE, failure.kind.clone()));
            if let Some(code) = failure.code {
                span.set_attribute(KeyValue::new(STATUS_CODE, code.to_string()));
            }
            span.set_status(Status::error(failure.message));
            shared.push(KeyValue::new(ERROR_TYPE, failure.kind));
        }
        span.end();
        instruments.duration.record(started.elapsed().as_secs_f64(), &shared);
        instruments.requests.add(1, &shared);
    }
}

/// The span's name after the conventions: `{method} {target}`, the target being a tool's or
/// a prompt's name (low cardinality), else the method alone.
pub(crate) fn span_name(method: &str, name: Option<&str>) -> String {
    match (method, name) {
        ("tools/call" | "prompts/get", Some(name)) => format!("{method} {name}"),
        _ => method.to_owned(),
    }
}

/// The attributes a request's span and its metrics share, and those for its span alone.
pub(crate) fn attributes(method: &str, name: Option<&str>) -> (Vec<KeyValue>, Vec<KeyValue>) {
    let mut shared = vec![KeyValue::new(METHOD, method.to_owned())];
    let mut span = Vec::new();
    match (method, name) {
        ("tools/call", Some(name)) => {
            shared.push(KeyValue::new(TOOL, name.to_owned()));
            span.push(KeyValue::new(OPERATION, "execute_tool"));
        }
        ("prompts/get", Some(name)) => shared.push(KeyValue::new(PROMPT, name.to_owned())),
        ("resources/read" | "resources/subscribe" | "resources/unsubscribe", Some(uri)) => {
            span.push(KeyValue::new(RESOURCE, uri.to_owned()));
        }
        _ => {}
    }
    (shared, span)
}

/// `jsonrpc.request.id`: a string id as it is, a number in decimal.
pub(crate) fn request_id(id: &RequestId) -> KeyValue {
    match id {
        RequestId::Number(n) => KeyValue::new(REQUEST_ID, n.to_string()),
        RequestId::String(s) => KeyValue::new(REQUEST_ID, s.clone()),
    }
}

/// The two `_meta` members W3C Trace Context uses.
#[derive(Default, Deserialize)]
struct TraceMeta {
    #[serde(default)]
    traceparent: Option<String>,
    #[serde(default)]
    tracestate: Option<String>,
}

impl Extractor for TraceMeta {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent.as_deref(),
            "tracestate" => self.tracestate.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        let mut keys = Vec::new();
        if self.traceparent.is_some() {
            keys.push("traceparent");
        }
        if self.tracestate.is_some() {
            keys.push("tracestate");
        }
        keys
    }
}

/// The context a request's `_meta` carries, when it carries a valid `traceparent`; members
/// that are not strings, or a `_meta` that is not an object, carry none.
pub(crate) fn extract(meta: Option<&RawValue>) -> Option<Context> {
    let meta: TraceMeta = serde_json::from_str(meta?.get()).ok()?;
    meta.traceparent.as_ref()?;
    let cx = TraceContextPropagator::new().extract_with_context(&Context::new(), &meta);
    cx.span().span_context().is_valid().then_some(cx)
}

/// Writes `traceparent` and `tracestate` into a request's `_meta`.
#[cfg(feature = "client")]
pub(crate) struct MetaInjector<'a>(pub(crate) &'a mut serde_json::Map<String, serde_json::Value>);

#[cfg(feature = "client")]
impl Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), serde_json::Value::String(value));
    }
}

/// Write `cx`'s span context into `meta` (nothing, for a context without a valid span).
#[cfg(feature = "client")]
pub(crate) fn inject(cx: &Context, meta: &mut serde_json::Map<String, serde_json::Value>) {
    TraceContextPropagator::new().inject_context(cx, &mut MetaInjector(meta));
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::{SpanId, TraceContextExt, TraceId};
    use serde_json::value::RawValue;

    use super::{extract, span_name};

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn a_valid_traceparent_in_meta_is_the_parent_and_anything_else_is_none() {
        let meta = raw(
            r#"{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"congo=t61rcWkgMzE","progressToken":1}"#,
        );
        let cx = extract(Some(&meta)).expect("a parent");
        let parent = cx.span().span_context().clone();
        assert_eq!(parent.trace_id(), TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").unwrap());
        assert_eq!(parent.span_id(), SpanId::from_hex("b7ad6b7169203331").unwrap());
        assert!(parent.is_remote() && parent.is_sampled());
        assert_eq!(parent.trace_state().get("congo"), Some("t61rcWkgMzE"));
        for bad in [
            r#"{}"#,
            r#"{"traceparent":7}"#,
            r#"{"traceparent":"00-00000000000000000000000000000000-b7ad6b7169203331-01"}"#,
            r#"{"traceparent":"not a traceparent"}"#,
            r#"[1]"#,
        ] {
            assert!(extract(Some(&raw(bad))).is_none(), "{bad}");
        }
        assert!(extract(None).is_none());
    }

    #[cfg(feature = "client")]
    #[test]
    fn inject_writes_what_extract_reads() {
        use opentelemetry::trace::{SpanContext, TraceFlags, TraceState};
        let sc = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            TraceFlags::SAMPLED,
            false,
            TraceState::from_key_value([("rojo", "00f067aa0ba902b7")]).unwrap(),
        );
        let cx = opentelemetry::Context::new().with_remote_span_context(sc);
        let mut meta = serde_json::Map::new();
        super::inject(&cx, &mut meta);
        assert_eq!(meta["traceparent"], "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assert_eq!(meta["tracestate"], "rojo=00f067aa0ba902b7");
        let back = extract(Some(&raw(&serde_json::Value::Object(meta).to_string()))).unwrap();
        assert_eq!(back.span().span_context().span_id(), SpanId::from_hex("00f067aa0ba902b7").unwrap());
    }

    #[test]
    fn span_names_carry_a_tool_or_a_prompt_and_never_a_uri() {
        assert_eq!(span_name("tools/call", Some("search")), "tools/call search");
        assert_eq!(span_name("prompts/get", Some("greet")), "prompts/get greet");
        assert_eq!(span_name("resources/read", Some("file:///etc/passwd")), "resources/read");
        assert_eq!(span_name("tools/list", None), "tools/list");
    }
}
