//! The lifecycle messages: the legacy `initialize` handshake and the modern `server/discover`.

use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::meta::{Implementation, ImplementationIn, WireImplementation};
use super::version::{Era, ProtocolVersion};

/// `initialize` params. `protocolVersion` is required; `clientInfo` and `capabilities` are
/// read leniently.
#[derive(Debug, Deserialize)]
pub struct InitializeParams<'a> {
    /// The version the client asks for (its latest).
    #[serde(rename = "protocolVersion", borrow)]
    pub protocol_version: Cow<'a, str>,
    /// Who the client says it is.
    #[serde(rename = "clientInfo", default, borrow)]
    pub client_info: Option<&'a RawValue>,
    /// What the client can be asked for (see [`ClientCapabilities`](super::ClientCapabilities)).
    #[serde(default, borrow)]
    pub capabilities: Option<&'a RawValue>,
}

impl InitializeParams<'_> {
    /// The client's self-description.
    pub fn client(&self) -> ImplementationIn<'_> {
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

/// What a server serves, as `capabilities` in `initialize` and `server/discover`. The engine
/// fills one in from what was registered; a capability that is `None` is not advertised.
#[derive(Debug, Default, Serialize)]
pub struct ServerCapabilities {
    /// `tools`: `tools/list` and `tools/call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// `resources`: the lists, `resources/read`, and subscriptions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// `prompts`: `prompts/list` and `prompts/get`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// `completions`: `completion/complete`, declared only when something completes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<EmptyCapability>,
    /// `logging`: `logging/setLevel` and `notifications/message` (always: any tool may log).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<EmptyCapability>,
    /// `extensions`: the extensions served, by identifier, each with its settings (`{}`
    /// for one that has none, as the tasks extension, `io.modelcontextprotocol/tasks`).
    /// Left out when none is served.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub extensions: std::collections::BTreeMap<&'static str, EmptyCapability>,
}

/// The `resources` capability.
#[derive(Debug, Serialize)]
pub struct ResourcesCapability {
    /// Whether clients may subscribe to one resource's updates.
    pub subscribe: bool,
    /// Whether the server notifies when the list changes (never, today).
    #[serde(rename = "listChanged")]
    pub list_changed: bool,
}

/// A capability with no flags: `{}`.
#[derive(Debug, Default, Serialize)]
pub struct EmptyCapability {}

/// A capability whose only flag is `listChanged`.
#[derive(Debug, Serialize)]
pub struct ListChangedCapability {
    /// Whether the server notifies when the list changes. toolwire's lists are fixed for the
    /// life of the process, so this is `false`.
    #[serde(rename = "listChanged")]
    pub list_changed: bool,
}

/// The `initialize` result.
#[derive(Serialize)]
struct InitializeResult<'a> {
    #[serde(rename = "protocolVersion")]
    protocol_version: &'a str,
    capabilities: &'a RawValue,
    #[serde(rename = "serverInfo")]
    server_info: WireImplementation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

/// The `initialize` result body. `capabilities` is the server's pre-serialised
/// [`ServerCapabilities`].
pub fn initialize_result(
    version: ProtocolVersion,
    capabilities: &RawValue,
    server: &Implementation,
    instructions: Option<&str>,
) -> String {
    to_text(&InitializeResult {
        protocol_version: version.as_str(),
        capabilities,
        server_info: server.wire(),
        instructions,
    })
}

/// The `server/discover` result, without the modern `_meta`/`resultType` members (the
/// server adds those to every modern result, see [`ModernResult`](super::meta::ModernResult)).
#[derive(Serialize)]
pub struct DiscoverResult<'a> {
    #[serde(rename = "supportedVersions")]
    supported_versions: Vec<&'static str>,
    capabilities: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(flatten)]
    cache: CacheHints,
}

/// The `server/discover` result body.
pub fn discover_result<'a>(
    capabilities: &'a RawValue,
    instructions: Option<&'a str>,
    ttl: Duration,
) -> DiscoverResult<'a> {
    DiscoverResult {
        supported_versions: ProtocolVersion::of_era(Era::Modern).map(ProtocolVersion::as_str).collect(),
        capabilities,
        instructions,
        cache: CacheHints::public(ttl),
    }
}

/// The caching hints 2026-07-28 requires on discover and list results: `ttlMs` and
/// `cacheScope`, public because the answer is the same for every caller.
#[derive(Serialize)]
pub struct CacheHints {
    #[serde(rename = "ttlMs")]
    ttl_ms: u128,
    #[serde(rename = "cacheScope")]
    cache_scope: &'static str,
}

impl CacheHints {
    /// Public hints, fresh for `ttl`.
    pub fn public(ttl: Duration) -> CacheHints {
        CacheHints { ttl_ms: ttl.as_millis(), cache_scope: "public" }
    }
}

/// `,"ttlMs":N,"cacheScope":"public"`: [`CacheHints`] as members to append to an object
/// written by hand (the `tools/list` pages).
pub fn cache_hints(ttl: Duration) -> String {
    format!(",\"ttlMs\":{},\"cacheScope\":\"public\"", ttl.as_millis())
}

/// The `data` of an `UnsupportedProtocolVersionError` (-32022).
#[derive(Serialize)]
struct UnsupportedVersionData<'a> {
    supported: Vec<&'static str>,
    requested: &'a RawValue,
}

/// The `data` of an `UnsupportedProtocolVersionError` (-32022): every version this server
/// supports, newest first (modern versions in `_meta`, legacy ones through `initialize`), and
/// what was asked for.
pub fn unsupported_version_data(requested: &RawValue) -> String {
    to_text(&UnsupportedVersionData {
        supported: ProtocolVersion::ALL.iter().rev().map(|v| v.as_str()).collect(),
        requested,
    })
}

/// Serialise a body of this module's: plain structs of strings and raw JSON, which always
/// serialise.
fn to_text<T: Serialize>(body: &T) -> String {
    serde_json::to_string(body).expect("lifecycle bodies are strings, numbers and valid raw JSON")
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
        let me = Implementation::new("demo", "0.1.0");
        let caps = ServerCapabilities {
            tools: Some(ListChangedCapability { list_changed: false }),
            ..ServerCapabilities::default()
        };
        let caps = serde_json::value::to_raw_value(&caps).unwrap();
        assert_eq!(caps.get(), r#"{"tools":{"listChanged":false}}"#);
        assert_eq!(
            serde_json::to_string(&ServerCapabilities::default()).unwrap(),
            "{}",
            "nothing registered, nothing advertised"
        );
        assert_eq!(
            initialize_result(ProtocolVersion::V2025_11_25, &caps, &me, Some("Be nice.")),
            r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"demo","version":"0.1.0"},"instructions":"Be nice."}"#
        );
        assert_eq!(
            serde_json::to_string(&discover_result(&caps, None, Duration::from_secs(300))).unwrap(),
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":false}},"ttlMs":300000,"cacheScope":"public"}"#
        );
        assert_eq!(
            serde_json::to_string(&discover_result(&caps, Some("Hi \"you\"\n"), Duration::from_millis(5)))
                .unwrap(),
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":false}},"instructions":"Hi \"you\"\n","ttlMs":5,"cacheScope":"public"}"#
        );
        assert_eq!(cache_hints(Duration::from_millis(5)), r#","ttlMs":5,"cacheScope":"public""#);
        let requested = RawValue::from_string("\"1900-01-01\"".into()).unwrap();
        assert_eq!(
            unsupported_version_data(&requested),
            r#"{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1900-01-01"}"#
        );
    }
}
