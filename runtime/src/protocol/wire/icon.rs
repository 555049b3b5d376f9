//! [`Icon`]: an image a client may show beside a tool, resource, template or prompt.

use serde::{Deserialize, Serialize};

use super::{lenient, valid_items};

/// One icon: where to fetch it, its MIME type, the sizes it comes in, and the theme it is
/// drawn for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// e.g. `image/png`.
    #[serde(
        rename = "mimeType",
        default,
        deserialize_with = "lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub mime_type: Option<String>,
    /// e.g. `["48x48"]`, or `["any"]` for a scalable image.
    #[serde(default, deserialize_with = "valid_items", skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// `light` or `dark`: the background it is drawn for.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src`.
    pub fn new(src: impl Into<String>) -> Icon {
        Icon { src: src.into(), mime_type: None, sizes: Vec::new(), theme: None }
    }

    /// The same icon, with its MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Icon {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The same icon, with the sizes it comes in.
    pub fn with_sizes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, sizes: I) -> Icon {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }
}
