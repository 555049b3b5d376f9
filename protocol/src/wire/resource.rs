//! Resources: a listed [`Resource`], a [`ResourceTemplate`], and what `resources/read`
//! returns ([`ResourceContents`]).

use serde::Serialize;

use super::JsonObject;
#[cfg(feature = "client")]
use super::{lenient, lenient_or_default};

/// One resource as `resources/list` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its name (empty when the server gave none).
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub name: String,
    /// Its display title.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, if known.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// `_meta`.
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<JsonObject>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            meta: None,
        }
    }
}

/// One URI template as `resources/templates/list` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template.
    pub uri_template: String,
    /// Its name (empty when the server gave none).
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub name: String,
    /// Its display title.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of what it names.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// `_meta`.
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<JsonObject>,
}

impl ResourceTemplate {
    /// A template with its URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            meta: None,
        }
    }
}

/// One part of a resource's contents: text, or a base64 `blob`. Every member reads leniently
/// (an embedded resource without a `uri` has an empty one).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceContents {
    /// The resource's URI.
    #[serde(default, deserialize_with = "lenient_or_default")]
    pub uri: String,
    /// Its MIME type.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 binary contents.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// `_meta`.
    #[serde(
        rename = "_meta",
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<JsonObject>,
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents { uri: uri.into(), text: Some(text.into()), ..ResourceContents::default() }
    }

    /// Binary contents of `uri`, as base64.
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        ResourceContents { uri: uri.into(), blob: Some(base64.into()), ..ResourceContents::default() }
    }

    /// With a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// A `resources/read` result. Its `contents` must be an array; each item that is not an
/// object reads as empty contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// The parts.
    #[serde(deserialize_with = "items_or_empty")]
    pub contents: Vec<ResourceContents>,
}

impl ReadResourceResult {
    /// A result with these parts.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ReadResourceResult { contents }
    }
}

/// An array whose items that are not `T` read as `T::default()`; anything else fails.
#[cfg(feature = "client")]
pub(super) fn items_or_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    let items: Vec<serde_json::Value> = serde::Deserialize::deserialize(d)?;
    Ok(items.into_iter().map(|v| serde_json::from_value(v).unwrap_or_default()).collect())
}

// Reading these is the client's (their `Deserialize` is derived with the feature).
#[cfg(all(test, feature = "client"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_need_a_uri_and_read_the_rest_leniently() {
        let r: Resource =
            serde_json::from_value(json!({"uri": "u", "name": 3, "mimeType": "text/plain"})).unwrap();
        assert_eq!(r, Resource { mime_type: Some("text/plain".into()), ..Resource::new("u", "") });
        assert!(serde_json::from_value::<Resource>(json!({"name": "n"})).is_err());
        let read: ReadResourceResult =
            serde_json::from_value(json!({"contents": [{"uri": "u", "text": "t"}, 5]})).unwrap();
        assert_eq!(read.contents, [ResourceContents::text("u", "t"), ResourceContents::default()]);
        assert!(serde_json::from_value::<ReadResourceResult>(json!({"contents": {}})).is_err());
    }
}
