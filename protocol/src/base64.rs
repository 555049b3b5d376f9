//! Base64 (RFC 4648) in the two forms toolwire writes and reads.
//!
//! - [`URL`]: the URL-safe alphabet (§5) without padding, strict: `requestState`, bearer
//!   tokens, session ids. A text with padding, a character outside the alphabet, a length
//!   that leaves one character over, or bits set past the last whole byte is refused: a
//!   sealed state has exactly one spelling.
//! - [`HEADER`]: the standard alphabet (§4), padded to a multiple of four: the 2026-07-28
//!   `=?base64?…?=` header values. Bits past the last whole byte are ignored when read.
//!
//! A page of code instead of the `base64` crate, which cost every user's clean build about
//! 0.3 s of CPU for these few calls (bench/findings.md, "clean dev build"); the tests hold
//! this module to that crate's output and refusals (it stays a dev-dependency).

/// One way to spell bytes in Base64: an alphabet, padding, and what reading forgives.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    alphabet: &'static [u8; 64],
    /// Each character's value, or [`NOT_IN`] for a byte outside the alphabet.
    values: [u8; 256],
    padded: bool,
    trailing_bits: bool,
}

/// URL-safe alphabet, no padding, strict reading.
pub const URL: Form =
    Form::new(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", false, false);

/// Standard alphabet, padded; bits past the last byte ignored when read.
pub const HEADER: Form =
    Form::new(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", true, true);

const NOT_IN: u8 = 0xff;

impl Form {
    const fn new(alphabet: &'static [u8; 64], padded: bool, trailing_bits: bool) -> Form {
        let mut values = [NOT_IN; 256];
        let mut i = 0;
        while i < 64 {
            values[alphabet[i] as usize] = i as u8;
            i += 1;
        }
        Form { alphabet, values, padded, trailing_bits }
    }

    /// `bytes` in this form.
    pub fn encode(&self, bytes: impl AsRef<[u8]>) -> String {
        let mut out = String::new();
        self.encode_into(bytes.as_ref(), &mut out);
        out
    }

    /// `bytes` in this form, appended to `out`.
    pub fn encode_into(&self, bytes: &[u8], out: &mut String) {
        out.reserve(bytes.len().div_ceil(3) * 4);
        let char_at = |v: u32, shift: u32| char::from(self.alphabet[(v >> shift & 63) as usize]);
        let mut chunks = bytes.chunks_exact(3);
        for c in &mut chunks {
            let v = u32::from(c[0]) << 16 | u32::from(c[1]) << 8 | u32::from(c[2]);
            out.extend([char_at(v, 18), char_at(v, 12), char_at(v, 6), char_at(v, 0)]);
        }
        match *chunks.remainder() {
            [a] => {
                let v = u32::from(a) << 16;
                out.extend([char_at(v, 18), char_at(v, 12)]);
                if self.padded {
                    out.push_str("==");
                }
            }
            [a, b] => {
                let v = u32::from(a) << 16 | u32::from(b) << 8;
                out.extend([char_at(v, 18), char_at(v, 12), char_at(v, 6)]);
                if self.padded {
                    out.push('=');
                }
            }
            _ => {}
        }
    }

    /// The bytes `text` spells in this form, or `None` if it is not spelled in this form.
    pub fn decode(&self, text: &str) -> Option<Vec<u8>> {
        let mut text = text.as_bytes();
        if self.padded {
            if !text.len().is_multiple_of(4) {
                return None;
            }
            // One `=` after three characters of the last group, two after two.
            let pad = text.iter().rev().take(2).take_while(|&&c| c == b'=').count();
            text = &text[..text.len() - pad];
            if pad > 0 && text.len() % 4 != 4 - pad {
                return None;
            }
        }
        if text.len() % 4 == 1 {
            return None;
        }
        let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
        let mut chunks = text.chunks(4);
        for c in &mut chunks {
            let mut v = 0u32;
            for &ch in c {
                let value = self.values[usize::from(ch)];
                if value == NOT_IN {
                    return None;
                }
                v = v << 6 | u32::from(value);
            }
            // A short last group: its bits past the last whole byte.
            let (whole, left_over) = match c.len() {
                4 => (3, 0),
                3 => (2, v & 0b11),
                _ => (1, v & 0b1111),
            };
            if left_over != 0 && !self.trailing_bits {
                return None;
            }
            let v = v << (6 * (4 - c.len()));
            out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8][..whole]);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::base64::Engine as _;
    use ::base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    use ::base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

    /// What `transport::http::params` asked the `base64` crate for before this module.
    const CRATE_HEADER: GeneralPurpose = GeneralPurpose::new(
        &::base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
            .with_decode_allow_trailing_bits(true),
    );

    /// Every single byte, two- and three-byte strings around each byte, and 196 longer ones.
    fn samples() -> Vec<Vec<u8>> {
        let mut all = vec![vec![]];
        for a in 0..=255u8 {
            all.push(vec![a]);
            for b in [0, 1, 0x3f, 0x80, 0xfb, 0xff] {
                all.push(vec![a, b]);
                all.push(vec![b, a, b]);
            }
        }
        let mut x = 0x9e37_79b9_u32;
        for len in 4..200 {
            all.push(
                (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        x as u8
                    })
                    .collect(),
            );
        }
        all
    }

    #[test]
    fn writes_what_the_base64_crate_writes_and_reads_it_back() {
        for bytes in samples() {
            let url = URL.encode(&bytes);
            assert_eq!(url, URL_SAFE_NO_PAD.encode(&bytes));
            assert_eq!(URL.decode(&url).as_ref(), Some(&bytes));
            let header = HEADER.encode(&bytes);
            assert_eq!(header, STANDARD.encode(&bytes));
            assert_eq!(HEADER.decode(&header).as_ref(), Some(&bytes));
        }
        assert_eq!(URL.encode([0xfb, 0xff]), "-_8");
        assert_eq!(HEADER.encode("Hello"), "SGVsbG8=");
    }

    #[test]
    fn refuses_what_the_base64_crate_refuses() {
        // Every text of up to four characters from a set that covers each rule: both
        // alphabets' extra characters, padding, a character in neither, and the letters
        // whose low bits are or are not zero.
        let set = ['A', 'B', 'Q', 'g', '+', '/', '-', '_', '=', '.', '8'];
        let mut texts = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last.iter().flat_map(|t| set.iter().map(move |c| format!("{t}{c}"))).collect();
            texts.extend(last.iter().cloned());
        }
        for t in
            ["SGVsbG8=", "SGVsbG8", "SGVsbG9=", "SGVsbA==", "SGVsbA=", "SGVsbB==", "SGVsbG8==", "=", "===="]
        {
            texts.push(t.to_owned());
        }
        for t in &texts {
            assert_eq!(URL.decode(t), URL_SAFE_NO_PAD.decode(t).ok(), "URL form, {t:?}");
            assert_eq!(HEADER.decode(t), CRATE_HEADER.decode(t).ok(), "header form, {t:?}");
        }
    }
}
