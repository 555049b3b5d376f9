//! Forwarding `tracing` events a tool emits during a call to the client that made it, as
//! `notifications/message` (opt-in: [`ServerOptions::forward_tracing`](crate::server::ServerOptions::forward_tracing)).
//!
//! Each call's future is polled with a [`Forward`] dispatcher as the thread's default: it
//! hands every span and event on to the dispatcher that was the default when the server
//! first forwarded (your own subscriber, untouched), and also sends each event at or above
//! the client's level to the call's client. Levels map `ERROR` → `error`, `WARN` →
//! `warning`, `INFO` → `info`, `DEBUG` and `TRACE` → `debug`; the logger is the event's
//! target, and the data is `{"message": …, <field>: …}`. Only what runs inside the call's own
//! future is forwarded: a task the tool spawns is outside it, and so is the body of a sync
//! tool (it runs on the blocking pool).
//!
//! One dispatcher serves every call of a server (building a dispatcher re-registers every
//! callsite, which no call should pay for); the call's client is found in a task-local.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Level, Metadata, Subscriber};

use crate::context::Talkback;
use crate::protocol::LoggingLevel;
use crate::protocol::logging::MessageParams;
use crate::protocol::methods;

tokio::task_local! {
    /// The client of the call being polled.
    pub(crate) static CALL_CLIENT: Arc<dyn Talkback>;
}

/// The MCP level of a `tracing` level.
fn level_of(level: &Level) -> LoggingLevel {
    match *level {
        Level::ERROR => LoggingLevel::Error,
        Level::WARN => LoggingLevel::Warning,
        Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

/// The dispatcher a forwarding server polls its calls under.
pub(crate) struct Forward {
    inner: Dispatch,
}

impl Forward {
    /// A dispatcher that hands everything on to `inner` and forwards events to the call's
    /// client.
    pub(crate) fn dispatch(inner: Dispatch) -> Dispatch {
        Dispatch::new(Forward { inner })
    }

    fn forwards(level: &Level) -> bool {
        CALL_CLIENT
            .try_with(|talk| talk.log_level().is_some_and(|min| level_of(level) >= min))
            .unwrap_or(false)
    }
}

impl Subscriber for Forward {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        let _ = self.inner.register_callsite(metadata);
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.inner.enabled(metadata) || (metadata.is_event() && Forward::forwards(metadata.level()))
    }

    // The inner dispatcher's own hint still counts (it is registered too); this one needs
    // events up to `DEBUG`, the least severe level the client can ask for.
    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::DEBUG)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner.record(span, values)
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner.record_follows_from(span, follows)
    }

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        if self.inner.enabled(metadata) {
            self.inner.event(event);
        }
        let level = level_of(metadata.level());
        let _ = CALL_CLIENT.try_with(|talk| {
            if talk.log_level().is_none_or(|min| level < min) {
                return;
            }
            let mut fields = Fields(Map::new());
            event.record(&mut fields);
            let Ok(data) = serde_json::value::to_raw_value(&Value::Object(fields.0)) else { return };
            let params = MessageParams { level, logger: Some(metadata.target()), data: &data };
            if let Ok(params) = serde_json::to_string(&params) {
                talk.notify(methods::NOTIFICATIONS_MESSAGE, params);
            }
        });
    }

    fn enter(&self, span: &Id) {
        self.inner.enter(span)
    }

    fn exit(&self, span: &Id) {
        self.inner.exit(span)
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner.try_close(id)
    }
}

/// An event's fields as a JSON object.
struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), Value::String(format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), Value::String(value.to_owned()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
}
