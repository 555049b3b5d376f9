//! Canonical, byte-stable JSON Schemas: [`Schema`]. The canonical writer itself is
//! `crate::json`.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The RFC 8785 canonical form of a JSON value: what every advertised schema is written in.
pub use crate::json::canonical_json;

/// A JSON Schema held in canonical form: the bytes that go on the wire, plus the parsed value.
///
/// Cloning is cheap: the text and its parsed forms are shared.
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
pub struct Schema(Arc<Forms>);

/// A schema's canonical text, and the forms made from it when first asked for: a server that
/// only lists its tools writes the text and never needs the other two.
struct Forms {
    text: Box<str>,
    value: OnceLock<Value>,
    raw: OnceLock<Box<RawValue>>,
}

impl Schema {
    /// Canonicalise a schema value.
    pub fn from_value(value: Value) -> Schema {
        let text = canonical_json(&value).into_boxed_str();
        Schema(Arc::new(Forms { text, value: OnceLock::from(value), raw: OnceLock::new() }))
    }

    /// A schema from text already in canonical form (`crate::json` wrote it); its value is
    /// parsed from the text when first asked for.
    pub(crate) fn from_canonical(text: String) -> Schema {
        debug_assert!(serde_json::from_str::<Value>(&text).is_ok_and(|v| canonical_json(&v) == text));
        Schema(Arc::new(Forms { text: text.into_boxed_str(), value: OnceLock::new(), raw: OnceLock::new() }))
    }

    /// The schema of a tool without parameters: `{"additionalProperties":false,"type":"object"}`.
    pub fn empty_object() -> Schema {
        Schema::from_value(serde_json::json!({"type": "object", "additionalProperties": false}))
    }

    /// The canonical bytes, as text.
    pub fn as_str(&self) -> &str {
        &self.0.text
    }

    /// The canonical bytes as a raw JSON value, for embedding verbatim in a message.
    pub fn as_raw(&self) -> &RawValue {
        self.0.raw.get_or_init(|| {
            RawValue::from_string(self.0.text.to_string()).expect("canonical JSON is always valid JSON")
        })
    }

    /// The parsed schema: the value it was made from ([`from_value`](Self::from_value)), or
    /// for a `#[tool]`'s input schema (written as text from its parts) the canonical bytes
    /// parsed when first asked for, so its objects keep the canonical member order.
    pub fn value(&self) -> &Value {
        self.0
            .value
            .get_or_init(|| serde_json::from_str(&self.0.text).expect("canonical JSON is always valid JSON"))
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
        self.as_raw().serialize(serializer)
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
