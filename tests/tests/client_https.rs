//! The client over `https://`: toolwire's own `mcp_router`, served by axum behind a
//! tokio-rustls acceptor on 127.0.0.1, with a certificate from a private CA made here with
//! rcgen. With the CA added the client connects, lists and calls (over TLS 1.3 and 1.2, ALPN
//! `http/1.1`); without it, or for a certificate naming another host, or against a plain HTTP
//! server, connect fails as `unavailable` in our words; an `ftp://` URL is a scheme error.
//! No peers needed.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::{self, ProtocolVersion, ServerConfig};
use toolwire::client::{CallOptions, Client, ClientError, ClientOptions, HttpServer, RootCertificateError};
use toolwire::http::{Auth, HttpConfig, mcp_router};
use toolwire::{Content, Server, ServerOptions, tool, tools};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

/// A private CA and a leaf it signed.
struct Pki {
    ca_pem: String,
    leaf_der: rustls::pki_types::CertificateDer<'static>,
    leaf_key: rustls::pki_types::PrivateKeyDer<'static>,
}

/// A CA, and a leaf for `names` (DNS names or IP addresses) signed by it.
fn make_pki(names: &[&str]) -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(rcgen::DnType::CommonName, "toolwire test CA");
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
    let ca = rcgen::CertifiedIssuer::self_signed(ca, ca_key).unwrap();

    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let mut leaf =
        rcgen::CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>()).unwrap();
    leaf.distinguished_name.push(rcgen::DnType::CommonName, names[0]);
    leaf.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let leaf = leaf.signed_by(&leaf_key, &ca).unwrap();
    Pki {
        ca_pem: ca.pem(),
        leaf_der: leaf.der().clone(),
        leaf_key: rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into()),
    }
}

/// What the TLS server saw of each completed handshake: the version and the ALPN protocol.
type Seen = Arc<Mutex<Vec<(ProtocolVersion, Option<Vec<u8>>)>>>;

/// TLS connections as axum takes them: TCP accepted and handshaken in the background, so a
/// client that refuses our certificate does not stop the next one.
struct TlsListener {
    addr: SocketAddr,
    ready: mpsc::UnboundedReceiver<(tokio_rustls::server::TlsStream<tokio::net::TcpStream>, SocketAddr)>,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(conn) => conn,
            // The acceptor is gone only when the runtime is shutting down.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.addr)
    }
}

fn router() -> axum::Router {
    let server = Server::new(tools![echo].unwrap(), ServerOptions::new("secure", "0.1.0"));
    mcp_router(server, HttpConfig::new(Auth::None))
}

/// Serve toolwire's MCP endpoint over TLS with `pki`'s leaf, speaking `versions`; returns
/// its port and what its handshakes negotiated.
async fn serve_tls(pki: &Pki, versions: &[&'static rustls::SupportedProtocolVersion]) -> (u16, Seen) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![pki.leaf_der.clone()], pki.leaf_key.clone_key())
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let (tx, ready) = mpsc::unbounded_channel();
    let seen = Seen::default();
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((stream, peer)) = tcp.accept().await {
            let (acceptor, tx, log) = (acceptor.clone(), tx.clone(), Arc::clone(&log));
            tokio::spawn(async move {
                if let Ok(tls) = acceptor.accept(stream).await {
                    let (_, session) = tls.get_ref();
                    let version = session.protocol_version().unwrap();
                    log.lock().unwrap().push((version, session.alpn_protocol().map(<[u8]>::to_vec)));
                    let _ = tx.send((tls, peer));
                }
            });
        }
    });
    tokio::spawn(async move { axum::serve(TlsListener { addr, ready }, router()).await.unwrap() });
    (addr.port(), seen)
}

/// The same endpoint over plain HTTP.
async fn serve_plain() -> u16 {
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = tcp.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(tcp, router()).await.unwrap() });
    port
}

fn text(content: &[Content]) -> String {
    content
        .iter()
        .map(|c| match c {
            Content::Text { text } => text.clone(),
            other => panic!("not text: {other:?}"),
        })
        .collect()
}

/// Connect, list, call and close over `url`, trusting `ca_pem`.
async fn round_trip(url: &str, ca_pem: &str) {
    let https = HttpServer::new(url).root_certificate_pem(ca_pem.as_bytes()).unwrap();
    let client = Client::connect(https, ClientOptions::new("secure")).await.unwrap();
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    let tools = client.list_tools(false).await.unwrap();
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["echo"]);
    let out = client.call_tool("echo", json!({"text": "over tls"}), CallOptions::default()).await.unwrap();
    assert!(!out.is_error);
    assert_eq!(text(&out.content), "over tls");
    client.close().await;
}

#[tokio::test]
async fn with_the_private_ca_https_connects_lists_and_calls() {
    let pki = make_pki(&["localhost", "127.0.0.1"]);
    let (port, seen) = serve_tls(&pki, &[&rustls::version::TLS13, &rustls::version::TLS12]).await;
    // An IP address and a DNS name, both in the certificate.
    round_trip(&format!("https://127.0.0.1:{port}/mcp"), &pki.ca_pem).await;
    round_trip(&format!("https://localhost:{port}/mcp"), &pki.ca_pem).await;
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    for (version, alpn) in seen {
        assert_eq!(version, ProtocolVersion::TLSv1_3);
        assert_eq!(alpn.as_deref(), Some(&b"http/1.1"[..]));
    }
}

#[tokio::test]
async fn a_tls_1_2_only_server_is_reached_too() {
    let pki = make_pki(&["127.0.0.1"]);
    let (port, seen) = serve_tls(&pki, &[&rustls::version::TLS12]).await;
    round_trip(&format!("https://127.0.0.1:{port}/mcp"), &pki.ca_pem).await;
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|(v, alpn)| *v == ProtocolVersion::TLSv1_2 && alpn.as_deref() == Some(b"http/1.1"))
    );
}

#[tokio::test]
async fn without_the_ca_connect_fails_as_an_untrusted_certificate() {
    let pki = make_pki(&["localhost", "127.0.0.1"]);
    let (port, seen) = serve_tls(&pki, &[&rustls::version::TLS13, &rustls::version::TLS12]).await;
    let url = format!("https://127.0.0.1:{port}/mcp");
    let err = Client::connect(HttpServer::new(&url), ClientOptions::new("secure")).await.unwrap_err();
    let reason = format!(
        "could not be reached at {url}: the server's certificate is not trusted: no known certificate authority issued it"
    );
    assert_eq!(err, ClientError::Unavailable { server: "secure".into(), reason: reason.clone() });
    assert_eq!(err.to_string(), format!("server 'secure' {reason}"));
    assert!(seen.lock().unwrap().is_empty(), "no handshake completed");

    // A CA with the same name but another key: its name matches the issuer's, its
    // signature does not.
    let impostor = make_pki(&["localhost"]).ca_pem;
    let err = Client::connect(
        HttpServer::new(&url).root_certificate_pem(impostor.as_bytes()).unwrap(),
        ClientOptions::new("secure"),
    )
    .await
    .unwrap_err();
    let reason = format!(
        "could not be reached at {url}: the server's certificate is not trusted: its signature does not verify"
    );
    assert_eq!(err, ClientError::Unavailable { server: "secure".into(), reason });
}

#[tokio::test]
async fn a_certificate_for_another_host_is_refused() {
    let pki = make_pki(&["tools.example"]);
    let (port, _seen) = serve_tls(&pki, &[&rustls::version::TLS13]).await;
    let url = format!("https://127.0.0.1:{port}/mcp");
    let https = HttpServer::new(&url).root_certificate_pem(pki.ca_pem.as_bytes()).unwrap();
    let err = Client::connect(https, ClientOptions::new("secure")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "server 'secure' could not be reached at {url}: the server's certificate is not trusted: it is not valid for '127.0.0.1'"
        )
    );
    assert!(matches!(err, ClientError::Unavailable { .. }));
}

#[tokio::test]
async fn https_to_a_plain_http_server_says_it_did_not_answer_in_tls() {
    let port = serve_plain().await;
    // The same endpoint over http:// still works.
    let plain = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::connect(HttpServer::new(&plain), ClientOptions::new("plain")).await.unwrap();
    assert_eq!(client.list_tools(false).await.unwrap().len(), 1);
    client.close().await;

    let url = format!("https://127.0.0.1:{port}/mcp");
    let err = Client::connect(HttpServer::new(&url), ClientOptions::new("plain")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "server 'plain' could not be reached at {url}: the TLS handshake failed: the server did not answer in TLS (is it an http:// endpoint?)"
        )
    );
}

#[tokio::test]
async fn an_ftp_url_is_a_scheme_error() {
    let url = "ftp://127.0.0.1:21/mcp";
    let err = Client::connect(HttpServer::new(url), ClientOptions::new("files")).await.unwrap_err();
    assert_eq!(err, ClientError::UnsupportedScheme { server: "files".into(), url: url.into() });
    assert_eq!(
        err.to_string(),
        "server 'files': 'ftp://127.0.0.1:21/mcp' is not an http:// or https:// URL; this client speaks HTTP and HTTPS"
    );
    assert!(!err.is_retryable());
}

#[test]
fn root_certificates_are_checked_when_added() {
    assert_eq!(
        HttpServer::new("https://x").root_certificate_pem(b"not a pem").unwrap_err(),
        RootCertificateError::NoCertificate
    );
    let broken = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assert!(matches!(
        HttpServer::new("https://x").root_certificate_pem(broken.as_bytes()).unwrap_err(),
        RootCertificateError::Unusable { index: 1, .. }
    ));
    assert!(matches!(
        HttpServer::new("https://x").root_certificate_der(b"junk").unwrap_err(),
        RootCertificateError::Unusable { index: 1, .. }
    ));
    // Two CAs in one PEM, and a key block skipped.
    let (a, b) = (make_pki(&["a.example"]), make_pki(&["b.example"]));
    let bundle =
        format!("{}{}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", a.ca_pem, b.ca_pem);
    let https = HttpServer::new("https://x").root_certificate_pem(bundle.as_bytes()).unwrap();
    assert_eq!(https.root_certificates().count(), 2);
    assert!(format!("{https:?}").contains("root_certificates: 2"));
}
