//! Who may call: the checks that run before any tool logic, in this order.
//!
//! 0. **One of each.** A repeated `Host` or `Origin` header is 400 (RFC 9112 §3.2: a
//!    request with more than one `Host` is invalid), so no check reads one copy while
//!    something else reads the other.
//! 1. **Host.** DNS rebinding turns a foreign page into a same-origin caller; the `Host`
//!    header still names the attacker's domain, so it must be a loopback name
//!    (`127.0.0.1`, `localhost`, `[::1]`, any port) or one the caller allowed.
//! 2. **Origin.** A present `Origin` that is not loopback or explicitly allowed is 403, as
//!    the spec requires. Agent CLIs send none.
//!
//! Every `/mcp` handler calls [`Guard::refusal`] first (through the endpoint's `admit`), so a
//! refusal comes before body reading and everything else. Then comes the authenticator
//! (module `authn`: the bearer token, or a resource server's verifier).

use axum::http::StatusCode;
use axum::response::Response;

use crate::transport::http::read::heads::Heads;
use crate::transport::http::response::error_response;

/// What the guard lets through.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard {
    /// Extra `Host` values accepted (exact, case-insensitive, with or without a port).
    pub(crate) allowed_hosts: Vec<String>,
    /// Extra `Origin` values accepted (exact, case-insensitive).
    pub(crate) allowed_origins: Vec<String>,
}

/// A refusal: status and the JSON-RPC error text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    pub(crate) message: &'static str,
}

impl Guard {
    pub(super) fn check(&self, heads: &Heads<'_>) -> Result<(), Refusal> {
        let repeated = |message: &'static str| Err(Refusal { status: StatusCode::BAD_REQUEST, message });
        if heads.host.repeated {
            return repeated("bad request: more than one Host header");
        }
        if heads.origin.repeated {
            return repeated("bad request: more than one Origin header");
        }
        let host = heads.host.text();
        let origin = heads.origin.first;
        let host_ok = host.is_some_and(|h| {
            is_loopback_authority(h)
                || self
                    .allowed_hosts
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(h) || a.eq_ignore_ascii_case(host_name(h)))
        });
        if !host_ok {
            return Err(Refusal {
                status: StatusCode::FORBIDDEN,
                message: "forbidden: the Host header is not a loopback name or an allowed host",
            });
        }
        if let Some(origin) = origin {
            let ok = origin.to_str().is_ok_and(|o| {
                is_loopback_origin(o) || self.allowed_origins.iter().any(|a| a.eq_ignore_ascii_case(o))
            });
            if !ok {
                return Err(Refusal {
                    status: StatusCode::FORBIDDEN,
                    message: "forbidden: the Origin header is not allowed",
                });
            }
        }
        Ok(())
    }

    /// The answer to a request the guard refuses (a JSON-RPC error with no id), or `None`
    /// when it passes.
    pub(crate) fn refusal(&self, heads: &Heads<'_>) -> Option<Response> {
        self.check(heads).err().map(|refusal| error_response(refusal.status, None, refusal.message))
    }
}

/// The host part of an authority (`host[:port]`, `[v6]:port`). An unclosed `[` is not a
/// host this guard knows, so the whole authority is returned (and is not loopback).
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(close) => &authority[..=close],
            None => authority,
        };
    }
    authority.rsplit_once(':').map(|(h, _)| h).unwrap_or(authority)
}

/// Whether `authority` is a loopback host with no port or a numeric one. Compared byte by
/// byte: the guard runs on every request.
fn is_loopback_authority(authority: &str) -> bool {
    let host = host_name(authority);
    // `host_name` gives a prefix: what follows is the port, or something that is not one.
    let port_ok = match &authority.as_bytes()[host.len()..] {
        [] => true,
        [b':', digits @ ..] => !digits.is_empty() && digits.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    port_ok && (host == "127.0.0.1" || host == "[::1]" || host.eq_ignore_ascii_case("localhost"))
}

fn is_loopback_origin(origin: &str) -> bool {
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
        return false;
    };
    !rest.contains('/') && is_loopback_authority(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue, header};

    // Found by the `http_request` fuzz target: an unclosed `[` sliced past the end.
    #[test]
    fn an_unclosed_bracket_is_refused_not_a_panic() {
        assert!(!is_loopback_authority("[ocalhost:8080"));
        assert!(!is_loopback_authority("["));
        assert!(!is_loopback_origin("http://[ocalhost:8080"));
        assert!(is_loopback_authority("[::1]:8080"));
        assert_eq!(host_name("[::1]:8080"), "[::1]");
    }

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn loopback_names_pass_and_others_do_not() {
        for ok in ["127.0.0.1:8080", "localhost:1", "LOCALHOST", "[::1]:9", "127.0.0.1"] {
            assert!(is_loopback_authority(ok), "{ok}");
        }
        for bad in [
            "evil.example:80",
            "127.0.0.1.evil.example",
            "localhost:80x",
            "[::2]:1",
            "127.0.0.2:1",
            "127.0.0.1:",
            "[::1]evil:80",
            "[::1]:",
        ] {
            assert!(!is_loopback_authority(bad), "{bad}");
        }
        assert!(is_loopback_origin("http://localhost:3000"));
        assert!(!is_loopback_origin("http://localhost.evil.example"));
        assert!(!is_loopback_origin("null"));
    }

    #[test]
    fn order_is_host_then_origin() {
        struct Checked(Guard);
        impl Checked {
            fn check(&self, map: &HeaderMap) -> Result<(), Refusal> {
                self.0.check(&Heads::of(map))
            }
        }
        let g = Checked(Guard::default());
        let bearer = "Bearer x".to_owned();
        assert_eq!(g.check(&headers(&[(header::HOST, "evil:1")])).unwrap_err().status, StatusCode::FORBIDDEN);
        let r =
            g.check(&headers(&[(header::HOST, "127.0.0.1:1"), (header::ORIGIN, "http://evil")])).unwrap_err();
        assert_eq!(r.message, "forbidden: the Origin header is not allowed");
        assert!(g.check(&headers(&[(header::HOST, "127.0.0.1:1")])).is_ok());
        assert!(
            g.check(&headers(&[(header::HOST, "127.0.0.1:1"), (header::AUTHORIZATION, &bearer)])).is_ok()
        );
        let mut twice = headers(&[(header::HOST, "127.0.0.1:1"), (header::AUTHORIZATION, &bearer)]);
        twice.append(header::HOST, HeaderValue::from_static("127.0.0.1:1"));
        assert_eq!(g.check(&twice).unwrap_err().message, "bad request: more than one Host header");
        let mut twice = headers(&[(header::HOST, "127.0.0.1:1"), (header::ORIGIN, "http://localhost")]);
        twice.append(header::ORIGIN, HeaderValue::from_static("http://localhost"));
        assert_eq!(g.check(&twice).unwrap_err().status, StatusCode::BAD_REQUEST);
        let open = Checked(Guard { allowed_hosts: vec!["tools.internal".into()], ..Guard::default() });
        assert!(open.check(&headers(&[(header::HOST, "tools.internal:443")])).is_ok());
    }
}
