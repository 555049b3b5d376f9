//! The era a request is served in, and the helpers every method shares: decoding params,
//! and the errors for a request outside any session.
//!
//! A request whose `_meta` carries `io.modelcontextprotocol/protocolVersion` is a modern
//! (2026-07-28) request and is served statelessly from its own `_meta`: the version must be a
//! supported modern one (else -32022, listing what is supported) and
//! `io.modelcontextprotocol/clientCapabilities` must be present (else -32602). Any other
//! request is a legacy one and is served under the session's `initialize`.
//!
//! Every method that does something goes through [`SessionInner::served`] first.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::args::PyStr;
use crate::context::PeerInfo;
use crate::protocol::envelope::kind;
use crate::protocol::envelope::raw_str;
use crate::protocol::lifecycle::unsupported_version_data;
use crate::protocol::meta::{ImplementationIn, RequestMeta};
use crate::protocol::{CLIENT_CAPABILITIES_KEY, Era, PROTOCOL_VERSION_KEY, ProtocolVersion, RpcError, code};

use super::state::{LegacyState, SessionInner};

/// How one request is served.
pub(crate) enum Served {
    /// Under the session's handshake (`None`: there has been none).
    Legacy(Option<LegacyState>),
    /// Statelessly, from the request's own `_meta`.
    Modern {
        /// Who the request's `_meta` says the client is.
        client: PeerInfo,
    },
}

impl Served {
    /// For a method that needs a session or an envelope: who the client is and whether the
    /// answer is modern; a legacy request before `initialize` is refused.
    pub(crate) fn peer(self) -> Result<(Arc<PeerInfo>, bool), RpcError> {
        match self {
            Served::Legacy(None) => Err(not_initialized()),
            Served::Legacy(Some(state)) => Ok((state.client, false)),
            Served::Modern { client } => Ok((Arc::new(client), true)),
        }
    }
}

impl SessionInner {
    /// The era `meta` puts a request in, checked: a modern envelope must be complete and name
    /// a supported version.
    pub(crate) fn served(&self, meta: Option<&RequestMeta<'_>>) -> Result<Served, RpcError> {
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

/// The [`PeerInfo`] a call is handed, from what the client said and the version served.
pub(crate) fn peer(client: &ImplementationIn<'_>, version: ProtocolVersion) -> PeerInfo {
    PeerInfo {
        name: client.name.as_deref().map(str::to_owned),
        version: client.version.as_deref().map(str::to_owned),
        protocol_version: Some(version.as_str().to_owned()),
    }
}

/// Decode a method's params (absent params read as `{}`); MCP params are always an object.
pub(crate) fn decode_params<'a, T: Deserialize<'a>>(
    method: &str,
    params: Option<&'a RawValue>,
) -> Result<T, RpcError> {
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

/// -32602 for a legacy request before `initialize`.
pub(crate) fn not_initialized() -> RpcError {
    RpcError::invalid_params(format!(
        "invalid params: no session: send `initialize` first (protocol versions up to {}), or put {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY} in this request's `_meta` ({})",
        ProtocolVersion::LATEST_LEGACY,
        ProtocolVersion::LATEST
    ))
}

/// -32602 for a modern-only method sent without a modern `_meta`.
pub(crate) fn missing_envelope(method: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "invalid params: {} needs `_meta` with {PROTOCOL_VERSION_KEY} and {CLIENT_CAPABILITIES_KEY} ({} and later)",
        PyStr(method),
        ProtocolVersion::LATEST
    ))
}

/// -32601 for a method this server does not serve (or whose capability was not registered).
pub(crate) fn method_not_found(method: &str) -> RpcError {
    RpcError::new(code::METHOD_NOT_FOUND, format!("method {} not found", PyStr(method)))
}
