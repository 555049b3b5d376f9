//! A minimal scanner for the top level of one JSON object, std only.
//!
//! It finds the raw bytes of a key's value without building a tree: enough for the driver
//! to read a response's `id` and for the floor server to read a request's `method`, `id` and
//! arguments. It skips strings (with escapes) and nested containers correctly; it does not
//! validate the document, which the peers under test are trusted to produce.

/// The raw bytes of `key`'s value at the top level of the object `obj`, if present.
///
/// `obj` must start (after whitespace) with `{`. The key is compared byte for byte with the
/// unescaped form, which is exact for the plain ASCII keys MCP uses.
pub fn top_level<'a>(obj: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let mut i = skip_ws(obj, 0);
    if obj.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(obj, i);
        match obj.get(i)? {
            b'}' => return None,
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = skip_string(obj, i)?;
        let this_key = &obj[i + 1..key_end - 1];
        i = skip_ws(obj, key_end);
        if obj.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(obj, i + 1);
        let value_end = skip_value(obj, i)?;
        if this_key == key.as_bytes() {
            return Some(&obj[i..value_end]);
        }
        i = value_end;
    }
}

/// Follow a path of keys through nested objects: `path(line, &["params", "name"])`.
pub fn path<'a>(obj: &'a [u8], keys: &[&str]) -> Option<&'a [u8]> {
    let mut cur = obj;
    for k in keys {
        cur = top_level(cur, k)?;
    }
    Some(cur)
}

/// The contents of a JSON string token without its quotes (escapes left as they are).
pub fn str_contents(raw: &[u8]) -> Option<&[u8]> {
    if raw.len() >= 2 && raw[0] == b'"' && raw[raw.len() - 1] == b'"' {
        Some(&raw[1..raw.len() - 1])
    } else {
        None
    }
}

/// A JSON unsigned integer token as a `u64`.
pub fn as_u64(raw: &[u8]) -> Option<u64> {
    std::str::from_utf8(raw).ok()?.trim().parse().ok()
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// `b[i]` is the opening quote; returns the index just past the closing quote.
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Returns the index just past the value starting at `b[i]`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_values_and_skips_nested_ones() {
        let line = br#"{"jsonrpc":"2.0","result":{"id":9,"content":[{"text":"a\"}"}]},"id":42}"#;
        assert_eq!(top_level(line, "id"), Some(&b"42"[..]));
        assert_eq!(as_u64(top_level(line, "id").unwrap()), Some(42));
        assert_eq!(path(line, &["result", "id"]), Some(&b"9"[..]));
        assert_eq!(top_level(line, "missing"), None);
        assert_eq!(str_contents(top_level(line, "jsonrpc").unwrap()), Some(&b"2.0"[..]));
    }

    #[test]
    fn tolerates_whitespace() {
        let line = br#" { "id" : 7 , "method" : "ping" } "#;
        assert_eq!(top_level(line, "id"), Some(&b"7"[..]));
        assert_eq!(top_level(line, "method"), Some(&b"\"ping\""[..]));
    }
}
