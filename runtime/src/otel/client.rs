//! [`ClientTelemetry`]: a span and metrics for every request a client sends, and its trace
//! context in the request's `_meta`.

use std::sync::Arc;
use std::time::Instant;

use opentelemetry::global::BoxedTracer;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use super::carrier::{self, Instruments};
use crate::client::{SendInterceptor, SendOutcome, SendVerdict, SendWatch, Sending};
use crate::protocol::RequestId;

/// A [`SendInterceptor`] that records every request a client sends (adopted tools' calls
/// included) as an OpenTelemetry `CLIENT` span, a child of the current context
/// ([`Context::current`]: inside a served request's user code, that request's span), and
/// writes the span's context into the request's `_meta` as `traceparent` and `tracestate`
/// (module [`otel`](super)). It answers nothing and refuses nothing.
///
/// Made from the global tracer and meter providers as they are when it is made: install
/// them first ([`Otlp::install`](super::Otlp::install), or your own).
#[derive(Clone)]
pub struct ClientTelemetry {
    tracer: Arc<BoxedTracer>,
    instruments: Arc<Instruments>,
}

impl ClientTelemetry {
    /// Telemetry on the global providers, under the instrumentation scope `toolwire`.
    pub fn new() -> ClientTelemetry {
        ClientTelemetry {
            tracer: Arc::new(opentelemetry::global::tracer(carrier::SCOPE)),
            instruments: Arc::new(Instruments::new("client")),
        }
    }
}

impl Default for ClientTelemetry {
    fn default() -> ClientTelemetry {
        ClientTelemetry::new()
    }
}

impl std::fmt::Debug for ClientTelemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTelemetry").finish_non_exhaustive()
    }
}

impl SendInterceptor for ClientTelemetry {
    fn intercept(&self, request: &mut Sending<'_>) -> SendVerdict {
        let method = request.method().to_owned();
        let name = request.name().map(str::to_owned);
        let (shared, mut own) = carrier::attributes(&method, name.as_deref());
        own.push(carrier::request_id(&RequestId::Number(request.id())));
        if let Some(version) = request
            .meta()
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(|v| v.as_str())
        {
            own.push(KeyValue::new(carrier::PROTOCOL_VERSION, version.to_owned()));
        }
        let parent = Context::current();
        let span = self
            .tracer
            .span_builder(carrier::span_name(&method, name.as_deref()))
            .with_kind(SpanKind::Client)
            .with_attributes(shared.iter().cloned().chain(own))
            .start_with_context(&*self.tracer, &parent);
        let cx = parent.with_span(span);
        carrier::inject(&cx, request.meta_mut());
        self.instruments.active.add(1, &shared);
        SendVerdict::watch(Sent {
            cx,
            tools_call: method == "tools/call",
            started: Instant::now(),
            shared,
            instruments: self.instruments.clone(),
        })
    }
}

/// One sent request's span.
struct Sent {
    cx: Context,
    tools_call: bool,
    started: Instant,
    shared: Vec<KeyValue>,
    instruments: Arc<Instruments>,
}

impl SendWatch for Sent {
    fn finished(self: Box<Self>, outcome: SendOutcome<'_>) {
        let Sent { cx, tools_call, started, mut shared, instruments } = *self;
        instruments.active.add(-1, &shared);
        let error = match outcome {
            SendOutcome::Result(body) if tools_call && is_tool_error(body) => {
                Some(("tool_error".to_owned(), None, None))
            }
            SendOutcome::Error { code, message } => {
                Some((code.to_string(), Some(message.to_owned()), Some(code)))
            }
            SendOutcome::Failed { reason } => Some(("_OTHER".to_owned(), Some(reason.to_owned()), None)),
            _ => None,
        };
        let span = cx.span();
        if let Some((kind, message, code)) = error {
            span.set_attribute(KeyValue::new(carrier::ERROR_TYPE, kind.clone()));
            if let Some(code) = code {
                span.set_attribute(KeyValue::new(carrier::STATUS_CODE, code.to_string()));
            }
            span.set_status(Status::error(message.unwrap_or_default()));
            shared.push(KeyValue::new(carrier::ERROR_TYPE, kind));
        }
        span.end();
        instruments.duration.record(started.elapsed().as_secs_f64(), &shared);
        instruments.requests.add(1, &shared);
    }
}

/// Whether a result is a tool's error (`"isError": true`).
fn is_tool_error(body: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Flag {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    serde_json::from_str::<Flag>(body).is_ok_and(|f| f.is_error)
}
