//! [`Talkback`]: the way back to the client that a server installs in a call's
//! [`Context`](super::Context).

use std::future::Future;
use std::pin::Pin;

use serde_json::value::RawValue;

use crate::protocol::{ClientCapabilities, LoggingLevel};

use super::error::AskError;

/// What a [`Talkback::request`] resolves to: the client's `result`, raw.
pub type Asked = Pin<Box<dyn Future<Output = Result<Box<RawValue>, AskError>> + Send>>;

/// The way back to the client that made a call: what a server installs in the call's
/// [`Context`](super::Context) so the tool can log to the client and ask it things. Tools
/// never use it directly; they call [`Context::log`](super::Context::log),
/// [`Context::elicit`](super::Context::elicit) and the rest.
///
/// The engine's implementation sends on the call's own stream (stdio's output; on HTTP,
/// the SSE stream of the POST that carried the call), correlates each request with its
/// answer, applies a timeout, and, when the request's future is dropped (the call was
/// cancelled), forgets the request and tells the client with `notifications/cancelled`.
pub trait Talkback: Send + Sync + 'static {
    /// What the client declared it can be asked for.
    fn capabilities(&self) -> ClientCapabilities;

    /// The least severe level the client wants (`logging/setLevel`); `None` sends no logs.
    /// Called on every [`Context::log`](super::Context::log), so it must be cheap.
    fn log_level(&self) -> Option<LoggingLevel>;

    /// Send a notification (`params` is a JSON object, already text).
    fn notify(&self, method: &str, params: String);

    /// Send a request and wait for its answer (`params` is a JSON object, already text).
    fn request(&self, method: &'static str, params: String) -> Asked;

    /// [`request`](Self::request) under `key`, the name the tool gave the ask
    /// ([`Context::elicit_as`](super::Context::elicit_as) and the other `_as` asks). A
    /// 2026-07-28 round uses it as the ask's `inputRequests` key; a legacy session, which
    /// correlates by JSON-RPC id, ignores it (the default).
    fn request_as(&self, key: Option<&str>, method: &'static str, params: String) -> Asked {
        let _ = key;
        self.request(method, params)
    }

    /// The roots cached for this session, if they are still fresh.
    fn cached_roots(&self) -> Option<std::sync::Arc<super::roots::Roots>> {
        None
    }

    /// Remember `roots` for this session until the client says its roots changed.
    /// `generation` is [`roots_generation`](Self::roots_generation) from before the request,
    /// so an answer that raced a change is not cached.
    fn cache_roots(&self, _generation: u64, _roots: std::sync::Arc<super::roots::Roots>) {}

    /// A counter bumped on every `notifications/roots/list_changed`.
    fn roots_generation(&self) -> u64 {
        0
    }
}
