//! [`ContentBlock`]: one block of a tool result or a prompt message.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::{ResourceContents, lenient, lenient_or_default};

/// One content block: `text`, `image`, `audio`, `resource_link` or an embedded `resource`.
///
/// Reading never fails: a block whose `type` this crate does not know (or that is not an
/// object) reads as [`Unknown`](ContentBlock::Unknown), which keeps the type's name, and a
/// known block's missing members read as empty. Writing an `Unknown` block is an error.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 of the image bytes.
        data: String,
        /// e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// Base64 of the audio bytes.
        data: String,
        /// e.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A link to a resource the client may read.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// Its description.
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
    /// A resource embedded in the block.
    Resource {
        /// Its contents.
        resource: ResourceContents,
    },
    /// A block of a type this crate does not know: only its `type` is kept (`""` when it
    /// had none).
    #[serde(skip)]
    Unknown {
        /// The block's `type`, as sent (untrusted text).
        kind: String,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// An image block.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image { data: data.into(), mime_type: mime_type.into() }
    }

    /// An audio block.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio { data: data.into(), mime_type: mime_type.into() }
    }

    /// A resource link.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink { uri: uri.into(), name: name.into(), description: None, mime_type: None }
    }

    /// An embedded resource.
    pub fn resource(resource: ResourceContents) -> Self {
        ContentBlock::Resource { resource }
    }
}

/// Every member any known block has, each lenient; the `type` picks which are read.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnyBlock {
    #[serde(rename = "type", default, deserialize_with = "lenient")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "lenient_or_default")]
    text: String,
    #[serde(default, deserialize_with = "lenient_or_default")]
    data: String,
    #[serde(default, deserialize_with = "lenient_or_default")]
    mime_type: String,
    #[serde(default, deserialize_with = "lenient_or_default")]
    uri: String,
    #[serde(default, deserialize_with = "lenient_or_default")]
    name: String,
    #[serde(default, deserialize_with = "lenient")]
    description: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    resource: Option<ResourceContents>,
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let b = AnyBlock::deserialize(&v).unwrap_or_default();
        let mime = || Some(b.mime_type.clone()).filter(|_| v.get("mimeType").is_some_and(Value::is_string));
        Ok(match b.kind.as_deref().unwrap_or("") {
            "text" => ContentBlock::Text { text: b.text },
            "image" => ContentBlock::Image { data: b.data, mime_type: b.mime_type },
            "audio" => ContentBlock::Audio { data: b.data, mime_type: b.mime_type },
            "resource_link" => ContentBlock::ResourceLink {
                mime_type: mime(),
                uri: b.uri,
                name: b.name,
                description: b.description,
            },
            "resource" => ContentBlock::Resource { resource: b.resource.unwrap_or_default() },
            _ => ContentBlock::Unknown { kind: b.kind.unwrap_or_default() },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> ContentBlock {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn known_blocks_read_with_empty_defaults() {
        assert_eq!(read(json!({"type": "text"})), ContentBlock::text(""));
        assert_eq!(
            read(json!({"type": "image", "data": "AA==", "mimeType": "image/png"})),
            ContentBlock::image("AA==", "image/png")
        );
        let link = read(json!({"type": "resource_link", "uri": "file:///a", "mimeType": "text/plain"}));
        assert_eq!(
            link,
            ContentBlock::ResourceLink {
                uri: "file:///a".into(),
                name: String::new(),
                description: None,
                mime_type: Some("text/plain".into())
            }
        );
        let r = read(json!({"type": "resource", "resource": {"uri": "u", "text": "t"}}));
        assert_eq!(r, ContentBlock::resource(ResourceContents::text("u", "t")));
        assert_eq!(read(json!({"type": "resource"})), ContentBlock::resource(ResourceContents::default()));
    }

    #[test]
    fn unknown_blocks_keep_their_type_and_never_fail() {
        assert_eq!(read(json!({"type": "video"})), ContentBlock::Unknown { kind: "video".into() });
        assert_eq!(read(json!("text")), ContentBlock::Unknown { kind: String::new() });
        assert_eq!(read(json!({"type": 3})), ContentBlock::Unknown { kind: String::new() });
        assert!(serde_json::to_string(&ContentBlock::Unknown { kind: "x".into() }).is_err());
    }
}
