//! The logging utility: `logging/setLevel`, which sets the level a legacy session's
//! [`Context::log`](crate::Context::log) filters at. The messages themselves are sent by the
//! call's [`CallTalk`](crate::server::dispatch::talk::CallTalk).

use crate::protocol::methods;
use serde_json::value::RawValue;

use crate::protocol::logging::{SetLevelParams, parse_level};
use crate::protocol::meta::MetaParams;
use crate::protocol::{LoggingLevel, RpcError};

use crate::server::dispatch::era::{Served, decode_params, method_not_found};
use crate::server::dispatch::state::SessionInner;

/// `logging/setLevel` in `session`: `{}` once the level is set.
pub(crate) fn set_level(session: &SessionInner, params: Option<&RawValue>) -> Result<&'static str, RpcError> {
    let meta: MetaParams<'_> = decode_params(methods::LOGGING_SET_LEVEL, params)?;
    match session.served(meta.meta.as_ref())? {
        Served::Modern { .. } => return Err(method_not_found(methods::LOGGING_SET_LEVEL)),
        Served::Legacy(None) => return Err(crate::server::dispatch::era::not_initialized()),
        Served::Legacy(Some(_)) => {}
    }
    let p: SetLevelParams<'_> = decode_params(methods::LOGGING_SET_LEVEL, params)?;
    let Some(level) = parse_level(&p.level) else {
        let names: Vec<&str> = LoggingLevel::ALL.iter().map(|l| l.as_str()).collect();
        return Err(RpcError::invalid_params(format!(
            "invalid params for 'logging/setLevel': unknown level {:?}; expected one of {}",
            &*p.level,
            names.join(", ")
        )));
    };
    tracing::debug!(%level, "the client set the log level");
    session.asking.set_level(level);
    Ok("{}")
}
