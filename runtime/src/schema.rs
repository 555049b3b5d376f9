//! Canonical, byte-stable JSON Schemas: [`Schema`]. The canonical writer itself is
//! `crate::json`.

use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The RFC 8785 canonical form of a JSON value: what every advertised schema is written in.
pub use crate::json::canonical_json;

/// A JSON Schema held in canonical form: the bytes that go on the wire, plus the parsed value.
///
/// Cloning is cheap: both halves are shared.
///
/// # The canonical form
///
/// Every schema toolwire advertises, and every structured result it prints as text, is
/// written in one form: the JSON Canonicalization Scheme of RFC 8785.
///
/// - no whitespace;
/// - object members sorted by the UTF-16 code units of their names;
/// - strings escaped minimally: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other control
///   characters as `\u00xx` (lower-case hex), everything else literal;
/// - integers as plain decimal; other numbers as ECMAScript's `Number.prototype.toString`
///   writes them.
///
/// The dialect is JSON Schema 2020-12, the MCP default, so schemas carry no `$schema` key.
/// Referenced types live under `$defs` and are reached by `#/$defs/...` references.
///
/// Because the canonical writer sorts members itself, the bytes do not depend on the order
/// a `serde_json::Map` keeps, so they are the same whether or not cargo unifies serde_json's
/// `preserve_order` feature into the build. A schema is serialised once, kept as bytes
/// (this type), and those bytes are sent verbatim.
#[derive(Clone)]
pub struct Schema {
    raw: Arc<RawValue>,
    value: Arc<Value>,
}

impl Schema {
    /// Canonicalise a schema value.
    pub fn from_value(value: Value) -> Schema {
        let text = canonical_json(&value);
        let raw: Box<RawValue> = RawValue::from_string(text).expect("canonical JSON is always valid JSON");
        Schema { raw: Arc::from(raw), value: Arc::new(value) }
    }

    /// The schema of a tool without parameters: `{"additionalProperties":false,"type":"object"}`.
    pub fn empty_object() -> Schema {
        Schema::from_value(serde_json::json!({"type": "object", "additionalProperties": false}))
    }

    /// The canonical bytes, as text.
    pub fn as_str(&self) -> &str {
        self.raw.get()
    }

    /// The canonical bytes as a raw JSON value, for embedding verbatim in a message.
    pub fn as_raw(&self) -> &RawValue {
        &self.raw
    }

    /// The parsed schema.
    pub fn value(&self) -> &Value {
        &self.value
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Schema").field(&self.as_str()).finish()
    }
}

impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Schema {}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_object_schema_is_canonical() {
        assert_eq!(Schema::empty_object().as_str(), r#"{"additionalProperties":false,"type":"object"}"#);
    }
}
