//! JSON text: the canonical writer, RFC 8785 (the JSON Canonicalization Scheme).
//!
//! Near the bottom of the crate: it imports only `swar`. Everything that writes JSON text by
//! hand uses these, so there is one escaper and one number format:
//!
//! - [`canonical_json`]: a whole value in canonical form (schemas, structured results);
//!   `write_canonical` appends one, and `write_canonical_object` an object put together
//!   from parts (`ArgSpec`'s input schema, written without building it);
//! - `push_json_string` / `json_string`: one string literal, escaped minimally;
//! - `next_escape`: the first byte a string must escape (the escaper's search, and the
//!   string reader of `protocol::raw_value`);
//! - `json_number`: one number as ECMAScript writes it (`3`, not `3.0`);
//! - `es6_number`: ECMAScript's `Number.prototype.toString` for a finite double;
//! - `skip_whitespace`: past JSON's whitespace, for the readers that scan text by hand.
//!
//! # The canonical form
//!
//! - no whitespace;
//! - object members sorted by the UTF-16 code units of their names;
//! - strings escaped minimally: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other control
//!   characters as `\u00xx` (lower-case hex), everything else literal;
//! - integers as plain decimal; other numbers as ECMAScript's `Number.prototype.toString`
//!   writes them.
//!
//! Because the writer sorts members itself, the bytes do not depend on the order a
//! `serde_json::Map` keeps, so they are the same whether or not cargo unifies serde_json's
//! `preserve_order` feature into the build. serde_json's own string escaping is the same as
//! [`push_json_string`]'s, so text written by a `#[derive(Serialize)]` and text written here
//! agree byte for byte.

use std::fmt::Write;

use serde_json::Value;

use crate::swar;

/// Write `value` in canonical form (RFC 8785; the rules are in this module's docs and on
/// toolwire's `Schema`).
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, value);
    out
}

/// The first position at or after `at` in `bytes` that is not JSON whitespace (space, tab,
/// line feed, carriage return): the hand-written readers (`protocol::call_scan`,
/// `protocol::raw_value`, `args::members`) step over it with this.
pub fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Append `s` as a JSON string literal, escaped minimally (RFC 8785 §3.2.2.2).
///
/// The runs between characters that need escaping are copied whole (every escaped
/// character is ASCII, so a run always ends on a character boundary), and found eight bytes
/// at a time: every call result's text goes through here.
pub fn push_json_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = next_escape(bytes, start) {
        out.push_str(&s[start..i]);
        start = i + 1;
        let short = match bytes[i] {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0c => "\\f",
            b'\r' => "\\r",
            control => {
                let _ = write!(out, "\\u{control:04x}");
                continue;
            }
        };
        out.push_str(short);
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The first byte at or after `from` that a JSON string must escape: `"`, `\\`, or a
/// control character (below 0x20). `protocol::raw_value` reads strings with it too.
///
/// Eight bytes at a time while eight are left; a word's lowest flag is exact in each of the
/// three masks (module `swar`), so the lowest of their union is the first such byte. Most
/// strings end within their first words; past the first four, `next_escape_in_long_run`
/// takes over (kept apart so that this stays small enough to inline where strings are read).
#[inline(always)]
pub fn next_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    let start = from;
    while let Some(chunk) = bytes.get(from..from + 8) {
        let escaped = escapes(swar::word(chunk.try_into().unwrap_or(&[0; 8])));
        if escaped != 0 {
            return Some(from + escaped.trailing_zeros() as usize / 8);
        }
        from += 8;
        if from - start == 32 {
            return next_escape_in_long_run(bytes, from);
        }
    }
    bytes.get(from..)?.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\').map(|i| from + i)
}

/// [`next_escape`] past a string's first 32 bytes: thirty-two at a time while nothing is
/// found (a file's text in an argument or a result: one branch a block, its four words
/// independent, so they overlap in the CPU), then [`next_escape`] from the block that has
/// one (found within its first four words) or from the last bytes (fewer than 32 left).
#[inline(never)]
fn next_escape_in_long_run(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(block) = bytes.get(from..from + 32) {
        let any = block
            .chunks_exact(8)
            .fold(0, |any, chunk| any | escapes(swar::word(chunk.try_into().unwrap_or(&[0; 8]))));
        if any != 0 {
            break;
        }
        from += 32;
    }
    next_escape(bytes, from)
}

/// The bytes of `w` a JSON string must escape (`"`, `\\`, below 0x20); the lowest flag is
/// exact.
fn escapes(w: u64) -> u64 {
    swar::bytes_below(w, 0x20)
        | swar::zero_bytes(w ^ swar::splat(b'"'))
        | swar::zero_bytes(w ^ swar::splat(b'\\'))
}

/// `s` as a JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    out
}

/// A number as JSON: integral values without a fraction (`3`, not `3.0`), others in their
/// shortest form. Non-finite values, which JSON cannot carry, become `0`.
pub fn json_number(n: f64) -> String {
    match serde_json::Number::from_f64(n) {
        Some(num) => {
            let mut out = String::new();
            write_number(&mut out, &num);
            out
        }
        None => "0".to_owned(),
    }
}

/// The canonical order of two member names: by their UTF-16 code units (RFC 8785 §3.2.3).
fn canonical_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Append `value` in canonical form to `out`.
pub fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => push_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_canonical_object(out, map.iter().map(|(k, v)| (k.as_str(), v)).collect()),
    }
}

/// Append the object of `members` (names distinct) in canonical form to `out`.
pub fn write_canonical_object(out: &mut String, mut members: Vec<(&str, &Value)>) {
    members.sort_by(|(a, _), (b, _)| canonical_order(a, b));
    out.push('{');
    for (i, (name, member)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(out, name);
        out.push(':');
        write_canonical(out, member);
    }
    out.push('}');
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
pub fn es6_number(f: f64) -> String {
    if f == 0.0 {
        return "0".to_owned();
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let (digits, exp) = shortest_digits(f.abs());
    let k = digits.len() as i32;
    let n = exp + 1;
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

/// The shortest digits that read back as `f` (positive, finite), and the decimal exponent of
/// the first: `f = d.ddd × 10^exp`. Of two shortest candidates equally close to `f`,
/// ECMAScript takes the even one (Number::toString, step 5); `{:e}` may take the other, so a
/// tie is checked against `f`'s exact decimal expansion.
fn shortest_digits(f: f64) -> (String, i32) {
    fn split(sci: &str) -> (String, i32) {
        let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
        let digits = mantissa.chars().filter(|c| *c != '.').collect();
        (digits, exp.parse().expect("the exponent is an integer"))
    }
    let (digits, exp) = split(&format!("{f:e}"));
    let k = digits.len();
    // A tie needs the digit after the shortest ones to be exactly 5: check cheaply first.
    let (next, next_exp) = split(&format!("{f:.k$e}"));
    if next_exp != exp || !next.ends_with('5') {
        return (digits, exp);
    }
    // Every double has a finite decimal expansion of at most 767 significant digits.
    let (exact, exact_exp) = split(&format!("{f:.767e}"));
    if exact_exp != exp || exact.as_bytes()[k] != b'5' || exact[k + 1..].bytes().any(|b| b != b'0') {
        return (digits, exp);
    }
    let below = &exact[..k];
    let even = below.as_bytes()[k - 1] % 2 == 0;
    let want = if even { below.to_owned() } else { increment(below) };
    let reads_back =
        want.len() == k && format!("{want}e{}", exp - (k as i32 - 1)).parse::<f64>().is_ok_and(|g| g == f);
    if reads_back { (want, exp) } else { (digits, exp) }
}

/// A string of decimal digits plus one in its last place (longer when it carries out).
fn increment(digits: &str) -> String {
    let mut out = digits.as_bytes().to_vec();
    for b in out.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            return String::from_utf8(out).expect("ASCII digits");
        }
    }
    out.insert(0, b'1');
    String::from_utf8(out).expect("ASCII digits")
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

    /// RFC 8785 §3.2.3: the sorting example, whose names differ in UTF-16 and UTF-8 order.
    #[test]
    fn rfc8785_sorting_vector() {
        let v: Value = serde_json::from_str(
            r#"{
              "\u20ac": "Euro Sign",
              "\r": "Carriage Return",
              "\ufb33": "Hebrew Letter Dalet With Dagesh",
              "1": "One",
              "\ud83d\ude00": "Emoji: Grinning Face",
              "\u0080": "Control",
              "\u00f6": "Latin Small Letter O With Diaeresis"
            }"#,
        )
        .unwrap();
        assert_eq!(
            canonical_json(&v),
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\
             \"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\
             \"\u{1f600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}"
        );
    }

    /// RFC 8785 §3.2.2: the example of numbers, strings and literals together. The numbers
    /// are Rust literals, not parsed by serde_json: without its `float_roundtrip` feature
    /// (which a build may or may not unify in), it can read `333333333.33333329` as the
    /// neighbouring double.
    #[test]
    #[allow(clippy::excessive_precision, reason = "the RFC's input, digit for digit")]
    fn rfc8785_serialization_vector() {
        let string: Value =
            serde_json::from_str(r#""\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/""#).unwrap();
        let v = json!({
            "numbers": [333333333.33333329_f64, 1E30_f64, 4.50_f64, 2e-3_f64, 0.000000000000000000000000001_f64],
            "string": string,
            "literals": [null, true, false],
        });
        assert_eq!(
            canonical_json(&v),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    #[test]
    fn strings_escape_minimally() {
        let v = json!("q\"b\\\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}é\u{2028}");
        assert_eq!(canonical_json(&v), "\"q\\\"b\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}é\u{2028}\"");
        assert_eq!(json_string("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"");
        // What we write is what serde reads, and what serde writes.
        let s = "\u{7f}\u{2028}\t\u{1f}\"\\\u{8}\u{c}";
        let back: String = serde_json::from_str(&json_string(s)).unwrap();
        assert_eq!(back, s);
        assert_eq!(serde_json::to_string(s).unwrap(), json_string(s));
        // Byte for byte serde's, for every ASCII character, alone, first, last, and in a
        // run, and for characters of every UTF-8 length.
        for c in (0u8..0x80).map(char::from).chain(['é', '€', '\u{2028}', '😀']) {
            for s in [c.to_string(), format!("{c}ab"), format!("ab{c}"), format!("a{c}{c}b{c}")] {
                assert_eq!(json_string(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
            }
        }
        // At every place in and across the eight-byte words the search reads at once.
        for len in 0..24 {
            for at in 0..len {
                for c in ['"', '\\', '\u{0}', '\u{1f}', '\n', ' ', '\u{7f}', 'é'] {
                    let s: String = (0..len).map(|i| if i == at { c } else { 'x' }).collect();
                    assert_eq!(json_string(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
                }
            }
        }
    }

    /// Past the first four words the search goes a block of four at a time: a needle in
    /// any block, at any offset in it, from any start, is found first.
    #[test]
    fn next_escape_finds_the_first_in_a_long_run() {
        for len in [64, 65, 95, 96, 97, 131, 200] {
            assert_eq!(next_escape(&vec![b'x'; len], 0), None);
            for at in 0..len {
                for needle in [b'"', b'\\', 0x01] {
                    let mut bytes = vec![0x7f; len];
                    bytes[at] = needle;
                    if at + 9 < len {
                        bytes[at + 9] = b'"';
                    }
                    for from in [0, 1, 7, at.saturating_sub(33), at] {
                        assert_eq!(
                            next_escape(&bytes, from.min(at)),
                            Some(at),
                            "len {len}, at {at}, from {from}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn next_escape_finds_the_first_wherever_it_lies() {
        // Bytes one step either side of the three needles and high bytes (which a borrow
        // could flag), the needle anywhere in and across words, more needles after it.
        for len in 0..40 {
            for filler in [b'x', 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff] {
                assert_eq!(next_escape(&vec![filler; len], 0), None);
                for at in 0..len {
                    for needle in [b'"', b'\\', 0x00, 0x1f] {
                        let mut bytes = vec![filler; len];
                        bytes[at] = needle;
                        for later in at + 1..len.min(at + 4) {
                            bytes[later] = [b'"', 0x1f, b'\\'][later % 3];
                        }
                        for from in [0, at / 2, at] {
                            assert_eq!(next_escape(&bytes, from), Some(at), "{bytes:?} from {from}");
                        }
                    }
                }
            }
        }
        assert_eq!(next_escape(b"ab", 2), None);
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
        assert_eq!(json_number(3.0), "3");
        assert_eq!(json_number(0.5), "0.5");
        assert_eq!(json_number(f64::NAN), "0");
        assert_eq!(json_number(f64::INFINITY), "0");
    }

    /// RFC 8785 Appendix B: IEEE 754 bit patterns and the text each must be written as.
    /// NaN and Infinity (`7fffffffffffffff`, `7ff0000000000000`) have no JSON form; serde_json
    /// cannot hold them in a `Value`, and `json_number` writes them as `0`.
    #[test]
    fn rfc8785_appendix_b_numbers() {
        let cases: [(u64, &str); 24] = [
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for (bits, want) in cases {
            let f = f64::from_bits(bits);
            assert_eq!(es6_number(f), want, "{bits:016x}");
            // Through a `Value`, as a structured result or a schema is written.
            assert_eq!(canonical_json(&json!(f)), want, "{bits:016x} as a Value");
        }
        assert_eq!(json_number(f64::from_bits(0x7fffffffffffffff)), "0");
        assert_eq!(json_number(f64::from_bits(0x7ff0000000000000)), "0");
    }
}
