//! Logging to the client from a call: [`Context::log`] sends `notifications/message`,
//! filtered by the level the client set with `logging/setLevel`, before anything is
//! serialised.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::protocol::LoggingLevel;
use crate::protocol::logging::MessageParams;
use crate::protocol::methods;

use super::Context;

impl Context {
    /// Whether a message at `level` would reach the client: there is one, and `level` is at
    /// least the level it set with `logging/setLevel` (`info` until it sets one). Use it to
    /// skip building an expensive message.
    pub fn logs(&self, level: LoggingLevel) -> bool {
        self.inner.talk.as_ref().and_then(|t| t.log_level()).is_some_and(|min| level >= min)
    }

    /// Log `data` (any JSON: a string, an object) to the client as a `notifications/message`
    /// at `level`. A message below the client's level is dropped before `data` is
    /// serialised, so a filtered call costs one comparison. Without a client (a direct call,
    /// or a modern-era call) this does nothing.
    ///
    /// ```
    /// use toolwire::Context;
    /// use toolwire::protocol::LoggingLevel;
    ///
    /// let ctx = Context::new();
    /// ctx.log(LoggingLevel::Info, "starting"); // no client here: dropped
    /// assert!(!ctx.logs(LoggingLevel::Emergency));
    /// ```
    pub fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.log_as(level, None, data)
    }

    /// [`log`](Self::log), naming the `logger` (the spec's optional source name).
    pub fn log_as(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        let Some(talk) = &self.inner.talk else { return };
        if talk.log_level().is_none_or(|min| level < min) {
            return;
        }
        let Ok(data) = serde_json::value::to_raw_value(&data) else {
            return tracing::debug!("a log message's data did not serialise; dropped");
        };
        let data: &RawValue = &data;
        let params = MessageParams { level, logger, data };
        if let Ok(params) = serde_json::to_string(&params) {
            talk.notify(methods::NOTIFICATIONS_MESSAGE, params);
        }
    }
}
