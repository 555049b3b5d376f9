//! Percent-decoding (RFC 3986 §2.1): what a `file://` root's path and a URI template's
//! variable values are read with, in the runtime and in the `#[resource]` macro alike.

/// `text` with each `%XX` (two hex digits, either case) decoded; `None` for a `%` not
/// followed by two hex digits, or for bytes that are not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
            let (hi, lo) = (hex(bytes.get(i + 1))?, hex(bytes.get(i + 2))?);
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn decodes_escapes_and_refuses_bad_ones() {
        assert_eq!(percent_decode("a%20b%2Fc%2f").as_deref(), Some("a b/c/"));
        assert_eq!(percent_decode("plain").as_deref(), Some("plain"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
        // `u8::from_str_radix` would read `+1` as 1; two hex digits are required here.
        for bad in ["%", "%2", "%+1", "%-1", "%zz", "%FF", "%e9"] {
            assert_eq!(percent_decode(bad), None, "{bad}");
        }
    }
}
