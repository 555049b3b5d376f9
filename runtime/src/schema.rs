//! Canonical, byte-stable JSON Schemas: [`Schema`] and [`canonical_json`].

use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

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

/// Write `value` in canonical form (RFC 8785; see [`Schema`] for the rules).
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            // RFC 8785 §3.2.3: sort by the UTF-16 code units of the names.
            members.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, (name, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, name);
                out.push(':');
                write_value(out, member);
            }
            out.push('}');
        }
    }
}

/// RFC 8785 escapes strings minimally, which is exactly how outbound messages escape them.
fn write_string(out: &mut String, s: &str) {
    crate::protocol::json::push_json_string(out, s);
}

fn write_number(out: &mut String, n: &serde_json::Number) {
    if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else if let Some(f) = n.as_f64() {
        out.push_str(&es6_number(f));
    } else {
        // Arbitrary-precision numbers (a feature serde_json may be built with) keep their text.
        out.push_str(&n.to_string());
    }
}

/// ECMAScript's `Number.prototype.toString` for a finite double (RFC 8785 §3.2.2.3).
fn es6_number(f: f64) -> String {
    if f == 0.0 {
        return "0".to_owned();
    }
    let sign = if f < 0.0 { "-" } else { "" };
    // `{:e}` gives the shortest digits that read back, as `d.ddde±x`.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let digits = ties_to_even(mantissa.chars().filter(|c| *c != '.').collect(), f.abs(), exp);
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().expect("exponent is an integer") + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let sign_e = if e < 0 { "-" } else { "+" };
        let rest = if k > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        format!("{}{rest}e{sign_e}{}", &digits[..1], e.abs())
    };
    format!("{sign}{body}")
}

/// Of two shortest digit strings exactly as close to `f`, ECMAScript takes the even one;
/// `{:e}` may give the odd one (RFC 8785's `1424953923781206.2`, which is
/// 1424953923781206.25 exactly). `digits` are `f`'s shortest digits, `exp` their exponent.
fn ties_to_even(digits: String, f: f64, exp: &str) -> String {
    let Some(last) = digits.bytes().last().filter(|d| (d - b'0') % 2 == 1) else { return digits };
    // `f` exactly: a double has at most 767 significant decimal digits.
    let exact = format!("{f:.800e}");
    let Some((m, e)) = exact.split_once('e') else { return digits };
    let exact: String = m.chars().filter(|c| *c != '.').collect();
    let head = &digits[..digits.len() - 1];
    for even in [last - 1, last + 1] {
        let mid = format!("{head}{}5", char::from(last.min(even)));
        let candidate = format!("{head}{}", char::from(even));
        let text = format!("{}.{}e{exp}", &candidate[..1], &candidate[1..]);
        if e == exp && exact.trim_end_matches('0') == mid && text.parse::<f64>() == Ok(f) {
            return candidate;
        }
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_sort_by_utf16_and_nest() {
        let v = json!({"b": 1, "a": {"z": [3, {"y": null, "x": true}], "\u{e000}": 1, "\u{1f600}": 2}});
        assert_eq!(
            canonical_json(&v),
            "{\"a\":{\"z\":[3,{\"x\":true,\"y\":null}],\"\u{1f600}\":2,\"\u{e000}\":1},\"b\":1}"
        );
    }

    #[test]
    fn strings_escape_minimally() {
        let v = json!("q\"b\\\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}é\u{2028}");
        assert_eq!(canonical_json(&v), "\"q\\\"b\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}é\u{2028}\"");
    }

    #[test]
    fn numbers_follow_ecmascript() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (-2.25, "-2.25"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (123456789.125, "123456789.125"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ];
        for (f, want) in cases {
            assert_eq!(es6_number(f), want, "{f}");
        }
        assert_eq!(canonical_json(&json!([1, -7, u64::MAX, 2.0])), "[1,-7,18446744073709551615,2]");
    }

    #[test]
    fn empty_object_schema_is_canonical() {
        assert_eq!(Schema::empty_object().as_str(), r#"{"additionalProperties":false,"type":"object"}"#);
    }
}
