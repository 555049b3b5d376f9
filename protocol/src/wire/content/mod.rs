//! [`ContentBlock`]: one block of a tool result or a prompt message.

use serde::Serialize;

use super::ResourceContents;

// Reading a block is the client's (feature `client`): the server only writes them.
#[cfg(feature = "client")]
mod read;

/// One content block: `text`, `image`, `audio`, `resource_link` or an embedded `resource`.
///
/// The one content type: what a tool returns (toolwire's `tool::Content` is an alias of it, and
/// `tool::EmbeddedResource` of [`ResourceContents`]), what a prompt's message holds, and what
/// the client reads from a peer's results.
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
