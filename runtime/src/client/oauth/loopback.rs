//! The person's step for a CLI (RFC 8252 §7.3): open the system browser at the authorization
//! URL, and take the redirect on a loopback port this process listens on.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use url::Url;

use super::config::AuthorizationRequest;

/// The default redirect URI: a loopback IP literal (RFC 8252 §8.3), a fixed port.
pub(crate) const DEFAULT_REDIRECT: &str = "http://127.0.0.1:8976/callback";

/// How long the person has to finish in the browser.
const WAIT: Duration = Duration::from_secs(300);

/// The usual person's step for a CLI: print the URL on stderr, try to open it in the system
/// browser (`xdg-open`, `open`, or `start`), and wait up to 5 minutes for the browser to come
/// back to the request's loopback `redirect_uri` (`http://127.0.0.1:<port>/<path>`), which is
/// listened on only meanwhile. Answers the URL it came back to; `Err` when the redirect URI
/// is not a loopback `http://` URL, its port is taken, or nobody came back in time.
pub async fn open_browser_and_wait(request: AuthorizationRequest) -> Result<String, String> {
    let endpoint = request.endpoint.clone();
    wait_for_redirect(request, |url| {
        eprintln!("Open this URL in a browser to authorize access to {endpoint}:\n\n  {url}\n");
        open(url);
    })
    .await
}

/// The loopback half of [`open_browser_and_wait`], with the browser your own: listen on the
/// request's loopback `redirect_uri`, call `open` with the authorization URL, and wait up to
/// 5 minutes for the redirect. (A test drives the pages headlessly in `open`.)
pub async fn wait_for_redirect(
    request: AuthorizationRequest,
    open: impl FnOnce(&str) + Send,
) -> Result<String, String> {
    let listener = listen(&request.redirect_uri).await?;
    open(&request.url);
    receive(listener, &request.redirect_uri).await
}

/// A listener on the redirect URI's loopback address.
pub(crate) async fn listen(redirect_uri: &str) -> Result<TcpListener, String> {
    let url =
        Url::parse(redirect_uri).map_err(|_| format!("the redirect URI '{redirect_uri}' is not a URL"))?;
    let host = url.host_str().unwrap_or_default();
    let loopback = matches!(host, "127.0.0.1" | "[::1]" | "localhost");
    if url.scheme() != "http" || !loopback {
        return Err(format!(
            "the redirect URI '{redirect_uri}' is not a loopback http:// URL this process can listen on"
        ));
    }
    let port = url.port_or_known_default().unwrap_or(80);
    let addr = if host == "[::1]" { format!("[::1]:{port}") } else { format!("127.0.0.1:{port}") };
    TcpListener::bind(&addr).await.map_err(|e| format!("could not listen on {addr} for the redirect: {e}"))
}

/// Wait for the browser to request the redirect URI's path; answer a short page and give
/// back the full URL it requested.
pub(crate) async fn receive(listener: TcpListener, redirect_uri: &str) -> Result<String, String> {
    let url =
        Url::parse(redirect_uri).map_err(|_| format!("the redirect URI '{redirect_uri}' is not a URL"))?;
    let wait = async {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else { continue };
            let mut buf = vec![0u8; 8192];
            let mut read = 0;
            while read < buf.len() {
                match stream.read(&mut buf[read..]).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => read += n,
                }
                if buf[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            let head = String::from_utf8_lossy(&buf[..read]);
            let target = head.lines().next().and_then(|l| l.split(' ').nth(1)).unwrap_or_default().to_owned();
            let path = target.split('?').next().unwrap_or_default();
            if path != url.path() {
                let _ = stream
                    .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
                continue;
            }
            let page = "<!doctype html><title>Authorized</title><p>You can close this window and return to the application.";
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            return format!("{}{target}", url.origin().ascii_serialization());
        }
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .map_err(|_| format!("nobody came back to {redirect_uri} within {} minutes", WAIT.as_secs() / 60))
}

/// Open `url` in the system browser, if there is one; failing is fine (the URL is printed).
fn open(url: &str) {
    let mut cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    let _ = cmd
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_redirect_is_taken_on_the_loopback_port() {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = probe.local_addr().unwrap().port();
        drop(probe);
        let redirect = format!("http://127.0.0.1:{port}/callback");
        let listener = listen(&redirect).await.unwrap();
        let waiting = tokio::spawn({
            let redirect = redirect.clone();
            async move { receive(listener, &redirect).await }
        });
        let get = |target: &'static str| async move {
            let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            s.write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes()).await.unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).await.unwrap();
            out
        };
        assert!(get("/favicon.ico").await.starts_with("HTTP/1.1 404"));
        assert!(get("/callback?code=c&state=s").await.contains("You can close this window"));
        assert_eq!(
            waiting.await.unwrap().unwrap(),
            format!("http://127.0.0.1:{port}/callback?code=c&state=s")
        );
        assert_eq!(
            listen("https://example.com/cb").await.unwrap_err(),
            "the redirect URI 'https://example.com/cb' is not a loopback http:// URL this process can listen on"
        );
    }
}
