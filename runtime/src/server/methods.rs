//! The methods this server answers, and the era each request is served in.
//!
//! A request whose `_meta` carries `io.modelcontextprotocol/protocolVersion` is a modern
//! (2026-07-28) request and is served statelessly from its own `_meta`: the version must be a
//! supported modern one (else -32022, listing what is supported) and
//! `io.modelcontextprotocol/clientCapabilities` must be present (else -32602). Any other
//! request is a legacy one and is served under the session's `initialize` (else -32602, except
//! `ping`, which the legacy spec allows before the handshake). Both eras are served side by
//! side by one session.
//!
//! | method | answer |
//! | --- | --- |
//! | `initialize` | legacy handshake: echo a supported version, else counter-offer 2025-11-25 |
//! | `ping` | an empty result, in either era (2026-07-28 dropped `ping`; answering costs nothing and a keepalive that got -32601 would tear a session down for nothing) |
//! | `server/discover` | modern: supported versions, capabilities, instructions, caching hints |
//! | `tools/list` | one pre-serialised page; `nextCursor` while more remain |
//! | `tools/call` | spawned as a task (see [`call`](super::call)); under `polling_inline` on a current-thread runtime, polled once first and spawned only if it waits |
//! | anything else | -32601 (resources, prompts and logging are not advertised) |

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::args::{PyList, PyStr};
use crate::context::PeerInfo;
use crate::protocol::envelope::{kind, raw_str};
use crate::protocol::lifecycle::{
    InitializeParams, initialize_result, negotiate_legacy, unsupported_version_data,
};
use crate::protocol::meta::{ImplementationIn, MetaParams, RequestMeta};
use crate::protocol::notifications::is_progress_token;
use crate::protocol::tools::{CallToolParams, ListToolsParams};
use crate::protocol::{
    CLIENT_CAPABILITIES_KEY, Era, PROTOCOL_VERSION_KEY, ProtocolVersion, RequestId, RpcError, code,
};

use super::call::{CallJob, ProgressChannel, polls_inline};
use super::running::RunningCall;
use super::session::{LegacyState, SessionInner};
use super::sink::Reply;

/// How one request is served.
enum Served {
    /// Under the session's handshake (`None`: there has been none).
    Legacy(Option<LegacyState>),
    /// Statelessly, from the request's own `_meta`.
    Modern { client: PeerInfo },
}

impl SessionInner {
    pub(crate) fn request(self: &Arc<Self>, reply: Reply, method: &str, params: Option<&RawValue>) {
        let outcome = match method {
            "initialize" => self.initialize(params).map(Cow::Owned),
            "ping" => self.ping(params),
            "server/discover" => self.discover(params),
            "tools/list" => self.list_tools(params),
            "tools/call" => return self.call_tool(reply, params),
            other => Err(RpcError::new(code::METHOD_NOT_FOUND, format!("method {} not found", PyStr(other)))),
        };
        match outcome {
            Ok(body) => reply.result(&body),
            Err(error) => reply.error(error),
        }
    }

    fn initialize(&self, params: Option<&RawValue>) -> Result<String, RpcError> {
        let p: InitializeParams<'_> = decode_params("initialize", params)?;
        let mut legacy = self.legacy.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(state) = &*legacy {
            return Err(RpcError::invalid_request(format!(
                "invalid request: the session is already initialized (protocol version {})",
                state.version
            )));
        }
        let version = negotiate_legacy(&p.protocol_version);
        let client = p.client();
        tracing::info!(
            client = client.name.as_deref().unwrap_or("?"),
            requested = %p.protocol_version,
            serving = %version,
            "initialize"
        );
        *legacy = Some(LegacyState { version, client: peer(&client, version), initialized: false });
        let options = &self.shared.options;
        Ok(initialize_result(version, &options.info, options.instructions.as_deref()))
    }

    fn ping(&self, params: Option<&RawValue>) -> Result<Cow<'_, str>, RpcError> {
        let p: MetaParams<'_> = decode_params("ping", params)?;
        Ok(match self.served(p.meta.as_ref())? {
            Served::Legacy(_) => Cow::Borrowed("{}"),
            Served::Modern { .. } => Cow::Owned(self.shared.modern_body("{}")),
        })
    }

    fn discover(&self, params: Option<&RawValue>) -> Result<Cow<'_, str>, RpcError> {
        let p: MetaParams<'_> = decode_params("server/discover", params)?;
        match self.served(p.meta.as_ref())? {
            Served::Modern { .. } => Ok(Cow::Borrowed(&self.shared.discover_body)),
            Served::Legacy(_) => Err(missing_envelope("server/discover")),
        }
    }

    /// The pre-serialised page, borrowed: it is copied once, into the response envelope.
    fn list_tools(&self, params: Option<&RawValue>) -> Result<Cow<'_, str>, RpcError> {
        let p: ListToolsParams<'_> = decode_params("tools/list", params)?;
        let modern = match self.served(p.meta.as_ref())? {
            Served::Legacy(None) => return Err(not_initialized()),
            Served::Legacy(Some(_)) => false,
            Served::Modern { .. } => true,
        };
        self.shared.listing.page(p.cursor.as_deref(), modern).map(Cow::Borrowed)
    }

    fn call_tool(self: &Arc<Self>, reply: Reply, params: Option<&RawValue>) {
        self.shared.calls_seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p: CallToolParams<'_> = match decode_params("tools/call", params) {
            Ok(p) => p,
            Err(e) => return reply.error(e),
        };
        let (peer, modern) = match self.served(p.meta.as_ref()) {
            Err(e) => return reply.error(e),
            Ok(Served::Legacy(None)) => return reply.error(not_initialized()),
            Ok(Served::Legacy(Some(state))) => (state.client, false),
            Ok(Served::Modern { client, .. }) => (client, true),
        };
        let Some(tool) = self.shared.registry.get(&p.name).cloned() else {
            return reply.error(RpcError::invalid_params(format!(
                "unknown tool {}; available tools: {}",
                PyStr(&p.name),
                PyList(&self.shared.tool_names)
            )));
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return reply.error(RpcError::new(
                code::INTERNAL_ERROR,
                "internal error: the server is not running on a tokio runtime",
            ));
        };
        let Some(id) = reply.id().cloned() else { return reply.error(not_initialized()) };
        let progress = p
            .meta
            .as_ref()
            .and_then(|m| m.progress_token)
            .filter(|t| is_progress_token(t))
            .map(|t| ProgressChannel::new(reply.route().sink().clone(), t.to_owned()));
        let args = match p.arguments {
            Some(a) => a.to_owned(),
            None => RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| Box::<RawValue>::default()),
        };
        let cancel =
            self.shared.options.cancellation.as_ref().map(CancellationToken::child_token).unwrap_or_default();

        // Spawn while holding the table's lock, so the call is in the table before it can
        // complete: whoever removes the entry (completion or cancellation) decides whether
        // a response goes out.
        let mut calls = self.running.lock();
        if calls.contains_key(&id) {
            drop(calls);
            return reply.error(RpcError::invalid_request(format!(
                "invalid request: request id {id} is already in use by a call in flight"
            )));
        }
        let job = CallJob {
            shared: self.shared.clone(),
            tool,
            args,
            peer,
            cancel: cancel.clone(),
            progress,
            modern,
            reply: reply.tracked(self.running.clone()),
        };
        if polls_inline() && runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread {
            calls.insert(id.clone(), RunningCall { abort: None, cancel });
            drop(calls);
            return self.poll_then_spawn(&runtime, id, job);
        }
        let handle = runtime.spawn(job.run());
        calls.insert(id, RunningCall { abort: Some(handle.abort_handle()), cancel });
    }

    /// Poll a call once on this thread; spawn it only if it is not done. The call is in the
    /// running table already, without an abort handle until it is spawned.
    fn poll_then_spawn(&self, runtime: &tokio::runtime::Handle, id: RequestId, job: CallJob) {
        use std::task::{Context, Poll, Waker};
        let mut run = Box::pin(job.run());
        // A panic outside the tool's own guard drops the call's `Reply`, which answers
        // -32603 (as a panicking task does); the future is dropped with it.
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run.as_mut().poll(&mut Context::from_waker(Waker::noop()))
        }));
        if !matches!(polled, Ok(Poll::Pending)) {
            return;
        }
        // Spawning polls it again at once, with the task's waker: every future registers the
        // waker of its latest poll, so the no-op one above is never the one woken.
        let handle = runtime.spawn(run);
        match self.running.lock().get_mut(&id) {
            Some(call) => call.abort = Some(handle.abort_handle()),
            // Cancelled in between: its future goes, as a cancelled call's does.
            None => handle.abort(),
        }
    }

    fn served(&self, meta: Option<&RequestMeta<'_>>) -> Result<Served, RpcError> {
        let Some((meta, version)) = meta.and_then(|m| m.protocol_version.map(|v| (m, v))) else {
            return Ok(Served::Legacy(self.legacy_state()));
        };
        let Some(caps) = meta.client_capabilities else {
            return Err(RpcError::invalid_params(format!(
                "invalid params: `_meta` is missing the required key {CLIENT_CAPABILITIES_KEY}"
            )));
        };
        let Some(name) = raw_str(version) else {
            return Err(RpcError::invalid_params(format!(
                "invalid params: `_meta` key {PROTOCOL_VERSION_KEY} must be a string, got {}",
                kind(version.get())
            )));
        };
        let Some(version) = ProtocolVersion::parse(&name).filter(|v| v.era() == Era::Modern) else {
            let legacy: Vec<&str> =
                ProtocolVersion::of_era(Era::Legacy).map(ProtocolVersion::as_str).collect();
            return Err(RpcError::new(
                code::UNSUPPORTED_PROTOCOL_VERSION,
                format!(
                    "Unsupported protocol version {}: this server takes {} in `_meta`, and {} through `initialize`",
                    PyStr(&name),
                    ProtocolVersion::LATEST,
                    legacy.join(", ")
                ),
            )
            .with_data(unsupported_version_data(version)));
        };
        if caps.get().as_bytes().first() != Some(&b'{') {
            return Err(RpcError::invalid_params(format!(
                "invalid params: `_meta` key {CLIENT_CAPABILITIES_KEY} must be an object, got {}",
                kind(caps.get())
            )));
        }
        let client = ImplementationIn::read(meta.client_info);
        Ok(Served::Modern { client: peer(&client, version) })
    }
}

fn peer(client: &ImplementationIn<'_>, version: ProtocolVersion) -> PeerInfo {
    PeerInfo {
        name: client.name.as_deref().map(str::to_owned),
        version: client.version.as_deref().map(str::to_owned),
        protocol_version: Some(version.as_str().to_owned()),
    }
}

/// Decode a method's params (absent params read as `{}`); MCP params are always an object.
fn decode_params<'a, T: Deserialize<'a>>(method: &str, params: Option<&'a RawValue>) -> Result<T, RpcError> {
    let text = params.map_or("{}", RawValue::get);
    if !text.starts_with('{') {
        return Err(RpcError::invalid_params(format!(
            "invalid params for {}: params must be an object, got {}",
            PyStr(method),
            kind(text)
        )));
    }
    serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.rfind(" at line ").map_or(msg.as_str(), |i| &msg[..i]);
        RpcError::invalid_params(format!("invalid params for {}: {msg}", PyStr(method)))
    })
}

fn not_initialized() -> RpcError {
    RpcError::invalid_params(format!(
        "invalid params: no session: send `initialize` first (protocol versions up to {}), or put {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY} in this request's `_meta` ({})",
        ProtocolVersion::LATEST_LEGACY,
        ProtocolVersion::LATEST
    ))
}

fn missing_envelope(method: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "invalid params: {} needs `_meta` with {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY} ({} and later)",
        PyStr(method),
        ProtocolVersion::LATEST
    ))
}
