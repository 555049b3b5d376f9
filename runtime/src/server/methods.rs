//! The methods this server answers, and the era each request is served in.
//!
//! A request is served in the era its `_meta` puts it in (see module `era`): modern
//! requests statelessly from their own `_meta`, legacy ones under the session's `initialize`
//! (else -32602, except `ping`, which the legacy spec allows before the handshake). Both eras
//! are served side by side by one session.
//!
//! | method | answer |
//! | --- | --- |
//! | `initialize` | legacy handshake: echo a supported version, else counter-offer 2025-11-25 |
//! | `ping` | an empty result, in either era (2026-07-28 dropped `ping`; answering costs nothing and a keepalive that got -32601 would tear a session down for nothing) |
//! | `server/discover` | modern: supported versions, capabilities, instructions, caching hints |
//! | `tools/list`, `tools/call` | the tools capability, when tools were registered (module `tools`): `tools/list` serves one pre-serialised page, with `nextCursor` while more remain; `tools/call` runs the tool through the one request path (module `request`) |
//! | `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`, `resources/unsubscribe` | the resources capability, when resources were registered (module `resources`) |
//! | `subscriptions/listen` | 2026-07-28: resource updates and list changes, when resources were registered or the server is live (module `live`) |
//! | `prompts/list`, `prompts/get` | the prompts capability, when prompts were registered (module `prompts`) |
//! | `completion/complete` | the completions capability, when something completes (module `completion`) |
//! | `logging/setLevel` | legacy: the session's log level for [`Context::log`](crate::Context::log) (module `logging`); modern: -32601 (2026-07-28 has no session to hold a level) |
//! | anything else | -32601 |
//!
//! One arm per capability: the lifecycle methods are answered here, and a capability's
//! methods go to that capability's module, or are -32601 when it was not registered. (The
//! arm names the methods rather than matching a prefix: `tools/call` is the hot path, and
//! an exact match is a length check and one compare.)

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::protocol::lifecycle::{InitializeParams, initialize_result, negotiate_legacy};
use crate::protocol::meta::MetaParams;
use crate::protocol::methods;
use crate::protocol::tools::CallToolParams;
use crate::protocol::{ClientCapabilities, RpcError};
use crate::sync::lock;

use super::era::{Served, decode_params, method_not_found, missing_envelope, peer};
use super::resources;
use super::session::{LegacyState, SessionInner};
use super::sink::Reply;
use super::{completion, live, prompts, tools};

impl SessionInner {
    pub(crate) fn request(self: &Arc<Self>, reply: Reply, method: &str, params: Option<&RawValue>) {
        // Each request takes a cell of its principal's rate limit first (module `rate`).
        if let Err(refused) = super::caller::admit(&self.shared) {
            return reply.error(refused);
        }
        let outcome = match method {
            methods::INITIALIZE => self.initialize(params).map(Cow::Owned),
            methods::PING => self.ping(params),
            methods::SERVER_DISCOVER => self.discover(params),
            methods::LOGGING_SET_LEVEL => self.set_level(params).map(Cow::Borrowed),
            methods::TOOLS_LIST | methods::TOOLS_CALL => match &self.shared.tools {
                Some(served) => return tools::request(self, served, reply, method, params),
                None => Err(method_not_found(method)),
            },
            methods::SUBSCRIPTIONS_LISTEN if live::listens(&self.shared) => {
                return live::listen(self, reply, params);
            }
            methods::RESOURCES_LIST
            | methods::RESOURCES_TEMPLATES_LIST
            | methods::RESOURCES_READ
            | methods::RESOURCES_SUBSCRIBE
            | methods::RESOURCES_UNSUBSCRIBE
            | methods::SUBSCRIPTIONS_LISTEN => match &self.shared.resources {
                Some(served) => return resources::request(self, served, reply, method, params),
                None => Err(method_not_found(method)),
            },
            methods::PROMPTS_LIST | methods::PROMPTS_GET => match &self.shared.prompts {
                Some(served) => return prompts::request(self, served, reply, method, params),
                None => Err(method_not_found(method)),
            },
            methods::COMPLETION_COMPLETE => match &self.shared.completion {
                Some(table) => return completion::request(self, table, reply, params),
                None => Err(method_not_found(method)),
            },
            other => Err(method_not_found(other)),
        };
        match outcome {
            Ok(body) => reply.result(&body),
            Err(error) => reply.error(error),
        }
    }

    /// A `tools/call` the session decoded in one pass (`envelope::decode_call`): served as
    /// [`request`](Self::request) serves one, without decoding its params again.
    pub(crate) fn call(self: &Arc<Self>, reply: Reply, params: CallToolParams<'_>) {
        if let Err(refused) = super::caller::admit(&self.shared) {
            return reply.error(refused);
        }
        match &self.shared.tools {
            Some(served) => tools::call_decoded(self, served, reply, params),
            None => reply.error(method_not_found(methods::TOOLS_CALL)),
        }
    }

    fn initialize(&self, params: Option<&RawValue>) -> Result<String, RpcError> {
        let p: InitializeParams<'_> = decode_params(methods::INITIALIZE, params)?;
        let mut legacy = lock(&self.legacy);
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
        let capabilities = ClientCapabilities::read(p.capabilities);
        *legacy = Some(LegacyState {
            version,
            client: Arc::new(peer(&client, version)),
            capabilities,
            initialized: false,
        });
        let shared = &self.shared;
        let options = &shared.options;
        Ok(initialize_result(version, &shared.capabilities, &options.info, options.instructions.as_deref()))
    }

    fn ping(&self, params: Option<&RawValue>) -> Result<Cow<'_, str>, RpcError> {
        let p: MetaParams<'_> = decode_params(methods::PING, params)?;
        Ok(match self.served(p.meta.as_ref())? {
            Served::Legacy(_) => Cow::Borrowed("{}"),
            Served::Modern { .. } => Cow::Borrowed(&self.shared.modern_empty),
        })
    }

    fn discover(&self, params: Option<&RawValue>) -> Result<Cow<'_, str>, RpcError> {
        let p: MetaParams<'_> = decode_params(methods::SERVER_DISCOVER, params)?;
        match self.served(p.meta.as_ref())? {
            Served::Modern { .. } => Ok(Cow::Borrowed(&self.shared.discover_body)),
            Served::Legacy(_) => Err(missing_envelope(methods::SERVER_DISCOVER)),
        }
    }
}
