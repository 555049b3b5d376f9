//! [`ToolOutput`]: what a successful call returns, as MCP [`Content`] blocks and optional
//! structured content.

use serde::Serialize;
use serde_json::Value;

/// What a successful call returns: content blocks, and optionally structured content.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// Structured content matching the tool's output schema, if it has one.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput { content: vec![Content::text(text)], structured: None }
    }

    /// Structured content plus the same JSON (canonical form) as a text block, as the MCP
    /// spec recommends for clients that read only text.
    pub fn structured(value: Value) -> Self {
        let text = crate::schema::canonical_json(&value);
        ToolOutput { content: vec![Content::text(text)], structured: Some(value) }
    }

    /// Content blocks, no structured content.
    pub fn from_content(content: Vec<Content>) -> Self {
        ToolOutput { content, structured: None }
    }

    /// Add a content block.
    pub fn with(mut self, block: Content) -> Self {
        self.content.push(block);
        self
    }

    /// The text blocks joined with newlines (non-text blocks are skipped).
    pub fn joined_text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Content::Text { text } = block {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(text);
            }
        }
        out
    }
}

/// An MCP content block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
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
    /// A resource embedded in the result.
    Resource {
        /// The embedded resource contents.
        resource: EmbeddedResource,
    },
    /// A link to a resource the client may read.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// An optional description.
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// An optional MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }
}

/// The contents of an embedded resource: text or a base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The resource's URI.
    pub uri: String,
    /// An optional MIME type.
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 binary contents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

impl EmbeddedResource {
    /// A text resource at `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        EmbeddedResource { uri: uri.into(), mime_type: None, text: Some(text.into()), blob: None }
    }

    /// A binary resource at `uri`, its bytes already base64-encoded.
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        EmbeddedResource { uri: uri.into(), mime_type: None, text: None, blob: Some(base64.into()) }
    }

    /// With this MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}
