//! The `tools/list` pages, serialised once at startup: serving a listing copies bytes and
//! does no schema work.
//!
//! Cursors are opaque to clients. Ours name a page of *this* listing: a fingerprint of the
//! listing's bytes plus the page index (`<16 hex digits>-<index>`). A cursor that is not one
//! we issued (malformed, out of range, or from a build with different tools) gets -32602.

use std::time::Duration;

use crate::protocol::RpcError;
use crate::json::json_string;
use crate::protocol::lifecycle::cache_hints;
use crate::protocol::tools::tool_json;
use crate::registry::ToolRegistry;

/// One page, in the body each era is sent.
struct Page {
    legacy: String,
    modern: String,
}

/// Every page of the listing.
pub(crate) struct Listing {
    fingerprint: String,
    pages: Vec<Page>,
}

impl Listing {
    /// Serialise `registry`'s tools (sorted by name) into pages of `page_size`. `modern_meta`
    /// is the `"_meta":{…}` member every modern result carries.
    pub(crate) fn build(
        registry: &ToolRegistry,
        page_size: usize,
        modern_meta: &str,
        ttl: Duration,
    ) -> Listing {
        let tools: Vec<String> = registry
            .iter()
            .filter_map(|tool| match tool_json(tool.info()) {
                Ok(json) => Some(json),
                Err(e) => {
                    tracing::error!(
                        tool = tool.info().name(),
                        "tool left out of tools/list: its description does not serialise: {e}"
                    );
                    None
                }
            })
            .collect();
        let fingerprint = format!("{:016x}", fnv1a(tools.iter().map(String::as_bytes)));
        let chunks: Vec<&[String]> =
            if tools.is_empty() { vec![&tools[..]] } else { tools.chunks(page_size.max(1)).collect() };
        let count = chunks.len();
        let pages = chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| {
                let mut body = String::from("\"tools\":[");
                body.push_str(&chunk.join(","));
                body.push(']');
                if i + 1 < count {
                    body.push_str(",\"nextCursor\":");
                    body.push_str(&json_string(&cursor(&fingerprint, i + 1)));
                }
                Page {
                    legacy: format!("{{{body}}}"),
                    modern: format!(
                        "{{{modern_meta},\"resultType\":\"complete\",{body}{}}}",
                        cache_hints(ttl)
                    ),
                }
            })
            .collect();
        Listing { fingerprint, pages }
    }

    /// The page a request asked for, as the body for its era.
    pub(crate) fn page(&self, cursor: Option<&str>, modern: bool) -> Result<&str, RpcError> {
        let index = match cursor {
            None => 0,
            Some(c) => self.index_of(c).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "invalid cursor {}: it is not one this server issued; list again without a cursor",
                    json_string(c)
                ))
            })?,
        };
        let page = &self.pages[index];
        Ok(if modern { &page.modern } else { &page.legacy })
    }

    fn index_of(&self, cursor: &str) -> Option<usize> {
        let (fingerprint, index) = cursor.split_once('-')?;
        if fingerprint != self.fingerprint || index.starts_with(['+', '0']) {
            return None;
        }
        let index: usize = index.parse().ok()?;
        (1..self.pages.len()).contains(&index).then_some(index)
    }
}

fn cursor(fingerprint: &str, index: usize) -> String {
    format!("{fingerprint}-{index}")
}

/// FNV-1a, 64-bit: a stable fingerprint, the same on every platform and run.
fn fnv1a<'a>(parts: impl Iterator<Item = &'a [u8]>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(b"\n") {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}
