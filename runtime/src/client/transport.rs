//! The client's transport seam: [`Transport`], what carries a client's messages to a server
//! and the server's back. [`StdioServer`], [`HttpServer`], [`Lines`](super::Lines) and
//! [`InProcess`](super::InProcess) are transports; so is anything that implements the trait.
//!
//! The design (message-level, eras and sessions) is on [`Transport`].

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};

use tokio::sync::mpsc;

use super::conn::{Conn, Failure, Out};
use super::error::ClientError;
use super::http::HttpLink;
use super::options::{HttpServer, ServerTransport, StdioServer};
use super::stdio::StdioLink;

/// What [`Transport::start`] returns: the running transport, or why it could not start.
pub type StartFuture = Pin<Box<dyn Future<Output = Result<Box<dyn Link>, ClientError>> + Send + 'static>>;

/// What [`Link::close`] returns.
pub type CloseFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// What carries a client's messages to one server and back.
///
/// # The shape, and why
///
/// A transport moves whole JSON-RPC messages, not bytes: it takes each [`Message`] the client
/// sends from [`Outgoing`] and hands each message the server sends to [`Incoming`]. Framing
/// (stdio's one line per message, HTTP's bodies and SSE events) is the transport's own
/// business, so HTTP's one-exchange-per-request fits as well as a pipe does: a [`Message`]
/// says whether it is a request ([`Message::request_id`]) and which method and name it
/// carries, and a transport that loses one request's exchange fails that request alone
/// ([`Incoming::lost`], [`Incoming::not_sent`]) rather than the connection
/// ([`Incoming::closed`]).
///
/// Everything the protocol says is the client's: it chooses the era and negotiates the version
/// (`initialize`, or `server/discover` on 2026-07-28) with ordinary messages, numbers its
/// requests, times them out, answers the server's requests. A transport never reads a message
/// to act on it. Two things cross the seam because some transports need them:
///
/// - the negotiated version, told once through [`Link::set_protocol_version`] (HTTP sends it
///   as `MCP-Protocol-Version` on every exchange) and readable at any time from
///   [`Incoming::protocol_version`];
/// - sessions are the transport's: HTTP keeps its `Mcp-Session-Id` and, when the server has
///   lost the session, replays `initialize` by itself. A transport without sessions (a pipe,
///   in process) has nothing to keep.
///
/// The client's own work costs nothing more through the seam: the built-in transports are
/// started through it once, and each message then travels as before (a channel from the
/// client to the transport's writer, a direct call from its reader into the client).
///
/// # Writing one
///
/// [`Transport::start`] spawns what the transport needs (a writer draining [`Outgoing`], a
/// reader feeding [`Incoming`]) and returns its running half, a [`Link`], which
/// [`Client::close`](super::Client::close) closes and dropping the client drops. A transport
/// that learns the far end is gone says so once with [`Incoming::closed`]; every request still
/// waiting then fails with that reason, and so does every later one. `tests/tests/client_transport.rs`
/// has one over a child process's stdin and stdout that records every message both ways.
pub trait Transport: Send + 'static {
    /// Start carrying messages: send each one `outgoing` yields, in order, and hand each
    /// message from the server to `incoming`. Called once, by
    /// [`Client::connect`](super::Client::connect), on a tokio runtime, before the handshake.
    fn start(self: Box<Self>, outgoing: Outgoing, incoming: Incoming) -> StartFuture;
}

/// A started transport, as the client holds it.
pub trait Link: Send + Sync + 'static {
    /// Close gracefully (a child given time to exit, an HTTP session ended with `DELETE`).
    /// Called at most once, by [`Client::close`](super::Client::close); dropping the link
    /// without it must stop everything the transport started, at once.
    fn close(&mut self) -> CloseFuture<'_>;

    /// The negotiated protocol version, told once the handshake settles it.
    fn set_protocol_version(&self, version: &str) {
        let _ = version;
    }

    /// The server's process id, when the transport started one.
    fn pid(&self) -> Option<u32> {
        None
    }
}

/// One message from the client, for the transport to send.
#[derive(Debug)]
pub struct Message(pub(crate) Out);

impl Message {
    /// The whole message, one line of JSON (no newline in it).
    pub fn json(&self) -> &str {
        &self.0.json
    }

    /// The message's text, taken.
    pub fn into_json(self) -> String {
        self.0.json
    }

    /// The request's id, when the message is a request of the client's (not a notification,
    /// nor an answer to a request of the server's): what [`Incoming::lost`] and
    /// [`Incoming::not_sent`] take.
    pub fn request_id(&self) -> Option<i64> {
        self.0.id
    }

    /// The method, for a request or a notification.
    pub fn method(&self) -> Option<&str> {
        self.0.method.as_deref()
    }

    /// A request's `params.name` or `params.uri` (the tool, prompt or resource it names).
    pub fn name(&self) -> Option<&str> {
        self.0.name.as_deref()
    }

    /// Headers this request asks to carry, each a name and a value ready to send (already
    /// encoded, `=?base64?…?=` where the value needs it): on a call of an adopted tool, the
    /// `Mcp-Param-{Name}` of each of its `x-mcp-header` parameters (2026-07-28, SEP-2243).
    /// An HTTP transport sends them with the request's POST; a transport without headers
    /// (a pipe, in process) ignores them, as the spec lets it.
    pub fn headers(&self) -> &[(String, String)] {
        &self.0.headers
    }
}

/// The client's messages, in the order it sent them.
#[derive(Debug)]
pub struct Outgoing(pub(crate) mpsc::UnboundedReceiver<Out>);

impl Outgoing {
    /// The next message; `None` once the client is gone.
    pub async fn recv(&mut self) -> Option<Message> {
        self.0.recv().await.map(Message)
    }
}

/// Where a transport hands what the server says. Cheap to clone; it does not keep the
/// client alive (once the client is dropped, each call does nothing).
#[derive(Clone, Debug)]
pub struct Incoming(pub(crate) Weak<Conn>);

impl Incoming {
    /// The client's connection, for the built-in transports.
    pub(crate) fn conn(&self) -> Result<Arc<Conn>, ClientError> {
        self.0.upgrade().ok_or_else(|| ClientError::Unavailable {
            server: String::new(),
            reason: "was dropped before its transport started".into(),
        })
    }

    /// One message from the server (a JSON-RPC response, request or notification, or a
    /// batch of them), as text. A text that is not JSON is logged and skipped.
    pub fn deliver(&self, message: &str) {
        if let Some(conn) = self.0.upgrade() {
            conn.on_text(message);
        }
    }

    /// The exchange carrying request `request_id` broke after the request may have reached
    /// the server: the request fails (it may have run). `reason` completes "server 'x' …",
    /// as `dropped the connection` does.
    pub fn lost(&self, request_id: i64, reason: impl Into<String>) {
        if let Some(conn) = self.0.upgrade() {
            conn.fail(request_id, Failure::Lost(reason.into()));
        }
    }

    /// Request `request_id` could not be sent: it fails, and the server never saw it.
    pub fn not_sent(&self, request_id: i64, reason: impl Into<String>) {
        if let Some(conn) = self.0.upgrade() {
            conn.fail(request_id, Failure::Gone(reason.into()));
        }
    }

    /// The exchange carrying request `request_id` was answered with HTTP status `status`
    /// instead of a message: 401 or 403 fail the request as refused credentials
    /// ([`ClientError::Unauthorized`], [`RemoteError::Unauthorized`](crate::tool::RemoteError::Unauthorized)),
    /// another as a status trying again will not change.
    pub fn http_status(&self, request_id: i64, status: u16) {
        if let Some(conn) = self.0.upgrade() {
            conn.fail(request_id, Failure::Http(status));
        }
    }

    /// The server is gone (`reason` completes "server 'x' …": `exited with status 1`): every
    /// request waiting fails with it, and so does every later one. The first reason stays.
    pub fn closed(&self, reason: impl Into<String>) {
        if let Some(conn) = self.0.upgrade() {
            conn.shut(reason);
        }
    }

    /// The negotiated protocol version, once there is one.
    pub fn protocol_version(&self) -> Option<String> {
        self.0.upgrade().and_then(|c| c.version())
    }
}

impl Transport for StdioServer {
    fn start(self: Box<Self>, outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        Box::pin(async move {
            let link = StdioLink::spawn(&self, &incoming.conn()?, outgoing.0)?;
            Ok(Box::new(link) as Box<dyn Link>)
        })
    }
}

impl Transport for HttpServer {
    fn start(self: Box<Self>, outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        Box::pin(async move {
            let conn = incoming.conn()?;
            let link = HttpLink::start(&self, &conn, outgoing.0, conn.options())?;
            Ok(Box::new(link) as Box<dyn Link>)
        })
    }
}

impl Transport for ServerTransport {
    fn start(self: Box<Self>, outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        match *self {
            ServerTransport::Stdio(s) => Box::new(s).start(outgoing, incoming),
            ServerTransport::Http(h) => Box::new(h).start(outgoing, incoming),
        }
    }
}

impl Link for StdioLink {
    fn close(&mut self) -> CloseFuture<'_> {
        Box::pin(self.shutdown())
    }

    fn pid(&self) -> Option<u32> {
        StdioLink::pid(self)
    }
}

impl Link for HttpLink {
    fn close(&mut self) -> CloseFuture<'_> {
        Box::pin(HttpLink::close(self))
    }

    fn set_protocol_version(&self, version: &str) {
        HttpLink::set_protocol_version(self, version);
    }
}
