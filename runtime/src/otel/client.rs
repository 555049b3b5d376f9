//! [`ClientTelemetry`]: a span and metrics for every request a client sends, and its trace
//! context in the request's `_meta`.

use std::sync::Arc;

use opentelemetry::global::BoxedTracer;
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use super::carrier::{self, Failure, Instruments, Record};
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
        SendVerdict::watch(Sent {
            record: Record::start(cx, shared, self.instruments.clone()),
            tools_call: method == "tools/call",
        })
    }
}

/// One sent request's span. Dropped untold (its caller stopped waiting), it ends as
/// cancelled.
struct Sent {
    record: Record,
    tools_call: bool,
}

impl SendWatch for Sent {
    fn finished(self: Box<Self>, outcome: SendOutcome<'_>) {
        let failure = match outcome {
            SendOutcome::Completed(body) if self.tools_call && is_tool_error(body) => {
                Some(Failure::new("tool_error", "", None))
            }
            SendOutcome::Error { code, message } => Some(Failure::new(code.to_string(), message, Some(code))),
            // A call its caller stopped waiting for; any other failure without an answer is
            // the conventions' catch-all.
            SendOutcome::Cancelled { reason } => Some(Failure::new("cancelled", reason, None)),
            SendOutcome::Failed { reason } => Some(Failure::new("_OTHER", reason, None)),
            _ => None,
        };
        self.record.end(failure);
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
