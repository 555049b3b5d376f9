//! The notifications this server reads (`notifications/cancelled`) and writes
//! (`notifications/progress`).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::json::{json_number, push_json_string};

/// `notifications/cancelled` params. Read leniently: a malformed cancellation is ignored, as
/// the spec asks.
#[derive(Debug, Deserialize)]
pub struct CancelledParams<'a> {
    /// The id of the request to cancel, raw.
    #[serde(rename = "requestId", borrow)]
    pub request_id: &'a RawValue,
    /// Why, for the log.
    #[serde(default)]
    pub reason: Option<String>,
}

/// The params of a `notifications/progress` for `token` (raw JSON: a string or an integer).
///
/// Written by hand, not derived: the numbers go out as ECMAScript writes them (`2`, not
/// `2.0`), as every other number this crate writes.
pub fn progress_params(token: &RawValue, progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let mut out = String::from("{\"progressToken\":");
    out.push_str(token.get());
    out.push_str(",\"progress\":");
    out.push_str(&json_number(progress));
    if let Some(total) = total {
        out.push_str(",\"total\":");
        out.push_str(&json_number(total));
    }
    if let Some(message) = message {
        out.push_str(",\"message\":");
        push_json_string(&mut out, message);
    }
    out.push('}');
    out
}

/// Whether raw JSON is a usable progress token: MCP allows a string or an integer.
pub fn is_progress_token(raw: &RawValue) -> bool {
    super::id::RequestId::from_raw(raw).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_params_are_exact() {
        let token = RawValue::from_string("\"t1\"".into()).unwrap();
        assert_eq!(
            progress_params(&token, 2.0, Some(3.0), Some("half")),
            r#"{"progressToken":"t1","progress":2,"total":3,"message":"half"}"#
        );
        assert_eq!(progress_params(&token, 0.25, None, None), r#"{"progressToken":"t1","progress":0.25}"#);
        assert!(is_progress_token(&token));
        assert!(!is_progress_token(&RawValue::from_string("1.5".into()).unwrap()));
        assert!(!is_progress_token(&RawValue::from_string("{}".into()).unwrap()));
    }
}
