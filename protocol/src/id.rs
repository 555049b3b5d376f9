//! [`RequestId`], a JSON-RPC request id that keeps its type, and the rules for reading one.
//!
//! MCP requires a string or an integer and forbids `null`. An id is echoed with the type it
//! arrived with: `7` stays `7` and `"7"` stays `"7"`, because a client matches responses by
//! value *and* type. Integers are held as `i64`; an integer outside that range, a number with
//! a fraction or an exponent (`1.0`, `1e3`), a boolean, an array or an object is refused.

use std::fmt;

use serde_json::value::RawValue;

use crate::json::push_json_string;

/// A JSON-RPC request id: a string or an integer, never `null`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id, e.g. `7`.
    Number(i64),
    /// A string id, e.g. `"abc"`.
    String(String),
}

/// Why a raw `id` member is not a usable request id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadId {
    /// `"id": null`, which MCP forbids on requests.
    Null,
    /// Any other unusable value; the text says what arrived.
    Invalid(&'static str),
}

impl BadId {
    /// The sentence an error response carries.
    pub fn message(&self) -> String {
        match self {
            BadId::Null => "invalid request: the request id must not be null".to_owned(),
            BadId::Invalid(what) => {
                format!("invalid request: the request id must be a string or an integer, got {what}")
            }
        }
    }
}

impl RequestId {
    /// Read an id from its raw JSON text.
    pub fn from_raw(raw: &RawValue) -> Result<RequestId, BadId> {
        let text = raw.get().trim();
        match text.as_bytes().first() {
            Some(b'"') => match serde_json::from_str::<String>(text) {
                Ok(s) => Ok(RequestId::String(s)),
                Err(_) => Err(BadId::Invalid("a malformed string")),
            },
            Some(b'n') => Err(BadId::Null),
            Some(b't' | b'f') => Err(BadId::Invalid("a boolean")),
            Some(b'[') => Err(BadId::Invalid("an array")),
            Some(b'{') => Err(BadId::Invalid("an object")),
            Some(_) if text.contains(['.', 'e', 'E']) => {
                Err(BadId::Invalid("a number with a fraction or an exponent"))
            }
            Some(_) => text
                .parse::<i64>()
                .map(RequestId::Number)
                .map_err(|_| BadId::Invalid("an integer outside the 64-bit signed range")),
            None => Err(BadId::Invalid("nothing")),
        }
    }

    /// Append the id as JSON.
    pub fn write_json(&self, out: &mut String) {
        match self {
            RequestId::Number(n) => out.push_str(itoa::Buffer::new().format(*n)),
            RequestId::String(s) => push_json_string(out, s),
        }
    }

    /// The id as JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

impl fmt::Display for RequestId {
    /// As JSON: `7` or `"abc"`, so a log line shows the type too.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<RequestId, BadId> {
        RequestId::from_raw(&RawValue::from_string(text.to_owned()).unwrap())
    }

    #[test]
    fn ids_keep_their_type() {
        assert_eq!(read("7"), Ok(RequestId::Number(7)));
        assert_eq!(read("-3"), Ok(RequestId::Number(-3)));
        assert_eq!(read(r#""7""#), Ok(RequestId::String("7".into())));
        assert_eq!(read(r#""a\u0062""#), Ok(RequestId::String("ab".into())));
        assert_eq!(read("7").unwrap().to_json(), "7");
        for n in [0, -3, i64::MAX, i64::MIN] {
            assert_eq!(read(&n.to_string()).unwrap().to_json(), n.to_string());
        }
        assert_eq!(read(r#""q\"""#).unwrap().to_json(), r#""q\"""#);
    }

    #[test]
    fn unusable_ids_are_refused_with_a_reason() {
        assert_eq!(read("null"), Err(BadId::Null));
        assert_eq!(
            read("1.0").unwrap_err().message(),
            "invalid request: the request id must be a string or an integer, got a number with a fraction or an exponent"
        );
        assert_eq!(read("1e3"), Err(BadId::Invalid("a number with a fraction or an exponent")));
        assert_eq!(read("true"), Err(BadId::Invalid("a boolean")));
        assert_eq!(read("[1]"), Err(BadId::Invalid("an array")));
        assert_eq!(read("{}"), Err(BadId::Invalid("an object")));
        assert_eq!(
            read("9223372036854775808"),
            Err(BadId::Invalid("an integer outside the 64-bit signed range"))
        );
        assert_eq!(BadId::Null.message(), "invalid request: the request id must not be null");
    }
}
