//! [`Otlp`]: toolwire's exporter, OTLP over HTTP/protobuf from the OpenTelemetry SDK's own
//! threads, installed as the global tracer and meter providers.

use std::time::Duration;

use opentelemetry_otlp::{MetricExporter, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// Why [`Otlp::install`] could not install the exporter.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// An exporter could not be built (an endpoint that is not a URL, most often).
    #[error("cannot build the OTLP {signal} exporter for '{endpoint}': {reason}")]
    Exporter {
        /// `traces` or `metrics`.
        signal: &'static str,
        /// The endpoint as given, or `the environment's` when none was.
        endpoint: String,
        /// What the exporter said.
        reason: String,
    },
}

/// Where and as whom to export: an OTLP/HTTP receiver's base URL and the `service.name`.
///
/// Spans go out in batches from the SDK's own thread (never from a runtime's), metrics every
/// [`metrics_interval`](Otlp::metrics_interval); both are flushed when the [`OtlpGuard`]
/// drops. [`install`](Otlp::install) also makes W3C Trace Context the global propagator.
///
/// ```no_run
/// # fn main() -> Result<(), toolwire::otel::OtelError> {
/// let _otlp = toolwire::otel::Otlp::new("billing")
///     .endpoint("http://127.0.0.1:4318") // spans to /v1/traces, metrics to /v1/metrics
///     .install()?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Otlp {
    service: String,
    endpoint: Option<String>,
    metrics_interval: Duration,
}

impl Otlp {
    /// Export as `service` (`service.name`) to the receiver the environment names
    /// (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the per-signal variables), else
    /// `http://localhost:4318`.
    pub fn new(service: impl Into<String>) -> Otlp {
        Otlp { service: service.into(), endpoint: None, metrics_interval: Duration::from_secs(60) }
    }

    /// Export to the OTLP/HTTP receiver at `base` (`http://host:4318`): spans to
    /// `base/v1/traces`, metrics to `base/v1/metrics`, whatever the environment says.
    pub fn endpoint(mut self, base: impl Into<String>) -> Otlp {
        self.endpoint = Some(base.into().trim_end_matches('/').to_owned());
        self
    }

    /// Export metrics this often (default: 60 s).
    pub fn metrics_interval(mut self, every: Duration) -> Otlp {
        self.metrics_interval = every;
        self
    }

    /// Build the exporters and install them as the global tracer and meter providers, and
    /// W3C Trace Context as the global propagator. Make [`ServerTelemetry`](super::ServerTelemetry)
    /// and [`ClientTelemetry`](super::ClientTelemetry) after this: they take the providers
    /// that are global when they are made. Keep the guard for as long as the program runs.
    pub fn install(self) -> Result<OtlpGuard, OtelError> {
        let resource = Resource::builder().with_service_name(self.service.clone()).build();
        let failed = |signal: &'static str, e: &dyn std::fmt::Display| OtelError::Exporter {
            signal,
            endpoint: self.endpoint.clone().unwrap_or_else(|| "the environment's".to_owned()),
            reason: e.to_string(),
        };
        let mut spans = SpanExporter::builder().with_http();
        let mut metrics = MetricExporter::builder().with_http();
        if let Some(base) = &self.endpoint {
            spans = spans.with_endpoint(format!("{base}/v1/traces"));
            metrics = metrics.with_endpoint(format!("{base}/v1/metrics"));
        }
        let spans = spans.build().map_err(|e| failed("traces", &e))?;
        let metrics = metrics.build().map_err(|e| failed("metrics", &e))?;
        let tracer =
            SdkTracerProvider::builder().with_batch_exporter(spans).with_resource(resource.clone()).build();
        let reader = PeriodicReader::builder(metrics).with_interval(self.metrics_interval).build();
        let meter = SdkMeterProvider::builder().with_reader(reader).with_resource(resource).build();
        opentelemetry::global::set_tracer_provider(tracer.clone());
        opentelemetry::global::set_meter_provider(meter.clone());
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        Ok(OtlpGuard { tracer, meter })
    }
}

/// The installed exporter: dropping it flushes what is buffered and shuts both providers
/// down (spans and metrics made after that are dropped).
#[must_use = "dropping the guard shuts the exporter down at once"]
pub struct OtlpGuard {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
}

impl OtlpGuard {
    /// Send what is buffered now (spans and metrics), without shutting down.
    pub fn flush(&self) {
        let _ = self.tracer.force_flush();
        let _ = self.meter.force_flush();
    }
}

impl std::fmt::Debug for OtlpGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpGuard").finish_non_exhaustive()
    }
}

impl Drop for OtlpGuard {
    fn drop(&mut self) {
        let _ = self.tracer.shutdown();
        let _ = self.meter.shutdown();
    }
}
