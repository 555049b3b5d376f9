//! [`Listing`]: the pages of one list method (`tools/list`; later `resources/list`,
//! `prompts/list`, `resources/templates/list`), serialised once at startup: serving a page
//! copies bytes and does no schema work.
//!
//! A capability says what it lists by implementing [`Listed`] (the result key and how one
//! item is written); the paging, the cursors, the fingerprint and the caching hints are this
//! module's, the same for every list.
//!
//! Cursors are opaque to clients. Ours name a page of *this* listing: a fingerprint of the
//! listing's bytes plus the page index (`<16 hex digits>-<index>`). A cursor that is not one
//! we issued (malformed, out of range, or from a build that lists other items) gets -32602.
//!
//! A live server (see `swap`) replaces its listings when its registry changes. A cursor from
//! a listing that has since been replaced names a page that no longer exists, so it is
//! refused too, with its own -32602 that says so and what to do:
//! `cursor is from a tools list that has since changed; list again from the start`. (Each
//! listing remembers the fingerprints of the last [`REMEMBERED`] listings it replaced, to
//! tell such a cursor from one that was never ours.) A client restarts paging from the
//! first page when it gets it; it will also have been sent the `list_changed` notification.

use std::time::Duration;

use crate::json::json_string;
use crate::protocol::RpcError;
use serde_json::value::RawValue;

use crate::protocol::lifecycle::cache_hints;
use crate::protocol::meta::ListParams;

use crate::server::dispatch::era::decode_params;
use crate::server::dispatch::state::SessionInner;

/// One item a list method lists.
pub(crate) trait Listed {
    /// The member of the list result the items go under: `"tools"`, `"resources"`, ….
    const KEY: &'static str;

    /// The item's name, for the log when it is left out.
    fn name(&self) -> &str;

    /// The item as the JSON object the list advertises.
    fn to_json(&self) -> Result<String, serde_json::Error>;
}

/// One page, in the body each era is sent.
struct Page {
    legacy: String,
    modern: String,
}

/// How many replaced listings' fingerprints a listing remembers.
pub(crate) const REMEMBERED: usize = 16;

/// Every page of the listing.
pub(crate) struct Listing {
    /// The result key, [`Listed::KEY`].
    key: &'static str,
    fingerprint: String,
    pages: Vec<Page>,
    /// The fingerprints of the listings this one replaced, newest last.
    replaced: Vec<String>,
}

impl Listing {
    /// Serialise `items`, in the order given, into pages of `page_size`. `modern_meta` is the
    /// `_meta` every modern result carries; `ttl` goes into the modern caching hints.
    ///
    /// The pages are written by hand around the items' bytes: `tools/list` is a measured hot
    /// path, and a page is one copy into the response envelope.
    pub(crate) fn build<'a, L: Listed + ?Sized + 'a>(
        items: impl IntoIterator<Item = &'a L>,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: Duration,
    ) -> Listing {
        let items: Vec<String> = items
            .into_iter()
            .filter_map(|item| match item.to_json() {
                Ok(json) => Some(json),
                Err(e) => {
                    tracing::error!(
                        key = L::KEY,
                        name = item.name(),
                        "item left out of the {} list: it does not serialise: {e}",
                        L::KEY
                    );
                    None
                }
            })
            .collect();
        let fingerprint = format!("{:016x}", fnv1a(items.iter().map(String::as_bytes)));
        let chunks: Vec<&[String]> =
            if items.is_empty() { vec![&items[..]] } else { items.chunks(page_size.max(1)).collect() };
        let count = chunks.len();
        let pages = chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| {
                let mut body = json_string(L::KEY);
                body.push_str(":[");
                body.push_str(&chunk.join(","));
                body.push(']');
                if i + 1 < count {
                    body.push_str(",\"nextCursor\":");
                    body.push_str(&json_string(&cursor(&fingerprint, i + 1)));
                }
                Page {
                    legacy: format!("{{{body}}}"),
                    modern: format!(
                        "{{\"_meta\":{},\"resultType\":\"complete\",{body}{}}}",
                        modern_meta.get(),
                        cache_hints(ttl)
                    ),
                }
            })
            .collect();
        Listing { key: L::KEY, fingerprint, pages, replaced: Vec::new() }
    }

    /// This listing, as the one replacing `older`: a cursor of `older`'s (or of what it
    /// replaced) is then refused as from a list that has since changed.
    pub(crate) fn replacing(self, older: &Listing) -> Listing {
        self.remembering(older.history())
    }

    /// The fingerprints a listing replacing this one remembers: what this one replaced, and
    /// its own.
    pub(crate) fn history(&self) -> Vec<String> {
        let mut replaced = self.replaced.clone();
        replaced.push(self.fingerprint.clone());
        replaced
    }

    /// This listing, remembering `replaced` (a [`history`](Listing::history)) as listings it
    /// replaced.
    pub(crate) fn remembering(mut self, mut replaced: Vec<String>) -> Listing {
        replaced.retain(|f| *f != self.fingerprint);
        let excess = replaced.len().saturating_sub(REMEMBERED);
        replaced.drain(..excess);
        self.replaced = replaced;
        self
    }

    /// The answer to a list request (`method`, its `params`) in `session`: the page its
    /// cursor names, borrowed, as the body for the session's era. The caller holds the
    /// listing (the whole one, or the view a policy lets the caller see) while it copies the
    /// page into the response envelope, its one copy.
    pub(crate) fn answer(
        &self,
        session: &SessionInner,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<&str, RpcError> {
        let p: ListParams<'_> = decode_params(method, params)?;
        let (_, modern) = session.served(p.meta.as_ref())?.peer()?;
        self.page(p.cursor.as_deref(), modern)
    }

    /// The page a request asked for, as the body for its era.
    pub(crate) fn page(&self, cursor: Option<&str>, modern: bool) -> Result<&str, RpcError> {
        let index = match cursor {
            None => 0,
            Some(c) => match self.index_of(c) {
                Some(index) => index,
                None if self.is_replaced(c) => {
                    let what = if self.key == "resourceTemplates" { "resource templates" } else { self.key };
                    return Err(RpcError::invalid_params(format!(
                        "cursor is from a {what} list that has since changed; list again from the start"
                    )));
                }
                None => {
                    return Err(RpcError::invalid_params(format!(
                        "invalid cursor {}: it is not one this server issued; list again without a cursor",
                        json_string(c)
                    )));
                }
            },
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

impl Listing {
    /// Whether `cursor` is shaped as ours and names a listing this one replaced.
    fn is_replaced(&self, cursor: &str) -> bool {
        cursor.split_once('-').is_some_and(|(fingerprint, index)| {
            !index.is_empty()
                && index.bytes().all(|b| b.is_ascii_digit())
                && self.replaced.iter().any(|f| f == fingerprint)
        })
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
