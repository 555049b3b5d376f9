//! One JSON value in a message, found by hand and lent out as serde_json's `&RawValue`.
//!
//! The hand scan of a `tools/call` (module `call_scan`) needs its `arguments` as a
//! `&RawValue`, which is what a toolwire `Tool` receives. Asking serde_json for one
//! (`<&RawValue>::deserialize`) runs its general `ignore_value` over the value, and the scan
//! then counted the value's brackets for a depth bound; [`read`] does both in one pass, in
//! about two thirds of the instructions (bench/findings.md, session 23), in two steps:
//!
//! 1. [`value_end`] finds where the value ends, checking it as serde_json's own reader
//!    does: the same grammar (strings without a control character and with only JSON's
//!    escapes, `\u` and four hex digits; numbers without a leading zero, with digits after
//!    a `.` and an exponent; `true`, `false`, `null`; no trailing comma; string keys), so
//!    that the text lent out is always JSON serde_json would have lent. It is stricter in
//!    one way only: nesting deeper than [`MAX_DEPTH`] is turned away, so a message it reads
//!    cannot reach the serde decode's depth limit either.
//! 2. `lend` hands that text to serde_json's `&RawValue` deserializer without a second
//!    pass, through the protocol serde_json itself uses to lend one (its `raw` module): a
//!    map of one member, named by `RAW_VALUE_TOKEN`, whose value is the text, borrowed.
//!    No `unsafe`: should a later serde_json change that protocol, the deserialize fails,
//!    [`read`] answers `None`, and every call takes the serde decode (slower, never wrong;
//!    the call scan's own tests would fail first).
//!
//! Whatever `read` turns away, the caller reads with serde_json, as before. The fuzz target
//! `raw_value` holds [`value_end`] to serde_json's verdict and end on arbitrary text.

use serde::Deserialize as _;
use serde::de::value::{BorrowedStrDeserializer, Error, MapAccessDeserializer};
use serde::de::{DeserializeSeed, MapAccess};
use serde_json::value::RawValue;

use crate::json::{next_escape, skip_whitespace};

/// The deepest nesting [`value_end`] reads: a `tools/call`'s `arguments` sit two objects
/// deep in the message, and the serde decode stops at 128 levels.
pub const MAX_DEPTH: u32 = 120;

/// The member name by which serde_json's `&RawValue` deserializer recognises a lent value
/// (`serde_json::raw::TOKEN`, not exported).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The JSON value at `at` in `text` (no whitespace before it), lent as a `&RawValue`, and
/// where it ends; `None` if it is not one serde_json would read there, or nests deeper than
/// [`MAX_DEPTH`].
///
/// `#[inline]`, as [`value_end`]: public (toolwire's fuzz entry points call both), neither is
/// inlined into the call scan unless asked, as it was while they were private to one crate;
/// asked, a stdio call is 13 instructions shorter (bench/findings.md, session 30).
#[inline]
pub fn read(text: &str, at: usize) -> Option<(&RawValue, usize)> {
    let end = value_end(text.as_bytes(), at)?;
    Some((lend(text.get(at..end)?)?, end))
}

/// `json`, which [`value_end`] has checked, as the `&RawValue` serde_json would lend.
fn lend(json: &str) -> Option<&RawValue> {
    <&RawValue>::deserialize(MapAccessDeserializer::new(Lent(Some(json)))).ok()
}

/// The one member serde_json's raw-value visitor asks for. serde's own `MapDeserializer`
/// over one pair of `BorrowedStrDeserializer`s does the same in 74 more instructions a call
/// (its count and its `end` check, and the visitor left out of line).
struct Lent<'a>(Option<&'a str>);

impl<'de> MapAccess<'de> for Lent<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.0 {
            Some(_) => seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let json = self.0.take().ok_or_else(|| serde::de::Error::custom("no value left"))?;
        seed.deserialize(BorrowedStrDeserializer::new(json))
    }
}

/// Just past the JSON value that starts at `at` (no whitespace before it), if serde_json
/// would read it there; `None` for anything it would refuse, and for nesting deeper than
/// [`MAX_DEPTH`]. What follows the value is not looked at.
#[inline]
pub fn value_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    // The open containers, innermost lowest: a set bit is an object, a clear one an array.
    let mut objects: u128 = 0;
    let mut depth = 0;
    loop {
        // A value starts at `at`.
        at = match *bytes.get(at)? {
            b'"' => string_end(bytes, at)?,
            open @ (b'{' | b'[') => {
                if depth == MAX_DEPTH {
                    return None;
                }
                let object = open == b'{';
                at = skip_whitespace(bytes, at + 1);
                if bytes.get(at) == Some(if object { &b'}' } else { &b']' }) {
                    at + 1
                } else {
                    objects = objects << 1 | u128::from(object);
                    depth += 1;
                    if object {
                        at = member_value(bytes, at)?;
                    }
                    continue;
                }
            }
            b't' => literal_end(bytes, at, b"true")?,
            b'f' => literal_end(bytes, at, b"false")?,
            b'n' => literal_end(bytes, at, b"null")?,
            b'-' | b'0'..=b'9' => number_end(bytes, at)?,
            _ => return None,
        };
        // A value ended just before `at`: close what it ends, or go on to the next element.
        loop {
            if depth == 0 {
                return Some(at);
            }
            at = skip_whitespace(bytes, at);
            let object = objects & 1 == 1;
            match *bytes.get(at)? {
                b',' => {
                    at = skip_whitespace(bytes, at + 1);
                    if object {
                        at = member_value(bytes, at)?;
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            objects >>= 1;
            depth -= 1;
            at += 1;
        }
    }
}

/// Past an object member's name and colon, starting at the name: where its value starts.
fn member_value(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let at = skip_whitespace(bytes, string_end(bytes, at)?);
    (bytes.get(at) == Some(&b':')).then(|| skip_whitespace(bytes, at + 1))
}

/// Just past the string whose opening quote is at `at`: no control character in it, and
/// only JSON's escapes (`\u` with four hex digits, whatever they encode, as serde_json
/// checks them when it skips a string).
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i = next_escape(bytes, i)?;
        match bytes[i] {
            b'"' => return Some(i + 1),
            b'\\' => match *bytes.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = bytes.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// Just past `literal` at `at`, if it is there.
fn literal_end(bytes: &[u8], at: usize, literal: &[u8]) -> Option<usize> {
    bytes[at..].starts_with(literal).then_some(at + literal.len())
}

/// Just past the number at `at`: an optional `-`, then `0` or a digit from 1 with more
/// digits, then optionally `.` and at least one digit, then optionally `e` or `E`, a sign
/// and at least one digit.
fn number_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    let digits = |from: usize| from + bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    if bytes[at] == b'-' {
        at += 1;
    }
    at = match *bytes.get(at)? {
        b'0' => at + 1,
        b'1'..=b'9' => digits(at + 1),
        _ => return None,
    };
    // A digit after a leading zero: serde_json refuses it (`01`).
    if bytes.get(at).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if bytes.get(at) == Some(&b'.') {
        let end = digits(at + 1);
        if end == at + 1 {
            return None;
        }
        at = end;
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = bytes.get(at) {
            at += 1;
        }
        let end = digits(at);
        if end == at {
            return None;
        }
        at = end;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde_json's verdict on the value at the start of `text`: where it ends.
    fn by_serde(text: &str) -> Option<usize> {
        let raw = <&RawValue>::deserialize(&mut serde_json::Deserializer::from_str(text)).ok()?;
        Some(raw.get().as_ptr() as usize - text.as_ptr() as usize + raw.get().len())
    }

    #[test]
    fn values_end_where_serde_json_ends_them() {
        for text in [
            "0",
            "-0",
            "12",
            "-1.5e3",
            "1E+2",
            "1e-0,",
            "0.0]",
            "true",
            "false}",
            "null x",
            r#""""#,
            r#""a\"b\\c\/\b\f\n\r\t\u00e9\uD800""#,
            "\"é ☃ 𝄞\"",
            "{}",
            "[]",
            "{ }",
            "[ ]",
            r#"{"a":1}"#,
            " {\"a\" : [1 , {\"b\":null} ] ,\"c\":\"}\" }",
            r#"[[[]],{},"]",{"x":[{"y":"{"}]}]"#,
            r#"{"text":"hi"} trailing"#,
            r#"{"a":{"a":{"a":{}}}}"#,
        ] {
            let text = text.trim_start();
            assert_eq!(value_end(text.as_bytes(), 0), by_serde(text), "{text}");
            assert!(by_serde(text).is_some(), "{text}");
        }
    }

    #[test]
    fn what_serde_json_refuses_is_refused() {
        for text in [
            "",
            "01",
            "-",
            "-a",
            "1.",
            "1.e3",
            "1e",
            "1e+",
            ".5",
            "+1",
            "tru",
            "nul",
            "True",
            "\"a",
            "\"a\tb\"",
            "\"\u{1}\"",
            r#""\x""#,
            r#""\u12""#,
            r#""\u12g4""#,
            "\"\\",
            "{",
            "[",
            "[1,]",
            "[,1]",
            "[1 2]",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            r#"{1:1}"#,
            r#"{"a":}"#,
            r#"{"a":1]"#,
            r#"[1}"#,
            "[[[]]",
            "}",
        ] {
            assert_eq!(by_serde(text), None, "serde_json reads {text:?}");
            assert_eq!(value_end(text.as_bytes(), 0), None, "{text:?}");
        }
    }

    #[test]
    fn nesting_is_read_to_the_limit_and_no_deeper() {
        let nested = |n: usize| {
            format!("{}1{}", "[{\"k\":".repeat(n / 2) + &"[".repeat(n % 2), {
                "]".repeat(n % 2) + &"}]".repeat(n / 2)
            })
        };
        let deepest = nested(MAX_DEPTH as usize);
        assert_eq!(value_end(deepest.as_bytes(), 0), Some(deepest.len()));
        assert_eq!(value_end(nested(MAX_DEPTH as usize + 1).as_bytes(), 0), None);
        // Containers closed in between do not count: only the depth does.
        let wide = "[[]],".repeat(200);
        let wide = format!("[{wide}1]");
        assert_eq!(value_end(wide.as_bytes(), 0), Some(wide.len()));
    }

    #[test]
    fn a_read_value_is_the_text_itself() {
        let text = r#"{"arguments":{"text":"hi"} }"#;
        let (raw, end) = read(text, 13).unwrap();
        assert_eq!((raw.get(), end), (r#"{"text":"hi"}"#, 26));
        assert_eq!(raw.get().as_ptr(), text[13..].as_ptr(), "lent, not copied");
        assert!(read(text, 12).is_none());
    }
}
