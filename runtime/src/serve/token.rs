//! The bearer token a loopback HTTP server demands: generated, never supplied, compared in
//! constant time.

use std::fmt;

/// A bearer token: 32 bytes from the operating system's CSPRNG, as unpadded base64url (43
/// characters).
///
/// There is no way to construct one from a caller's string: a token a caller can choose is
/// one that ends up a constant in somebody's config file.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// A fresh token.
    ///
    /// # Panics
    ///
    /// If the operating system cannot supply random bytes, which leaves nothing safe to do.
    pub fn generate() -> BearerToken {
        BearerToken(random_id(32))
    }

    /// The token's text, for a config file or an `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether an `Authorization` header value is `Bearer <this token>`, compared in
    /// constant time (the scheme name case-insensitively, as RFC 9110 says).
    pub fn matches_header(&self, header: &[u8]) -> bool {
        let Some((scheme, rest)) = split_scheme(header) else { return false };
        scheme.eq_ignore_ascii_case(b"bearer") && constant_time_eq(rest, self.0.as_bytes())
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print a live credential.
        f.write_str("BearerToken(<redacted>)")
    }
}

fn split_scheme(header: &[u8]) -> Option<(&[u8], &[u8])> {
    let space = header.iter().position(|b| *b == b' ')?;
    let (scheme, rest) = header.split_at(space);
    let rest = &rest[1..];
    let start = rest.iter().position(|b| *b != b' ').unwrap_or(rest.len());
    Some((scheme, &rest[start..]))
}

/// Equality that takes the same time wherever the inputs differ. The length is not secret
/// (every token is 43 characters), so unequal lengths return at once.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        // black_box keeps the optimiser from turning the loop into an early exit.
        diff = std::hint::black_box(diff | (x ^ y));
    }
    diff == 0
}

/// `bytes` random bytes from the OS CSPRNG as unpadded base64url: visible ASCII, safe in a
/// header, a path or a URL. Session ids and private directory names use it.
pub(crate) fn random_id(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the OS random number generator is unavailable");
    base64url(&buf)
}

/// Unpadded base64url (RFC 4648 §5).
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_43_base64url_characters_and_differ() {
        let a = BearerToken::generate();
        let b = BearerToken::generate();
        assert_eq!(a.expose().len(), 43);
        assert!(a.expose().bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "BearerToken(<redacted>)");
    }

    #[test]
    fn base64url_matches_rfc_4648_vectors() {
        for (input, want) in
            [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE")]
        {
            assert_eq!(base64url(input.as_bytes()), want);
        }
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn header_matching() {
        let t = BearerToken::generate();
        let good = format!("Bearer {}", t.expose());
        assert!(t.matches_header(good.as_bytes()));
        assert!(t.matches_header(format!("bearer {}", t.expose()).as_bytes()));
        assert!(!t.matches_header(format!("Basic {}", t.expose()).as_bytes()));
        assert!(!t.matches_header(t.expose().as_bytes()));
        assert!(!t.matches_header(format!("Bearer {}x", t.expose()).as_bytes()));
        assert!(!t.matches_header(b"Bearer "));
    }
}
