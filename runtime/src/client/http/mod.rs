//! The Streamable HTTP transport (`http://` and `https://`, HTTP/1.1, on hyper).
//!
//! `https://` runs over TLS 1.2 or 1.3 (rustls with the *ring* provider, ALPN `http/1.1`),
//! verifying the server's certificate against Mozilla's roots (`webpki-roots`) plus the
//! [`HttpServer`](crate::client::HttpServer)'s own. A failed handshake (a certificate none of them vouches for, one for
//! another host, a server that does not answer in TLS) fails the request as `unavailable`,
//! with a reason in our words (see `tls.rs`). SSE bodies are read by `sse.rs`.
//!
//! Every outbound message is one POST to the endpoint, with
//! `Accept: application/json, text/event-stream`, the configured headers,
//! `MCP-Protocol-Version` once a version is negotiated, `Mcp-Session-Id` once the server
//! assigned one, `Mcp-Method` / `Mcp-Name` (which 2026-07-28 servers require), and on a
//! tool call the `Mcp-Param-*` headers mirrored from its `x-mcp-header` parameters
//! ([`Message::headers`](super::Message::headers)).
//!
//! | the server answers | what happens |
//! | --- | --- |
//! | 202 / 204 | accepted (a notification or a response) |
//! | 200 `application/json` | the body is one message (or a batch) |
//! | 200 `text/event-stream` | each event's `data` is a message; events without data (priming events) are skipped; a stream that ends before the answer is resumed (below), or else fails the request as `unavailable` |
//! | 404 with a session, or 400 with a session (TS v1 servers answer a stale session so) | the session is gone: a fresh `initialize`, then the request is sent once more |
//! | 401 or 403, with an [`Authorizer`](crate::client::Authorizer) | the authorizer is told (with `WWW-Authenticate`); when it says new credentials may help, the request is sent once more with them (at most twice per request: the refusal came before the server ran anything); else as below, or the authorizer's own failure |
//! | 401 or 403 | the request fails as `unauthorized` (not retryable): the credentials were refused |
//! | 503 with a JSON-RPC error body | the request fails as `unavailable` (retryable, even for a tool that must not be re-run): the server itself refused it for now (a toolwire replica draining, or its session store down), so it was not run; the server's words stay out of the reason |
//! | another 4xx or 5xx with a JSON-RPC error body (`id` may be `null`) | that error, for the request the POST carried |
//! | another 4xx but 408 and 429 (a 404 with no session, a 405) | the request fails naming the status (not retryable) |
//! | any other status (5xx, 408, 429), or no connection | the request fails as `unavailable`; a tool call cut off after it was sent, on a tool that must not be re-run, as outcome unknown |
//!
//! Once `initialize` assigns a session, the client also opens the session's standalone `GET`
//! stream (before `notifications/initialized`), where servers send requests and notifications
//! that belong to no request of ours.
//!
//! A request's SSE stream that ends before its answer, after an event with an `id` (2025-11-25
//! resumability, SEP-1699: the server closes it on purpose, or the network broke it), is
//! resumed: after the stream's last `retry` interval (1s when it gave none) the client sends
//! `GET` with `Last-Event-ID`, the session id and the protocol version, and reads the answer
//! from that stream; a stream that breaks again is resumed again. Up to 5 resumptions in a row
//! that bring no new event, and only while the caller still waits (its timeout bounds them);
//! a server that answers the `GET` with anything but an SSE stream (405: it keeps no streams)
//! ends it. Then the request fails as `unavailable`. A stream without event ids, and any
//! stream of the 2026-07-28 era (which has no resumability), fails the request at once. The
//! session's standalone `GET` stream is reopened the same way, with `Last-Event-ID`.
//!
//! A request abandoned by its caller (timeout, cancellation) has its SSE stream dropped,
//! which is the modern era's cancellation signal. `close` sends `DELETE` with the session id.

mod legacy_sse;
mod link;
mod shared;
mod sse;
mod tls;

pub(crate) use link::HttpLink;
#[cfg(feature = "client-oauth")]
pub(crate) use tls::connector;

#[cfg(feature = "fuzzing")]
use sse::{Cursor, SseParser};

/// The fuzz target's way into the SSE parser: `data` minus its first byte, fed in two chunks
/// split where that byte says, so chunk boundaries (a CR in one, its LF in the next) are
/// fuzzed too.
#[cfg(feature = "fuzzing")]
pub(crate) fn fuzz_sse(data: &[u8]) {
    let Some((&at, rest)) = data.split_first() else { return };
    let (a, b) = rest.split_at(usize::from(at).min(rest.len()));
    let mut parser = SseParser::default();
    let mut cursor = Cursor::default();
    for chunk in [a, b] {
        parser.feed(chunk, |event| cursor.advance(&event));
    }
}
