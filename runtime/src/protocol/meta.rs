//! `_meta`: the per-request fields MCP reserves, and [`Implementation`] (who a peer says it is).
//!
//! In the modern era (2026-07-28) every request carries its protocol version and the client's
//! capabilities here; in both eras `progressToken` opts a request into progress notifications.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::json::push_json_string;

/// `_meta` key: the protocol version of a modern request.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for a modern request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version on a modern request.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the server's name and version on a modern result.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// The reserved members of a request's `_meta`, each raw; present-but-null counts as present.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RequestMeta<'a> {
    /// Opts the request into `notifications/progress`.
    #[serde(rename = "progressToken", default, borrow, deserialize_with = "present")]
    pub(crate) progress_token: Option<&'a RawValue>,
    /// The modern era's per-request protocol version.
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        borrow,
        deserialize_with = "present"
    )]
    pub(crate) protocol_version: Option<&'a RawValue>,
    /// The modern era's per-request client capabilities.
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        borrow,
        deserialize_with = "present"
    )]
    pub(crate) client_capabilities: Option<&'a RawValue>,
    /// The modern era's per-request client identity.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, borrow, deserialize_with = "present")]
    pub(crate) client_info: Option<&'a RawValue>,
}

/// Keep a member that is present even when its value is `null`, so "present but wrong" and
/// "absent" stay apart.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// Params that MCP defines only `_meta` for (`ping`, `server/discover`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MetaParams<'a> {
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub(crate) meta: Option<RequestMeta<'a>>,
}

/// A peer's self-description, read leniently: display-only, never trusted.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ImplementationIn<'a> {
    /// The peer's name.
    #[serde(default, borrow)]
    pub(crate) name: Option<Cow<'a, str>>,
    /// The peer's version.
    #[serde(default, borrow)]
    pub(crate) version: Option<Cow<'a, str>>,
}

impl ImplementationIn<'_> {
    /// Read one from raw JSON, or an empty one when it is not an object of strings.
    pub(crate) fn read(raw: Option<&RawValue>) -> ImplementationIn<'_> {
        raw.and_then(|r| serde_json::from_str(r.get()).ok()).unwrap_or_default()
    }
}

/// A server's name, version and optional display title: MCP's `Implementation`, as this
/// server sends it (`serverInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Implementation {
    /// The programmatic name, e.g. the crate name.
    pub name: String,
    /// The version, e.g. the crate version.
    pub version: String,
    /// A human-readable title, when one was given.
    pub title: Option<String>,
}

impl Implementation {
    /// The object as JSON: `{"name":…,"title":…,"version":…}`.
    pub(crate) fn to_json(&self) -> String {
        let mut out = String::from("{\"name\":");
        push_json_string(&mut out, &self.name);
        if let Some(title) = &self.title {
            out.push_str(",\"title\":");
            push_json_string(&mut out, title);
        }
        out.push_str(",\"version\":");
        push_json_string(&mut out, &self.version);
        out.push('}');
        out
    }
}

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
        let i = Implementation { name: "x\"y".into(), version: "1".into(), title: None };
        assert_eq!(i.to_json(), r#"{"name":"x\"y","version":"1"}"#);
        let i = Implementation { title: Some("X".into()), ..i };
        assert_eq!(i.to_json(), r#"{"name":"x\"y","title":"X","version":"1"}"#);
    }
}
