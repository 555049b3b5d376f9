//! The logging utility's wire: [`LoggingLevel`] (RFC 5424's eight severities), the
//! `logging/setLevel` params and the `notifications/message` params.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A log message's severity, as RFC 5424 orders them: `Debug` is the least severe,
/// `Emergency` the most. The order of the variants is the order of severity, so
/// `LoggingLevel::Warning > LoggingLevel::Info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// General informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The level's name on the wire (`"warning"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }

    /// The level as a small integer (its index in [`ALL`](Self::ALL)), for an atomic.
    pub fn index(self) -> u8 {
        self as u8
    }

    /// The level at `index` (see [`index`](Self::index)).
    pub fn from_index(index: u8) -> Option<LoggingLevel> {
        LoggingLevel::ALL.get(usize::from(index)).copied()
    }
}

impl std::fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `logging/setLevel` params. The level is read as a string so a bad one gets an error that
/// lists the accepted names.
#[derive(Debug, Deserialize)]
pub struct SetLevelParams<'a> {
    /// The minimum level the client wants.
    #[serde(borrow)]
    pub level: std::borrow::Cow<'a, str>,
}

/// The params of a `notifications/message`.
#[derive(Debug, Serialize)]
pub struct MessageParams<'a> {
    /// The severity.
    pub level: LoggingLevel,
    /// Who logged it (a tool's name, a `tracing` target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logger: Option<&'a str>,
    /// What was logged: any JSON.
    pub data: &'a RawValue,
}

/// Read a level by its wire name.
pub fn parse_level(name: &str) -> Option<LoggingLevel> {
    LoggingLevel::ALL.into_iter().find(|l| l.as_str() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_by_severity_and_round_trip_their_names() {
        assert!(LoggingLevel::Warning > LoggingLevel::Info);
        for (i, level) in LoggingLevel::ALL.into_iter().enumerate() {
            assert_eq!(level.index() as usize, i);
            assert_eq!(LoggingLevel::from_index(level.index()), Some(level));
            assert_eq!(parse_level(level.as_str()), Some(level));
            assert_eq!(serde_json::to_string(&level).unwrap(), format!("\"{level}\""));
        }
        assert_eq!(parse_level("warn"), None);
        let data = RawValue::from_string("{\"a\":1}".into()).unwrap();
        let p = MessageParams { level: LoggingLevel::Error, logger: Some("t"), data: &data };
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"level":"error","logger":"t","data":{"a":1}}"#);
    }
}
