//! The Skills extension (SEP-2640): `skills/list`, `skills/get` and
//! `resources/directory/read`, answered from a [`SkillCatalog`] serialised once, when the
//! server is built; the skills' files are resources (`resources/read`, module `resources`),
//! added to the server's resources by the builder.
//!
//! Declared as `capabilities.extensions["io.modelcontextprotocol/skills"] =
//! {"directoryRead": true}`, beside the `resources` capability it needs.
//!
//! | what happened | the answer |
//! | --- | --- |
//! | `skills/list` | the entries, a page at a time (an entry is never split), with `nextCursor` while more remain; 2026-07-28: `ttlMs` and `cacheScope` |
//! | `skills/get` of a `SKILL.md` URI the catalog serves | `{"skill": entry}`, the entry `skills/list` carries; no cursor |
//! | `skills/get` of any other URI | -32602 `unknown skill "u": no skill this server serves has its SKILL.md there; skills/list names them`, `data: {"uri": …}` |
//! | `resources/directory/read` of a skill's folder or a folder inside one | its direct children, folders with `mimeType: inode/directory`, a page at a time |
//! | `resources/directory/read` of anything else | -32602 `"u" is not a directory this server serves: …`, `data: {"uri": …}` |
//!
//! Every caller sees every skill: an [`Access`](crate::server::Access) rule on a skill's
//! resources governs reading its files, not the listing.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::json::json_string;
use crate::protocol::lifecycle::{ServerCapabilities, cache_hints};
use crate::protocol::methods;
use crate::protocol::resources::{DirectoryReadParams, UriParams};
use crate::protocol::wire::{DirectoryResource, SKILLS_EXTENSION, Skill};
use crate::protocol::{RpcError, code};
use crate::skills::{SkillCatalog, folder_uri};

use super::listing::{Listed, Listing};
use crate::server::access::caller::Caller;
use crate::server::dispatch::era::{decode_params, method_not_found};
use crate::server::dispatch::sink::Reply;
use crate::server::dispatch::state::SessionInner;

/// A `skills/get` answer, in the body each era is sent.
struct Got {
    legacy: String,
    modern: String,
}

/// What a server serving skills holds, serialised once.
pub(crate) struct Skills {
    /// `skills/list`'s pages.
    list: Listing,
    /// `skills/get`'s answers, by `SKILL.md` URI.
    get: BTreeMap<String, Got>,
    /// `resources/directory/read`'s pages, by directory URI.
    folders: BTreeMap<String, Listing>,
}

impl Skills {
    /// Serialise `catalog`'s answers: lists in pages of `page_size`; `modern_meta` and `ttl`
    /// as every modern result carries them.
    pub(crate) fn new(
        catalog: &SkillCatalog,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: Duration,
    ) -> Skills {
        let entries = catalog.skills();
        let list = Listing::build(entries.iter(), page_size, modern_meta, ttl);
        let mut get = BTreeMap::new();
        for entry in &entries {
            let skill = serde_json::to_string(entry).expect("a skill entry always serialises");
            let modern = format!(
                "{{\"_meta\":{},\"resultType\":\"complete\",\"skill\":{skill}{}}}",
                modern_meta.get(),
                cache_hints(ttl)
            );
            get.insert(entry.uri.clone(), Got { legacy: format!("{{\"skill\":{skill}}}"), modern });
        }
        let mut folders = BTreeMap::new();
        for skill in catalog.held() {
            for (path, children) in skill.folders() {
                let listing = Listing::build(children.iter(), page_size, modern_meta, ttl);
                folders.insert(folder_uri(&skill.name, &path), listing);
            }
        }
        Skills { list, get, folders }
    }

    /// The extension, with `directoryRead`.
    pub(crate) fn advertise(&self, capabilities: &mut ServerCapabilities) {
        capabilities.extensions.insert(SKILLS_EXTENSION, serde_json::json!({ "directoryRead": true }));
    }
}

impl Listed for Skill {
    const KEY: &'static str = "skills";

    fn name(&self) -> &str {
        &self.uri
    }

    fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

impl Listed for DirectoryResource {
    const KEY: &'static str = "resources";

    // The log names a child by its URI, which says which skill it is of.
    #[allow(clippy::misnamed_getters)]
    fn name(&self) -> &str {
        &self.uri
    }

    fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

/// Answer one request for a skills method.
pub(crate) fn request(
    session: &SessionInner,
    skills: &Skills,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    _caller: Caller<'_>,
) {
    let outcome = match method {
        methods::SKILLS_LIST => skills.list.answer(session, method, params),
        methods::SKILLS_GET => get(session, skills, params),
        methods::RESOURCES_DIRECTORY_READ => directory(session, skills, params),
        other => Err(method_not_found(other)),
    };
    match outcome {
        Ok(body) => reply.result(body),
        Err(error) => reply.error(error),
    }
}

fn get<'s>(
    session: &SessionInner,
    skills: &'s Skills,
    params: Option<&RawValue>,
) -> Result<&'s str, RpcError> {
    let p: UriParams<'_> = decode_params(methods::SKILLS_GET, params)?;
    let (_, modern) = session.served(p.meta.as_ref())?.peer()?;
    let got = skills.get.get(p.uri.as_ref()).ok_or_else(|| {
        invalid_uri(
            &p.uri,
            format!(
                "unknown skill {}: no skill this server serves has its SKILL.md there; skills/list names them",
                json_string(&p.uri)
            ),
        )
    })?;
    Ok(if modern { &got.modern } else { &got.legacy })
}

fn directory<'s>(
    session: &SessionInner,
    skills: &'s Skills,
    params: Option<&RawValue>,
) -> Result<&'s str, RpcError> {
    let p: DirectoryReadParams<'_> = decode_params(methods::RESOURCES_DIRECTORY_READ, params)?;
    let (_, modern) = session.served(p.meta.as_ref())?.peer()?;
    let listing = skills.folders.get(p.uri.as_ref()).ok_or_else(|| {
        invalid_uri(
            &p.uri,
            format!(
                "{} is not a directory this server serves: resources/directory/read lists a skill's folder (skill://<name>) or a folder inside one",
                json_string(&p.uri)
            ),
        )
    })?;
    listing.page(p.cursor.as_deref(), modern)
}

fn invalid_uri(uri: &str, message: String) -> RpcError {
    RpcError::new(code::INVALID_PARAMS, message).with_data(format!("{{\"uri\":{}}}", json_string(uri)))
}
