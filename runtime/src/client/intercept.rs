//! The client's interceptor seam: [`SendInterceptor`] (its docs say what one sees and may
//! say), [`Sending`], [`SendVerdict`], [`SendWatch`] and [`SendOutcome`], and the chain a
//! connection runs over each request it sends (`Interceptors`, run by `conn`).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::protocol::Era;

/// The client's interceptor seam: [`SendInterceptor`]s a [`ClientOptions`](super::ClientOptions)
/// installs ([`ClientOptions::intercept`](super::ClientOptions::intercept)) see every request
/// the client sends (the handshake, `tools/call` and every other method, the adopted tools'
/// calls included) just before it is written, and may change its `_meta` and its HTTP
/// headers, answer it themselves, refuse it, or pass it on and watch how it ends.
///
/// What one sees is a [`Sending`]: the server's configured name, the method, the request id,
/// the params (the name, the arguments, `_meta` with what toolwire put there: a modern
/// request's protocol version and client, a `progressToken`), the era, and the headers the
/// request carries of its own. It runs on the task that sends the request, inside the
/// caller's poll: a tracing span or telemetry context current there (a tool's body that
/// calls an adopted tool) is current here, which is how trace context gets into `_meta`.
///
/// | verdict | what happens |
/// | --- | --- |
/// | [`SendVerdict::Pass`] | the request is sent as it now is |
/// | [`SendVerdict::Watch`] | sent, and the [`SendWatch`] told its [`SendOutcome`] |
/// | [`SendVerdict::Answer`] | not sent: the caller gets this result |
/// | [`SendVerdict::Refuse`] | not sent: the caller gets [`ClientError::Refused`](super::ClientError::Refused) (a tool call, the tool error `tool 'x' failed: refused before it was sent to server 's': <reason>`) |
///
/// A transport's own messages (HTTP's `initialize` replayed for a lost session, its `GET`
/// and `DELETE`) and notifications are not requests of the client's, and are not seen. The
/// HTTP session's id is the transport's, below this seam: it is not seen either.
///
/// Any `Fn(&mut Sending<'_>) -> SendVerdict + Send + Sync + 'static` closure is one.
///
/// ```
/// use toolwire::client::{ClientOptions, Sending, SendVerdict};
///
/// // Tag every request with the run it belongs to.
/// let options = ClientOptions::new("files").intercept(|request: &mut Sending<'_>| {
///     request.meta_mut().insert("com.example/run".into(), "run-42".into());
///     SendVerdict::Pass
/// });
/// # let _ = options;
/// ```
pub trait SendInterceptor: Send + Sync + 'static {
    /// Look at (and perhaps change) `request`, and say what becomes of it.
    fn intercept(&self, request: &mut Sending<'_>) -> SendVerdict;
}

impl<F: Fn(&mut Sending<'_>) -> SendVerdict + Send + Sync + 'static> SendInterceptor for F {
    fn intercept(&self, request: &mut Sending<'_>) -> SendVerdict {
        self(request)
    }
}

/// What a client [`SendInterceptor`] decided for one request.
#[non_exhaustive]
pub enum SendVerdict {
    /// Send it.
    Pass,
    /// Send it, and tell this watch how it ended.
    Watch(Box<dyn SendWatch>),
    /// Do not send it: the caller gets this result, as if the server had sent it.
    Answer(Value),
    /// Do not send it: the caller gets [`ClientError::Refused`](super::ClientError::Refused)
    /// with this reason.
    Refuse(String),
}

impl SendVerdict {
    /// Refuse the request with `reason`.
    pub fn refuse(reason: impl Into<String>) -> SendVerdict {
        SendVerdict::Refuse(reason.into())
    }

    /// Send the request, and tell `watch` how it ended.
    pub fn watch(watch: impl SendWatch) -> SendVerdict {
        SendVerdict::Watch(Box::new(watch))
    }
}

impl std::fmt::Debug for SendVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendVerdict::Pass => f.write_str("Pass"),
            SendVerdict::Watch(_) => f.write_str("Watch(..)"),
            SendVerdict::Answer(body) => f.debug_tuple("Answer").field(body).finish(),
            SendVerdict::Refuse(reason) => f.debug_tuple("Refuse").field(reason).finish(),
        }
    }
}

/// Follows one request a client [`SendInterceptor`] let through ([`SendVerdict::Watch`]).
pub trait SendWatch: Send + 'static {
    /// The request ended: called once.
    fn finished(self: Box<Self>, outcome: SendOutcome<'_>);
}

/// How a request a client sent ended, as its [`SendWatch`] is told.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum SendOutcome<'a> {
    /// The server answered with this result (a JSON object; a failed tool call is a result
    /// with `"isError": true`).
    Completed(&'a str),
    /// The server answered with this JSON-RPC error.
    Error {
        /// The error's code.
        code: i64,
        /// The server's message: untrusted.
        message: &'a str,
    },
    /// No answer, because the caller stopped waiting (cancelled it, before or after it was
    /// sent); `reason` says which, in toolwire's words.
    Cancelled {
        /// What happened, in toolwire's words.
        reason: &'a str,
    },
    /// No answer: timed out, the connection failed, an HTTP status, or the credentials were
    /// refused; `reason` says which.
    Failed {
        /// What happened, in toolwire's words.
        reason: &'a str,
    },
}

/// One request a client is about to send, as a [`SendInterceptor`] sees it. `_meta` and the
/// request's own headers may be changed here; the rest is read-only.
pub struct Sending<'a> {
    pub(crate) server: &'a str,
    pub(crate) method: &'a str,
    pub(crate) id: i64,
    pub(crate) params: &'a mut Map<String, Value>,
    pub(crate) headers: &'a mut Vec<(String, String)>,
    pub(crate) modern: bool,
}

impl Sending<'_> {
    /// The server's name as the client was configured with it (never its self-reported one).
    pub fn server(&self) -> &str {
        self.server
    }

    /// The method, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        self.method
    }

    /// The request's JSON-RPC id (integers from 1 on each connection).
    pub fn id(&self) -> i64 {
        self.id
    }

    /// `params.name` (a tool, a prompt), else `params.uri` (a resource), else `params.taskId`
    /// (a task's methods).
    pub fn name(&self) -> Option<&str> {
        self.params
            .get("name")
            .or_else(|| self.params.get("uri"))
            .or_else(|| self.params.get("taskId"))
            .and_then(Value::as_str)
    }

    /// `params.arguments`, when there are any.
    pub fn arguments(&self) -> Option<&Value> {
        self.params.get("arguments").filter(|a| !a.is_null())
    }

    /// The params, as they will be sent.
    pub fn params(&self) -> &Map<String, Value> {
        self.params
    }

    /// `params._meta`, when there is one.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.params.get("_meta").and_then(Value::as_object)
    }

    /// `params._meta`, made (empty) when there is none, to add to: `traceparent`, a key of the
    /// program's own. A `_meta` that is not an object is replaced.
    pub fn meta_mut(&mut self) -> &mut Map<String, Value> {
        let meta = self.params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        match meta {
            Value::Object(map) => map,
            _ => unreachable!("made an object just above"),
        }
    }

    /// The era the request is sent in: modern (2026-07-28, `_meta` carries the version) or
    /// legacy (under the connection's `initialize`).
    pub fn era(&self) -> Era {
        if self.modern { Era::Modern } else { Era::Legacy }
    }

    /// The headers this request carries of its own (a tool call's `Mcp-Param-*`), name and
    /// value; the transport adds its own (`Mcp-Method`, the session, credentials).
    pub fn headers(&self) -> &[(String, String)] {
        self.headers
    }

    /// Send `name: value` with this request over HTTP (ignored by transports without
    /// headers: stdio, in process).
    pub fn add_header(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.headers.push((name.into(), value.into()));
    }
}

impl std::fmt::Debug for Sending<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sending")
            .field("server", &self.server)
            .field("method", &self.method)
            .field("id", &self.id)
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// A client's interceptors, in the order they were installed.
#[derive(Default, Clone)]
pub(crate) struct Interceptors {
    chain: Vec<Arc<dyn SendInterceptor>>,
}

/// What the chain decided.
pub(crate) enum Decision {
    /// Send it; tell these how it ended.
    Send(Vec<Box<dyn SendWatch>>),
    /// Do not send it: answer with this (a result, or a refusal's reason); tell these.
    Answered(Result<Value, String>, Vec<Box<dyn SendWatch>>),
}

impl Interceptors {
    pub(crate) fn push(&mut self, interceptor: Arc<dyn SendInterceptor>) {
        self.chain.push(interceptor);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.chain.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.chain.len()
    }

    /// Run the chain over `request`.
    pub(crate) fn decide(&self, request: &mut Sending<'_>) -> Decision {
        let mut watches = Vec::new();
        for interceptor in &self.chain {
            match interceptor.intercept(request) {
                SendVerdict::Pass => {}
                SendVerdict::Watch(watch) => watches.push(watch),
                SendVerdict::Answer(body) => return Decision::Answered(Ok(body), watches),
                SendVerdict::Refuse(reason) => return Decision::Answered(Err(reason), watches),
            }
        }
        Decision::Send(watches)
    }
}

/// Tell each of `watches` how the request ended.
pub(crate) fn tell(watches: Vec<Box<dyn SendWatch>>, outcome: SendOutcome<'_>) {
    for watch in watches {
        watch.finished(outcome);
    }
}
