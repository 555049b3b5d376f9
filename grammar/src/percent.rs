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

/// `text` with every valid `%XX` decoded and anything else kept as it is, invalid UTF-8
/// replaced: for checking what a later decoder could make of untrusted text (an invalid
/// escape must not shield the rest, as it would under [`percent_decode`]).
pub fn percent_decode_lossy(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('%') {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    std::borrow::Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::{percent_decode, percent_decode_lossy};

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

    #[test]
    fn the_lossy_decoder_keeps_what_it_cannot_decode() {
        assert_eq!(percent_decode_lossy("100%.txt%2e%zz%2E"), "100%.txt.%zz.");
        assert_eq!(percent_decode_lossy("plain"), "plain");
    }
}
