//! [`Icon`]: an optionally sized image a client may show beside a tool (and, in later
//! revisions, beside resources, prompts and the server itself). MCP 2025-11-25 `Icon`.

use serde::Serialize;

/// One icon: a URI (`https:`, `http:` or a `data:` URI with base64 image data), and
/// optionally its MIME type, the sizes it suits and the theme it is drawn for.
///
/// ```
/// use toolwire::protocol::wire::{Icon, IconTheme};
///
/// let icon = Icon::new("https://example.com/search.svg")
///     .with_mime_type("image/svg+xml")
///     .with_sizes(["any"])
///     .with_theme(IconTheme::Dark);
/// assert_eq!(
///     serde_json::to_string(&icon).unwrap(),
///     r#"{"src":"https://example.com/search.svg","mimeType":"image/svg+xml","sizes":["any"],"theme":"dark"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// Where the image is: an `http(s)` URL or a `data:` URI.
    pub src: String,
    /// The MIME type, when the source's own is missing or generic (`"image/png"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The sizes it can be shown at, each `WxH` (`"48x48"`) or `"any"`; none means any size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// The background it is drawn for; none means either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// The background an [`Icon`] is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

impl Icon {
    /// An icon at `src`, with no MIME type, sizes or theme.
    pub fn new(src: impl Into<String>) -> Self {
        Icon { src: src.into(), mime_type: None, sizes: Vec::new(), theme: None }
    }

    /// Set the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Set the sizes (`"48x48"`, `"any"`).
    pub fn with_sizes<I, S>(mut self, sizes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }

    /// Set the theme.
    pub fn with_theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme);
        self
    }
}
