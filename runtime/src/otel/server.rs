//! [`ServerTelemetry`]: a span and metrics for every request a server serves.

use std::sync::Arc;

use opentelemetry::global::BoxedTracer;
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use super::carrier::{self, Failure, Instruments, Record};
use crate::server::{Entered, Intercepted, Interceptor, Outcome, Ruling, Watch};

/// An [`Interceptor`] that records every request a server serves as an OpenTelemetry `SERVER`
/// span, with the semantic conventions' attributes, the parent the request's `_meta` names,
/// and the server's metrics (module [`otel`](super)). It answers nothing and refuses nothing.
///
/// Made from the global tracer and meter providers as they are when it is made: install
/// them first ([`Otlp::install`](super::Otlp::install), or your own).
#[derive(Clone)]
pub struct ServerTelemetry {
    tracer: Arc<BoxedTracer>,
    instruments: Arc<Instruments>,
}

impl ServerTelemetry {
    /// Telemetry on the global providers, under the instrumentation scope `toolwire`.
    pub fn new() -> ServerTelemetry {
        ServerTelemetry {
            tracer: Arc::new(opentelemetry::global::tracer(carrier::SCOPE)),
            instruments: Arc::new(Instruments::new("server")),
        }
    }
}

impl Default for ServerTelemetry {
    fn default() -> ServerTelemetry {
        ServerTelemetry::new()
    }
}

impl std::fmt::Debug for ServerTelemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTelemetry").finish_non_exhaustive()
    }
}

impl Interceptor for ServerTelemetry {
    fn intercept(&self, request: &Intercepted<'_>) -> Ruling {
        let method = request.method();
        let name = request.name();
        let (shared, mut own) = carrier::attributes(method, name);
        own.push(carrier::request_id(request.id()));
        if let Some(version) = request.client_info().protocol_version.clone() {
            own.push(KeyValue::new(carrier::PROTOCOL_VERSION, version));
        }
        if let Some(session) = request.session_id() {
            own.push(KeyValue::new(carrier::SESSION_ID, session.to_owned()));
        }
        #[cfg(feature = "http")]
        if request.headers().is_some() {
            own.push(KeyValue::new(carrier::TRANSPORT, "tcp"));
        }
        let parent = carrier::extract(request.meta()).unwrap_or_else(Context::current);
        let span = self
            .tracer
            .span_builder(carrier::span_name(method, name))
            .with_kind(SpanKind::Server)
            .with_attributes(shared.iter().cloned().chain(own))
            .start_with_context(&*self.tracer, &parent);
        Ruling::watch(Served {
            record: Record::start(parent.with_span(span), shared, self.instruments.clone()),
            tools_call: method == "tools/call",
        })
    }
}

/// One served request's span, current around each poll of its user code.
struct Served {
    record: Record,
    tools_call: bool,
}

impl Watch for Served {
    fn enter(&self) -> Option<Entered> {
        Some(Box::new(self.record.context()?.clone().attach()))
    }

    fn finished(self: Box<Self>, outcome: Outcome<'_>) {
        let failure = match outcome {
            Outcome::Completed(_) if self.tools_call && outcome.is_tool_error() => {
                Some(Failure::new("tool_error", "", None))
            }
            Outcome::Error(e) => Some(Failure::new(e.code.to_string(), e.message.clone(), Some(e.code))),
            Outcome::Unanswered => Some(Failure::cancelled()),
            _ => None,
        };
        self.record.end(failure);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use opentelemetry::trace::TraceContextExt;
    use serde_json::value::RawValue;

    use super::*;
    use crate::principal::Principal;
    use crate::protocol::RequestId;

    /// The served span's watch is entered on whichever thread runs the body (a sync body's
    /// worker, a `local` body's thread: module `tool::run::carry`): entered on another
    /// thread, the span, a child of the trace `_meta` names, is current there, and only
    /// while entered. Nothing in it is tied to the thread that made it.
    #[test]
    fn the_served_span_is_current_on_another_thread_while_entered() {
        const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
        let params =
            format!(r#"{{"name":"shout","_meta":{{"traceparent":"00-{TRACE}-00f067aa0ba902b7-01"}}}}"#);
        let params = serde_json::from_str::<&RawValue>(&params).unwrap();
        let principal = Arc::new(Principal::host());
        let id = RequestId::Number(1);
        let request = Intercepted::new("tools/call", &id, Some(params), &principal);
        let Ruling::Watch(watch) = ServerTelemetry::new().intercept(&request) else {
            panic!("the telemetry watches every request")
        };
        let watch: Arc<dyn Watch> = Arc::from(watch);
        let theirs = Arc::clone(&watch);
        let (during, after) = std::thread::spawn(move || {
            let trace = || Context::current().span().span_context().trace_id().to_string();
            let entered = theirs.enter();
            let during = trace();
            drop(entered);
            (during, trace())
        })
        .join()
        .unwrap();
        assert_eq!(during, TRACE, "current while entered on the body's thread");
        assert_eq!(after, "00000000000000000000000000000000", "and only then");
    }
}
