//! TLS for `https://`: the connector (rustls on *ring*, TLS 1.2 and 1.3, ALPN `http/1.1`,
//! Mozilla's roots plus the [`HttpServer`]'s own), and a failed handshake's reason in our
//! words.

use std::sync::Arc;

use hyper::Uri;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;

use crate::client::options::HttpServer;

/// The connector for both schemes: plain TCP for `http://`; for `https://`, TLS 1.2 or 1.3
/// on *ring*, ALPN `http/1.1`, trusting Mozilla's roots and the server's extra ones. A
/// failure is what went wrong in our words, and rustls's error.
pub(crate) fn connector(cfg: &HttpServer) -> Result<HttpsConnector<HttpConnector>, (String, rustls::Error)> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for (i, der) in cfg.roots().iter().enumerate() {
        roots
            .add(der.clone())
            .map_err(|e| (format!("root certificate {} cannot serve as a trust anchor: {e}", i + 1), e))?;
    }
    // An explicit provider: `ClientConfig::builder()` would panic if feature unification left
    // rustls with two providers and no process default.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| (format!("TLS could not be set up: {e}"), e))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // hyper-rustls's builder leaves ALPN empty for HTTP/1-only; say `http/1.1` so a server
    // that also speaks h2 does not pick it.
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    Ok(HttpsConnector::from((http, Arc::new(tls))))
}

/// The rustls error somewhere in `e`'s chain. hyper-rustls wraps it in an `io::Error` twice,
/// and `io::Error::source` skips the error it wraps, so each is unwrapped by hand.
pub(super) fn tls_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(tls) = err.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        current = match err.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()) {
            Some(inner) => Some(inner),
            None => err.source(),
        };
    }
    None
}

/// Why TLS with the server at `uri` failed, in our words.
pub(super) fn tls_reason(e: &rustls::Error, uri: &Uri) -> String {
    use rustls::CertificateError as C;
    let host = uri.host().unwrap_or_default();
    let untrusted = "the server's certificate is not trusted";
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            C::UnknownIssuer => format!("{untrusted}: no known certificate authority issued it"),
            C::BadSignature => format!("{untrusted}: its signature does not verify"),
            C::UnsupportedSignatureAlgorithmContext { .. }
            | C::UnsupportedSignatureAlgorithmForPublicKeyContext { .. } => {
                format!("{untrusted}: it is signed with an algorithm this client does not accept")
            }
            C::NotValidForName | C::NotValidForNameContext { .. } => {
                format!("{untrusted}: it is not valid for '{host}'")
            }
            C::Expired | C::ExpiredContext { .. } => format!("{untrusted}: it has expired"),
            C::NotValidYet | C::NotValidYetContext { .. } => format!("{untrusted}: it is not valid yet"),
            C::Revoked => format!("{untrusted}: it has been revoked"),
            C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
                format!("{untrusted}: it is not issued for TLS servers")
            }
            C::BadEncoding => format!("{untrusted}: it is malformed"),
            _ => untrusted.to_owned(),
        },
        rustls::Error::NoCertificatesPresented => "the server presented no certificate".to_owned(),
        rustls::Error::AlertReceived(alert) => {
            format!("the server broke off the TLS handshake (alert {alert:?})")
        }
        rustls::Error::NoApplicationProtocol => "the server does not speak HTTP/1.1 over TLS".to_owned(),
        rustls::Error::PeerIncompatible(_) => {
            "the server offers no TLS version or cipher suite this client speaks (TLS 1.2 or 1.3)".to_owned()
        }
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => {
            "the TLS handshake failed: the server did not answer in TLS (is it an http:// endpoint?)"
                .to_owned()
        }
        _ => "the TLS handshake failed".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_errors_are_found_under_nested_io_errors_and_worded_by_us() {
        // As hyper-rustls hands it over: rustls's error in an io::Error in an io::Error.
        let inner = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::Expired),
        );
        let outer = std::io::Error::other(inner);
        let tls = tls_error(&outer).unwrap();
        let uri: Uri = "https://mcp.example.com/mcp".parse().unwrap();
        assert_eq!(tls_reason(tls, &uri), "the server's certificate is not trusted: it has expired");
        let name = rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName);
        assert_eq!(
            tls_reason(&name, &uri),
            "the server's certificate is not trusted: it is not valid for 'mcp.example.com'"
        );
        assert!(tls_error(&std::io::Error::other("connection refused")).is_none());
    }
}
