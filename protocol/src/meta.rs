//! `_meta`: the per-request fields MCP reserves, and [`Implementation`] (who a peer says it is).
//!
//! In the modern era (2026-07-28) every request carries its protocol version and the client's
//! capabilities here; in both eras `progressToken` opts a request into progress notifications.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

/// `_meta` key: the protocol version of a modern request.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for a modern request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version on a modern request.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the server's name and version on a modern result.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// The reserved members of a request's `_meta`, each raw; present-but-null counts as present,
/// and the whole `_meta` object as it arrived ([`raw`](Self::raw)).
#[derive(Debug, Default)]
pub struct RequestMeta<'a> {
    /// The whole `_meta`, exactly as received: what an interceptor and a tool read
    /// (`traceparent`, a client's own keys). `None` only for one made by hand.
    pub raw: Option<&'a RawValue>,
    /// Opts the request into `notifications/progress`.
    pub progress_token: Option<&'a RawValue>,
    /// The modern era's per-request protocol version.
    pub protocol_version: Option<&'a RawValue>,
    /// The modern era's per-request client capabilities.
    pub client_capabilities: Option<&'a RawValue>,
    /// The modern era's per-request client identity.
    pub client_info: Option<&'a RawValue>,
    /// The modern era's per-request log level: absent, the request gets no
    /// `notifications/message`.
    pub log_level: Option<&'a RawValue>,
}

/// The reserved members, read by serde; named `RequestMeta` so that a refusal reads as it did
/// before [`RequestMeta::raw`] was kept ("expected struct RequestMeta").
mod fields {
    use serde::Deserialize;
    use serde_json::value::RawValue;

    use super::present;

    #[derive(Deserialize)]
    pub(super) struct RequestMeta<'a> {
        #[serde(rename = "progressToken", default, borrow, deserialize_with = "present")]
        pub(super) progress_token: Option<&'a RawValue>,
        #[serde(
            rename = "io.modelcontextprotocol/protocolVersion",
            default,
            borrow,
            deserialize_with = "present"
        )]
        pub(super) protocol_version: Option<&'a RawValue>,
        #[serde(
            rename = "io.modelcontextprotocol/clientCapabilities",
            default,
            borrow,
            deserialize_with = "present"
        )]
        pub(super) client_capabilities: Option<&'a RawValue>,
        #[serde(
            rename = "io.modelcontextprotocol/clientInfo",
            default,
            borrow,
            deserialize_with = "present"
        )]
        pub(super) client_info: Option<&'a RawValue>,
        #[serde(rename = "io.modelcontextprotocol/logLevel", default, borrow, deserialize_with = "present")]
        pub(super) log_level: Option<&'a RawValue>,
    }
}

/// `_meta` is lent whole (`raw`) and its reserved members read from it: one more pass over a
/// short object, and only for a request that has one. It must be read from JSON text (as every
/// message is), since a [`RawValue`] is lent by serde_json alone.
impl<'de: 'a, 'a> Deserialize<'de> for RequestMeta<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(d)?;
        let f: fields::RequestMeta<'de> = serde_json::from_str(raw.get()).map_err(|e| {
            // The position is the outer reader's to add, within the whole message.
            let message = e.to_string();
            let message = message.rfind(" at line ").map_or(message.as_str(), |i| &message[..i]);
            serde::de::Error::custom(message)
        })?;
        Ok(RequestMeta {
            raw: Some(raw),
            progress_token: f.progress_token,
            protocol_version: f.protocol_version,
            client_capabilities: f.client_capabilities,
            client_info: f.client_info,
            log_level: f.log_level,
        })
    }
}

/// Keep a member that is present even when its value is `null`, so "present but wrong" and
/// "absent" stay apart.
pub fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// Params that MCP defines only `_meta` for (`ping`, `server/discover`).
#[derive(Debug, Default, Deserialize)]
pub struct MetaParams<'a> {
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
}

/// A peer's self-description, read leniently: display-only, never trusted.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ImplementationIn<'a> {
    /// The peer's name.
    #[serde(default, borrow)]
    pub name: Option<Cow<'a, str>>,
    /// The peer's version.
    #[serde(default, borrow)]
    pub version: Option<Cow<'a, str>>,
}

impl ImplementationIn<'_> {
    /// Read one from raw JSON, or an empty one when it is not an object of strings.
    pub fn read(raw: Option<&RawValue>) -> ImplementationIn<'_> {
        raw.and_then(|r| serde_json::from_str(r.get()).ok()).unwrap_or_default()
    }
}

/// Params of a paginated list method (`tools/list`; `resources/list`, `prompts/list` and
/// `resources/templates/list` have the same shape).
#[derive(Debug, Default, Deserialize)]
pub struct ListParams<'a> {
    /// The opaque cursor from a previous page.
    #[serde(default, borrow)]
    pub cursor: Option<Cow<'a, str>>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Option<RequestMeta<'a>>,
}

/// A server's name, version and optional display title: MCP's `Implementation`, as this
/// server sends it (`serverInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Implementation {
    /// The programmatic name, e.g. the crate name.
    pub name: String,
    /// The version, e.g. the crate version.
    pub version: String,
    /// A human-readable title, when one was given.
    pub title: Option<String>,
}

impl Implementation {
    /// The server `name` at `version`, without a title.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Implementation {
        Implementation { name: name.into(), version: version.into(), title: None }
    }

    /// The same, with a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Implementation {
        self.title = Some(title.into());
        self
    }

    /// The object as it goes on the wire: `{"name":…,"title":…,"version":…}`.
    pub fn wire(&self) -> WireImplementation<'_> {
        WireImplementation { name: &self.name, title: self.title.as_deref(), version: &self.version }
    }
}

/// [`Implementation`] as it is serialised, borrowed.
#[derive(Serialize)]
pub struct WireImplementation<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    version: &'a str,
}

/// The `_meta` of every modern result: `{"io.modelcontextprotocol/serverInfo":{…}}`.
#[derive(Serialize)]
pub struct ResultMeta<'a> {
    /// Who answered ([`SERVER_INFO_KEY`]).
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    pub server_info: WireImplementation<'a>,
}

/// A result as the modern era sends it: `_meta` and `resultType` first, then the body's own
/// members. `B` is any struct (or map) that serialises as an object.
#[derive(Serialize)]
pub struct ModernResult<'a, B> {
    /// [`ResultMeta`], pre-serialised once per server.
    #[serde(rename = "_meta")]
    pub meta: &'a RawValue,
    /// Always `"complete"`: this server sends no partial results.
    #[serde(rename = "resultType")]
    pub result_type: &'static str,
    /// The method's own result members.
    #[serde(flatten)]
    pub body: &'a B,
}

impl<'a, B> ModernResult<'a, B> {
    /// `body`, completed with `meta`.
    pub fn complete(meta: &'a RawValue, body: &'a B) -> ModernResult<'a, B> {
        ModernResult { meta, result_type: "complete", body }
    }
}

/// An empty result body (`{}`).
#[derive(Serialize)]
pub struct EmptyResult {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_members_are_read_raw_and_null_counts_as_present() {
        let p: MetaParams<'_> = serde_json::from_str(
            r#"{"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":null,"other":1}}"#,
        )
        .unwrap();
        let meta = p.meta.unwrap();
        assert_eq!(meta.progress_token.unwrap().get(), "7");
        assert_eq!(meta.protocol_version.unwrap().get(), "null");
        assert!(meta.client_capabilities.is_none());
        let p: MetaParams<'_> = serde_json::from_str("{}").unwrap();
        assert!(p.meta.is_none());
    }

    #[test]
    fn implementation_serialises_with_an_optional_title() {
        let i = Implementation::new("x\"y", "1");
        assert_eq!(serde_json::to_string(&i.wire()).unwrap(), r#"{"name":"x\"y","version":"1"}"#);
        let i = i.with_title("X");
        assert_eq!(serde_json::to_string(&i.wire()).unwrap(), r#"{"name":"x\"y","title":"X","version":"1"}"#);
    }

    #[test]
    fn a_modern_result_puts_meta_and_result_type_first() {
        let i = Implementation::new("demo", "0.1.0");
        let meta = serde_json::value::to_raw_value(&ResultMeta { server_info: i.wire() }).unwrap();
        let meta_text = r#"{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"0.1.0"}}"#;
        assert_eq!(meta.get(), meta_text);
        assert_eq!(
            serde_json::to_string(&ModernResult::complete(&meta, &EmptyResult {})).unwrap(),
            format!(r#"{{"_meta":{meta_text},"resultType":"complete"}}"#)
        );
        #[derive(Serialize)]
        struct Body {
            a: u8,
        }
        assert_eq!(
            serde_json::to_string(&ModernResult::complete(&meta, &Body { a: 1 })).unwrap(),
            format!(r#"{{"_meta":{meta_text},"resultType":"complete","a":1}}"#)
        );
    }
}
