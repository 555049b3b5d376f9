//! DPoP (RFC 9449): a P-256 key this client holds, and the proofs it signs with it, so that
//! a token the authorization server binds to the key is worthless to anyone who only copied
//! the token. Used when the authorization server lists `ES256` in
//! `dpop_signing_alg_values_supported`. The key lives in memory with the [`OAuth`](super::OAuth)
//! (a DPoP-bound token kept in a file store is refreshed, or replaced, after a restart).

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use p256::ecdsa::SigningKey;
use p256::ecdsa::signature::Signer;
use serde_json::json;

use crate::base64::URL;
use crate::sync::lock;

/// The client's DPoP key (made on first use) and the nonces servers gave, by URL.
#[derive(Default)]
pub(crate) struct Dpop {
    key: OnceLock<DpopKey>,
    nonces: Mutex<BTreeMap<String, String>>,
}

impl Dpop {
    /// A proof for a `htm` request to `url`, with the nonce that URL's server gave last.
    pub(crate) fn proof(&self, htm: &str, url: &str, access_token: Option<&str>) -> String {
        let nonce = lock(&self.nonces).get(url).cloned();
        self.key.get_or_init(DpopKey::generate).proof(htm, url, access_token, nonce.as_deref())
    }

    /// Remember the nonce `url`'s server asked for (RFC 9449 §8, §9).
    pub(crate) fn set_nonce(&self, url: &str, nonce: &str) {
        lock(&self.nonces).insert(url.to_owned(), nonce.to_owned());
    }

    /// The nonce `url`'s server gave last.
    pub(crate) fn nonce(&self, url: &str) -> Option<String> {
        lock(&self.nonces).get(url).cloned()
    }
}

/// A DPoP key.
pub(crate) struct DpopKey {
    key: SigningKey,
    /// The public key as a JWK's members (`kty`, `crv`, `x`, `y`).
    jwk: serde_json::Value,
}

impl DpopKey {
    /// A fresh key from the operating system's random number generator.
    pub(crate) fn generate() -> DpopKey {
        let key = loop {
            let mut bytes = [0u8; 32];
            crate::random::fill(&mut bytes);
            // A scalar past the curve's order (about 2^-128 of draws) is drawn again.
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                break key;
            }
        };
        let point = key.verifying_key().to_sec1_bytes();
        // Uncompressed SEC1: 0x04, then x and y, 32 bytes each.
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": URL.encode(&point[1..33]), "y": URL.encode(&point[33..65])});
        DpopKey { key, jwk }
    }

    /// A proof for a `htm` request to `htu` (its query and fragment dropped), with the
    /// token's hash (`ath`) when presenting one and the server's nonce when it gave one.
    pub(crate) fn proof(
        &self,
        htm: &str,
        htu: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> String {
        let htu = htu.split(['?', '#']).next().unwrap_or(htu);
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let mut jti = [0u8; 16];
        crate::random::fill(&mut jti);
        let iat =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mut claims = json!({"jti": URL.encode(jti), "htm": htm, "htu": htu, "iat": iat});
        if let Some(token) = access_token {
            claims["ath"] = json!(URL.encode(hmac_sha256::Hash::hash(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let mut jws = URL.encode(header.to_string());
        jws.push('.');
        jws.push_str(&URL.encode(claims.to_string()));
        let signature: p256::ecdsa::Signature = self.key.sign(jws.as_bytes());
        jws.push('.');
        jws.push_str(&URL.encode(signature.to_bytes()));
        jws
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier;

    #[test]
    fn a_proof_is_an_es256_jws_over_its_claims_with_the_public_key_only() {
        let key = DpopKey::generate();
        let proof = key.proof("POST", "https://mcp.example.com/mcp?x=1#f", Some("tok"), Some("n1"));
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: serde_json::Value = serde_json::from_slice(&URL.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["crv"], "P-256");
        assert!(header["jwk"].get("d").is_none());
        let claims: serde_json::Value = serde_json::from_slice(&URL.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["nonce"], "n1");
        // RFC 9449 §4.2: ath is base64url(SHA-256(token)).
        assert_eq!(claims["ath"], URL.encode(hmac_sha256::Hash::hash(b"tok")));
        let sig = p256::ecdsa::Signature::from_slice(&URL.decode(parts[2]).unwrap()).unwrap();
        let signed = format!("{}.{}", parts[0], parts[1]);
        key.key.verifying_key().verify(signed.as_bytes(), &sig).expect("the signature verifies");
    }
}
