//! The lifecycle messages: the legacy `initialize` handshake and the modern `server/discover`.

use std::borrow::Cow;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::json::push_json_string;
use super::meta::{Implementation, ImplementationIn};
use super::version::{Era, ProtocolVersion};

/// `initialize` params. `protocolVersion` is required; `clientInfo` is read leniently, and
/// the client's `capabilities` are not read at all: nothing this server does depends on them.
#[derive(Debug, Deserialize)]
pub(crate) struct InitializeParams<'a> {
    /// The version the client asks for (its latest).
    #[serde(rename = "protocolVersion", borrow)]
    pub(crate) protocol_version: Cow<'a, str>,
    /// Who the client says it is.
    #[serde(rename = "clientInfo", default, borrow)]
    pub(crate) client_info: Option<&'a RawValue>,
}

impl InitializeParams<'_> {
    /// The client's self-description.
    pub(crate) fn client(&self) -> ImplementationIn<'_> {
        ImplementationIn::read(self.client_info)
    }
}

/// The version to answer an `initialize` asking for `requested` with: the same version when
/// it is a supported handshake version, else our latest handshake version (a counter-offer,
/// never a refusal).
pub fn negotiate_legacy(requested: &str) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if v.era() == Era::Legacy => v,
        _ => ProtocolVersion::LATEST_LEGACY,
    }
}

/// The capabilities this server implements: tools, without list-change notifications (the
/// tool set is fixed for the life of the process).
pub(crate) const SERVER_CAPABILITIES: &str = r#"{"tools":{"listChanged":false}}"#;

/// The `initialize` result body.
pub(crate) fn initialize_result(
    version: ProtocolVersion,
    server: &Implementation,
    instructions: Option<&str>,
) -> String {
    let mut out = String::from("{\"protocolVersion\":");
    push_json_string(&mut out, version.as_str());
    out.push_str(",\"capabilities\":");
    out.push_str(SERVER_CAPABILITIES);
    out.push_str(",\"serverInfo\":");
    out.push_str(&server.to_json());
    if let Some(text) = instructions {
        out.push_str(",\"instructions\":");
        push_json_string(&mut out, text);
    }
    out.push('}');
    out
}

/// The `server/discover` result body, without the modern `_meta`/`resultType` members (the
/// server adds those to every modern result).
pub(crate) fn discover_result(instructions: Option<&str>, ttl: Duration) -> String {
    let mut out = String::from("{\"supportedVersions\":[");
    for (i, v) in ProtocolVersion::of_era(Era::Modern).enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(&mut out, v.as_str());
    }
    out.push_str("],\"capabilities\":");
    out.push_str(SERVER_CAPABILITIES);
    if let Some(text) = instructions {
        out.push_str(",\"instructions\":");
        push_json_string(&mut out, text);
    }
    out.push_str(&cache_hints(ttl));
    out.push('}');
    out
}

/// `,"ttlMs":N,"cacheScope":"public"`: the caching hints 2026-07-28 requires on discover and
/// list results. Public, because the answer is the same for every caller.
pub(crate) fn cache_hints(ttl: Duration) -> String {
    format!(",\"ttlMs\":{},\"cacheScope\":\"public\"", ttl.as_millis())
}

/// The `data` of an `UnsupportedProtocolVersionError` (-32022): every version this server
/// supports, newest first (modern versions in `_meta`, legacy ones through `initialize`), and
/// what was asked for.
pub(crate) fn unsupported_version_data(requested: &RawValue) -> String {
    let mut out = String::from("{\"supported\":[");
    for (i, v) in ProtocolVersion::ALL.iter().rev().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(&mut out, v.as_str());
    }
    out.push_str("],\"requested\":");
    out.push_str(requested.get());
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_known_legacy_versions_and_counter_offers_the_rest() {
        assert_eq!(negotiate_legacy("2025-06-18"), ProtocolVersion::V2025_06_18);
        assert_eq!(negotiate_legacy("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(negotiate_legacy("1900-01-01"), ProtocolVersion::V2025_11_25);
        // 2026-07-28 has no handshake: asking for it in `initialize` gets the latest that has.
        assert_eq!(negotiate_legacy("2026-07-28"), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn lifecycle_bodies_are_exact() {
        let me = Implementation { name: "demo".into(), version: "0.1.0".into(), title: None };
        assert_eq!(
            initialize_result(ProtocolVersion::V2025_11_25, &me, Some("Be nice.")),
            r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"demo","version":"0.1.0"},"instructions":"Be nice."}"#
        );
        assert_eq!(
            discover_result(None, Duration::from_secs(300)),
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":false}},"ttlMs":300000,"cacheScope":"public"}"#
        );
        let requested = RawValue::from_string("\"1900-01-01\"".into()).unwrap();
        assert_eq!(
            unsupported_version_data(&requested),
            r#"{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1900-01-01"}"#
        );
    }
}
