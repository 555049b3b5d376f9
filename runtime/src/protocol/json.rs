//! Small JSON text helpers for building outbound messages by hand: the envelope around a
//! pre-serialised body is a few string pushes, so no `Value` is built per message.

use std::fmt::Write;

/// Append `s` as a JSON string literal, escaped minimally (the same escapes RFC 8785 uses).
pub(crate) fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `s` as a JSON string literal.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    out
}

/// A number as JSON: integral values without a fraction (`3`, not `3.0`), others in their
/// shortest form. Non-finite values, which JSON cannot carry, become `0`.
pub(crate) fn json_number(n: f64) -> String {
    match serde_json::Number::from_f64(n) {
        Some(num) => crate::schema::canonical_json(&serde_json::Value::Number(num)),
        None => "0".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_and_numbers_drop_needless_fractions() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"");
        assert_eq!(json_number(3.0), "3");
        assert_eq!(json_number(0.5), "0.5");
        assert_eq!(json_number(f64::NAN), "0");
        // What we write is what serde reads.
        let back: String = serde_json::from_str(&json_string("\u{7f}\u{2028}\t")).unwrap();
        assert_eq!(back, "\u{7f}\u{2028}\t");
    }
}
