//! [`ToolOutput`]: what a successful call returns, as MCP [`Content`] blocks and optional
//! structured content.
//!
//! A block is the wire's [`ContentBlock`](crate::protocol::wire::ContentBlock), the one type
//! a prompt's messages and a remote server's results hold too; [`Content`] is its name here.

use serde_json::Value;

use crate::protocol::wire::{ContentBlock, ResourceContents};

/// One content block of a [`ToolOutput`]: the wire's [`ContentBlock`] under the name a tool
/// knows it by (build one with [`Content::text`], [`Content::image`], …).
///
/// An alias, not a re-export, so that the compiler's messages name the one type by its one
/// name, `ContentBlock`, as a prompt's do.
pub type Content = ContentBlock;

/// An embedded resource's contents ([`Content::Resource`]): the wire's [`ResourceContents`],
/// what a `#[resource]` fn returns.
pub type EmbeddedResource = ResourceContents;

/// What a successful call returns: content blocks, and optionally structured content.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The content blocks, in order. A block of no known type ([`ContentBlock::Unknown`],
    /// what a client reads for a block it does not know) cannot be written: a call that
    /// returns one is answered with an internal error naming the tool.
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
