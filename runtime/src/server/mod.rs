//! The dispatch engine: a [`Server`] serving a [`ToolRegistry`] over MCP, in both protocol
//! eras, independent of any transport.
//!
//! A transport creates a [`Session`] per connection and feeds it one message at a time with
//! [`Session::handle`]; answers come back through a [`Sink`], zero or more per message. The
//! engine owns the protocol (lifecycle, version negotiation, routing), the error contract of
//! `tools/call`, concurrency, cancellation and progress; a transport owns only framing.
//!
//! Everything the server advertises is serialised once, in [`Server::new`]: `tools/list`
//! pages are copied out as bytes, and no schema work happens per request.
//!
//! - `options`: [`ServerOptions`].
//! - `session`: [`Session`], the per-connection entry point.
//! - `methods`: what each method answers and in which era.
//! - `call`: running one tool call under the error contract.
//! - `listing`: the pre-serialised `tools/list` pages and their cursors.
//! - `sink`: [`Sink`], replies and batches.

mod call;
mod listing;
mod methods;
mod options;
mod running;
mod session;
mod sink;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::protocol::SERVER_INFO_KEY;
use crate::json::json_string;
use crate::protocol::lifecycle::discover_result;
use crate::registry::ToolRegistry;

pub(crate) use call::polling_inline;
pub use options::{
    DEFAULT_LIST_TTL, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE,
    DEFAULT_SHUTDOWN_GRACE, ServerOptions, ServerOptionsBuilder,
};
pub use session::Session;
pub use sink::Sink;

use listing::Listing;

/// Serves a registry of tools over MCP, in both protocol eras.
///
/// Cheap to clone: clones share the registry, the pre-serialised listing, the in-flight
/// bound and the call counter.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolwire::{Outbound, Server, ServerOptions, Sink, tool, tools};
///
/// /// Say hello.
/// #[tool(read_only)]
/// fn hello(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let server = Server::new(tools![hello].unwrap(), ServerOptions::builder("demo", "0.1.0").build());
/// let session = server.session();
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink: Arc<dyn Sink> = { let seen = seen.clone(); Arc::new(move |m: Outbound| seen.lock().unwrap().push(m.into_string())) };
/// session.handle(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &sink);
/// assert_eq!(seen.lock().unwrap()[0], r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
/// # });
/// ```
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.shared.options.name())
            .field("version", &self.shared.options.version())
            .field("tools", &self.shared.tool_names)
            .field("calls_seen", &self.calls_seen())
            .finish_non_exhaustive()
    }
}

/// What every session of a server shares.
pub(crate) struct Shared {
    pub(crate) registry: ToolRegistry,
    pub(crate) options: ServerOptions,
    pub(crate) tool_names: Vec<String>,
    pub(crate) listing: Listing,
    /// `"_meta":{"io.modelcontextprotocol/serverInfo":{…}}`, on every modern result.
    pub(crate) modern_meta: String,
    pub(crate) discover_body: String,
    pub(crate) calls_seen: AtomicU64,
    pub(crate) permits: Semaphore,
}

impl Shared {
    /// A result body as the modern era sends it: with `_meta` (serverInfo) and
    /// `resultType: "complete"`. `body` is a JSON object this crate wrote.
    pub(crate) fn modern_body(&self, body: &str) -> String {
        let rest = body.strip_prefix('{').unwrap_or(body).trim_start();
        let sep = if rest.starts_with('}') { "" } else { "," };
        format!("{{{},\"resultType\":\"complete\"{sep}{rest}", self.modern_meta)
    }
}

impl Server {
    /// A server for `registry`. Serialises the listing and the lifecycle answers now, once.
    pub fn new(registry: ToolRegistry, options: ServerOptions) -> Server {
        let modern_meta =
            format!("\"_meta\":{{{}:{}}}", json_string(SERVER_INFO_KEY), options.info.to_json());
        let listing = Listing::build(&registry, options.page_size, &modern_meta, options.list_ttl);
        let tool_names = registry.names().map(str::to_owned).collect();
        let permits = Semaphore::new(options.max_in_flight.min(Semaphore::MAX_PERMITS));
        let mut shared = Shared {
            registry,
            tool_names,
            listing,
            modern_meta,
            discover_body: String::new(),
            calls_seen: AtomicU64::new(0),
            permits,
            options,
        };
        shared.discover_body = shared
            .modern_body(&discover_result(shared.options.instructions.as_deref(), shared.options.list_ttl));
        Server { shared: Arc::new(shared) }
    }

    /// A new session: one connection's state (its handshake, its calls in flight).
    pub fn session(&self) -> Session {
        Session::new(self.shared.clone())
    }

    /// A legacy session already through its handshake at `version`, for a request that
    /// arrives without one (stateless HTTP): what `initialize` and
    /// `notifications/initialized` would have settled, without building and discarding
    /// their answers. The client is unknown (no `clientInfo` was sent).
    #[cfg(feature = "http")]
    pub(crate) fn session_without_handshake(&self, version: crate::protocol::ProtocolVersion) -> Session {
        Session::already_initialized(self.shared.clone(), version)
    }

    /// How many `tools/call` requests this server has seen, whatever became of them. A
    /// count of zero means no call ever reached the server, which is a different bug from
    /// calls that failed.
    pub fn calls_seen(&self) -> u64 {
        self.shared.calls_seen.load(Ordering::Relaxed)
    }

    /// The options the server runs under.
    pub fn options(&self) -> &ServerOptions {
        &self.shared.options
    }

    /// The tools served.
    pub fn registry(&self) -> &ToolRegistry {
        &self.shared.registry
    }
}

/// Why a server-to-client `ping` got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PingError {
    /// The session has not completed the legacy handshake; a modern server sends no requests.
    #[error("the client cannot be pinged: no legacy session is initialized")]
    NotInitialized,
    /// No answer within the timeout.
    #[error("the client did not answer a ping within {0:?}")]
    TimedOut(Duration),
    /// The client answered with an error.
    #[error("the client answered a ping with error {code:?}: {message}")]
    Refused {
        /// The error code, when it sent an integer.
        code: Option<i64>,
        /// The error message.
        message: String,
    },
}
