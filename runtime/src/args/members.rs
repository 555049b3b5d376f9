//! The members of a call's arguments object, found without parsing their values.
//!
//! Arguments arrive as a `RawValue`, which serde_json has already checked is valid JSON. So
//! finding each member's name and the extent of its value needs no validation, only
//! structure: a string ends at its first unescaped quote, an array or object at the bracket
//! that closes it (strings skipped), anything else before the next `,`, `}`, `]` or
//! whitespace. Each value is then read once, by its parameter's type ([`super::Args::take`]);
//! before, serde read every value twice (once to find it, once into its type).
//!
//! A member name with an escape (`"na\u006de"`) is not one this reads: [`each_member`] says
//! so, and the caller reads the object with serde instead.

use crate::json::skip_whitespace;

/// Call `member(name, value)` for each member of `object`, a JSON object's valid text, in
/// order; `value` is the member's raw JSON text. `None` when a name has an escape, or the
/// text is not an object; `member` may have been called for earlier members by then.
pub(crate) fn each_member<'a>(object: &'a str, mut member: impl FnMut(&'a str, &'a str)) -> Option<()> {
    let bytes = object.as_bytes();
    let mut at = skip_whitespace(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_whitespace(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(());
    }
    loop {
        let name_end = string_end(bytes, at)?;
        let name = object.get(at + 1..name_end - 1)?;
        if name.contains('\\') {
            return None;
        }
        at = skip_whitespace(bytes, name_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_whitespace(bytes, at + 1);
        let end = value_end(bytes, start)?;
        member(name, object.get(start..end)?);
        at = skip_whitespace(bytes, end);
        match bytes.get(at)? {
            b',' => at = skip_whitespace(bytes, at + 1),
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

/// Just past the string that starts at `at` (its opening quote).
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        // An escape: the backslash and the character it escapes (`\u` takes its four hex
        // digits as ordinary characters).
        i += 2;
    }
}

/// Just past the value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - at);
            Some(at + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(text: &str) -> Option<Vec<(&str, &str)>> {
        let mut found = Vec::new();
        each_member(text, |name, value| found.push((name, value)))?;
        Some(found)
    }

    #[test]
    fn members_and_their_raw_values_in_order() {
        assert_eq!(members("{}"), Some(vec![]));
        assert_eq!(members(" { } "), Some(vec![]));
        assert_eq!(
            members(
                r#" {"s" : "a\"b\\" , "n":-1.5e3,"t":true,"z":null, "o":{"x":["}",{"y":"]"}]},"a":[1,[2]],"e":""} "#
            ),
            Some(vec![
                ("s", r#""a\"b\\""#),
                ("n", "-1.5e3"),
                ("t", "true"),
                ("z", "null"),
                ("o", r#"{"x":["}",{"y":"]"}]}"#),
                ("a", "[1,[2]]"),
                ("e", r#""""#),
            ])
        );
        assert_eq!(members("{\"u\":\"\\u0022\",\"v\":1}"), Some(vec![("u", "\"\\u0022\""), ("v", "1")]));
    }

    #[test]
    fn an_escaped_name_or_another_value_is_left_to_serde() {
        assert_eq!(members(r#"{"na\u006de":1}"#), None);
        assert_eq!(members("[1]"), None);
        assert_eq!(members(r#""{}""#), None);
        assert_eq!(members("1"), None);
    }

    /// What serde finds in the same object, for every value kind and spacing: the same
    /// names, repeats included, with the same raw values.
    #[test]
    fn serde_finds_the_same_members() {
        for text in [
            r#"{"a":1,"b":[{"c":"]}"}],"d":{"e":null},"f":"x\"y","g":-0.5,"h":false}"#,
            "{\n  \"a\" : [ 1 , 2 ] ,\n  \"b\" : { } , \"c\":1e5\n}",
            r#"{"a":"\\","b":"\\\"","c":[[[]]],"a":2}"#,
        ] {
            let mut ours = Vec::new();
            each_member(text, |n, v| ours.push((n.to_owned(), v.to_owned()))).unwrap();
            assert_eq!(ours, by_serde(text), "{text}");
        }
    }

    /// Each member's name and raw value as serde reads them, in order.
    fn by_serde(text: &str) -> Vec<(String, String)> {
        use serde::de::{Deserializer as _, MapAccess, Visitor};
        use serde_json::value::RawValue;
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    let value: &RawValue = map.next_value()?;
                    members.push((name, value.get().to_owned()));
                }
                Ok(members)
            }
        }
        serde_json::Deserializer::from_str(text).deserialize_map(Members).unwrap()
    }
}
