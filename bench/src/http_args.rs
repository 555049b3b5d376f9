//! What the HTTP bench servers share: their flags, the line that tells `http-bench` where
//! they listen, and the wait for the end of stdin that stops them.
//!
//! Every HTTP server binary takes `--mode json|sse|session` (stateless with JSON answers,
//! stateless with answers the server chooses, or legacy sessions), `--nodelay` (rmcp: set
//! `TCP_NODELAY` on accepted sockets; toolwire and the floor always do) and
//! `--session-ttl-s N` (idle sessions end after N seconds). It binds `127.0.0.1:0`, prints
//! `url <url>` and, when it wants one, `authorization <header value>`, then `ready`, and
//! serves until its stdin closes.

use std::time::Duration;

/// How the server is asked to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Stateless: no session ids, each request on its own; JSON answers where the SDK can.
    Json,
    /// Stateless; the SDK's default answer framing (SSE for rmcp, JSON unless a notification
    /// must stream for toolwire).
    Sse,
    /// Legacy sessions: `initialize` issues an `Mcp-Session-Id`.
    Session,
}

/// The parsed flags.
#[derive(Debug, Clone)]
pub(crate) struct ServerArgs {
    /// How to serve.
    pub(crate) mode: Mode,
    /// Set `TCP_NODELAY` on accepted sockets (where the SDK leaves it to the user).
    pub(crate) nodelay: bool,
    /// End sessions idle this long (the SDK's default when `None`).
    pub(crate) session_ttl: Option<Duration>,
    /// toolwire only (`--router bare|guarded`): serve `mcp_router` on `axum::serve`, bare
    /// (no auth, trusted host) or guarded (authenticator, authorization rule, rate limit,
    /// untrusted-callers profile), for the auth overhead ratio.
    #[allow(dead_code)]
    pub(crate) router: Option<bool>,
}

impl ServerArgs {
    /// Read the process's arguments; exits with a usage line on a bad one.
    pub(crate) fn from_env() -> ServerArgs {
        let mut a = ServerArgs { mode: Mode::Session, nodelay: false, session_ttl: None, router: None };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            match flag.as_str() {
                "--mode" => {
                    a.mode = match it.next().as_deref() {
                        Some("json") => Mode::Json,
                        Some("sse") => Mode::Sse,
                        Some("session") => Mode::Session,
                        other => usage(&format!("--mode {other:?}")),
                    }
                }
                "--nodelay" => a.nodelay = true,
                "--session-ttl-s" => {
                    let secs = it.next().and_then(|s| s.parse().ok());
                    a.session_ttl =
                        Some(Duration::from_secs(secs.unwrap_or_else(|| usage("--session-ttl-s"))));
                }
                "--router" => {
                    a.router = match it.next().as_deref() {
                        Some("bare") => Some(false),
                        Some("guarded") => Some(true),
                        other => usage(&format!("--router {other:?}")),
                    }
                }
                other => usage(other),
            }
        }
        a
    }
}

fn usage(bad: &str) -> ! {
    eprintln!(
        "bad flag {bad}; usage: [--mode json|sse|session] [--nodelay] [--session-ttl-s N] [--router bare|guarded]"
    );
    std::process::exit(2)
}

/// Print where the server listens (and the `Authorization` value to send, if any), then
/// `ready`.
pub(crate) fn announce(url: &str, authorization: Option<&str>) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "url {url}");
    if let Some(auth) = authorization {
        let _ = writeln!(out, "authorization {auth}");
    }
    let _ = writeln!(out, "ready");
    let _ = out.flush();
}

/// Resolves when stdin reaches its end (the bench closes it to stop the server).
pub(crate) async fn stdin_closed() {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = tx.send(());
    });
    let _ = rx.await;
}
