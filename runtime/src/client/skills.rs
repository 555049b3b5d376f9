//! The Skills extension (SEP-2640), host side: [`Client::list_skills`] and
//! [`Client::get_skill`] (entries, each checked before it is handed over),
//! [`Client::load_skill`] and [`Client::read_skill_file`] (one file, verified), and
//! [`Client::read_skill_directory`].
//!
//! # Lazy, and verified
//!
//! Listing reads entries only: no file is fetched until asked for, one at a time, never
//! ahead of need (not on connecting, listing or getting). A file is fetched only if the
//! skill's entry lists it (checked before any request), by the entry's URI, and handed over
//! only if its bytes have the entry's size and digest (`sha256:` of the raw bytes); the
//! skill's own `SKILL.md` must also carry frontmatter equal, field by field, to the entry's.
//! Anything else is [`ClientError::SkillRefused`], naming the skill, the file and what
//! differed; the content is dropped. A skill whose entry says `"resources": "dynamic"`
//! publishes no manifest: its files are handed over unverified ([`SkillFileRead::verified`]
//! is `false`), though its `SKILL.md`'s frontmatter is still compared.
//!
//! An entry is refused when it cannot be verified against: no `uri` ending in `/SKILL.md`,
//! a frontmatter without a non-empty `name` and `description`, a `name` that is not the
//! URI's last folder or breaks the naming rule, `resources` neither a list nor `"dynamic"`,
//! a file entry without a `uri` inside the skill, a `sha256:` digest of 64 lowercase hex
//! digits or a size, a file listed twice, or no entry for the `SKILL.md` itself.

use serde_json::{Map, Value, json};

use super::connection::Client;
use super::error::ClientError;
use super::wire::ResourceContent;
use crate::protocol::methods;
use crate::protocol::wire::{DirectoryResource, Dynamic, SKILLS_EXTENSION, Skill, SkillFile, SkillResources};
use crate::skills::{digest, read_frontmatter, valid_name};

/// One skill file, fetched and checked by [`Client::read_skill_file`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkillFileRead {
    /// The URI read: the entry's spelling of the file.
    pub uri: String,
    /// Its MIME type, as the server said.
    pub mime_type: Option<String>,
    /// Exactly the bytes the entry's digest covers.
    pub bytes: Vec<u8>,
    /// The bytes as text, when the server sent text.
    pub text: Option<String>,
    /// Whether size and digest were checked: `false` only for a `"dynamic"` skill.
    pub verified: bool,
    /// For the skill's own `SKILL.md`: its frontmatter, equal to the entry's.
    pub frontmatter: Option<Map<String, Value>>,
    /// For the skill's own `SKILL.md`: the markdown after the frontmatter.
    pub body: Option<String>,
}

impl Client {
    /// Whether the server declared the Skills extension
    /// (`capabilities.extensions["io.modelcontextprotocol/skills"]`).
    pub fn serves_skills(&self) -> bool {
        self.server_info().capabilities.get("extensions").and_then(|e| e.get(SKILLS_EXTENSION)).is_some()
    }

    /// Every skill the server lists (`skills/list`, every page), each entry checked (see the
    /// module docs); an entry that fails is [`ClientError::SkillRefused`] naming it and why.
    /// No file is fetched. A server without the extension lists none.
    pub async fn list_skills(&self) -> Result<Vec<Skill>, ClientError> {
        if !self.serves_skills() {
            return Ok(Vec::new());
        }
        let (raw, _) = self.list_all_hinted(methods::SKILLS_LIST, "skills").await?;
        let mut seen = std::collections::BTreeSet::new();
        let mut skills = Vec::with_capacity(raw.len());
        for (index, entry) in raw.iter().enumerate() {
            let skill = self.entry(entry, &format!("skills[{index}]"))?;
            if !seen.insert(skill.uri.clone()) {
                return Err(self.refuse(&skill.uri, "entry", "the listing holds this skill twice"));
            }
            skills.push(skill);
        }
        Ok(skills)
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`), checked as a
    /// listed one is, and refused if it is another skill's.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill, ClientError> {
        let result = self.request(methods::SKILLS_GET, Some(json!({ "uri": uri }))).await?;
        let skill = self.entry(result.get("skill").unwrap_or(&Value::Null), uri)?;
        if skill.uri != uri {
            let problem = format!("the server answered with the entry of {}", quote(&skill.uri));
            return Err(self.refuse(uri, "entry", &problem));
        }
        Ok(skill)
    }

    /// The skill's `SKILL.md`, fetched and verified: its size, digest and frontmatter
    /// against `skill`'s entry. What a host reads when it loads a skill.
    pub async fn load_skill(&self, skill: &Skill) -> Result<SkillFileRead, ClientError> {
        self.read_skill_file(skill, "SKILL.md").await
    }

    /// One file of `skill`: `file` is a path relative to the skill's folder
    /// (`references/FORMS.md`) or the file's URI. Fetched only if the entry lists it, and
    /// handed over only if it matches the entry (see the module docs).
    pub async fn read_skill_file(&self, skill: &Skill, file: &str) -> Result<SkillFileRead, ClientError> {
        let root = skill.uri.strip_suffix("/SKILL.md").unwrap_or(&skill.uri);
        let uri = if file.contains("://") {
            file.to_owned()
        } else {
            format!("{root}/{}", file.trim_start_matches('/'))
        };
        let listed = match &skill.resources {
            SkillResources::Files(files) => {
                let Some(entry) = files.iter().find(|f| same_uri(&f.uri, &uri)) else {
                    return Err(self.refuse(
                        &skill.uri,
                        &uri,
                        "the skill's entry does not list this file; it was not fetched",
                    ));
                };
                Some(entry.clone())
            }
            _ => None,
        };
        let uri = listed.as_ref().map_or(uri, |e| e.uri.clone());
        let contents = self.read_resource(&uri).await?;
        let item = contents
            .iter()
            .find(|c| c.uri() == uri)
            .or_else(|| contents.first())
            .ok_or_else(|| self.refuse(&skill.uri, &uri, "the server sent no contents"))?;
        let (bytes, text, mime_type) = match item {
            ResourceContent::Text { text, mime_type, .. } => {
                (text.as_bytes().to_vec(), Some(text.clone()), mime_type)
            }
            ResourceContent::Blob { base64, mime_type, .. } => {
                let bytes = crate::base64::HEADER
                    .decode(base64)
                    .ok_or_else(|| self.refuse(&skill.uri, &uri, "its blob is not valid base64"))?;
                (bytes, None, mime_type)
            }
        };
        if let Some(entry) = &listed {
            if bytes.len() as u64 != entry.size {
                let problem = format!(
                    "size differs: the entry says {} bytes, the server sent {}",
                    entry.size,
                    bytes.len()
                );
                return Err(self.refuse(&skill.uri, &uri, &problem));
            }
            let got = digest(&bytes);
            if got != entry.digest {
                let problem =
                    format!("digest differs: the entry says {}, the content hashes to {got}", entry.digest);
                return Err(self.refuse(&skill.uri, &uri, &problem));
            }
        }
        let mut read = SkillFileRead {
            uri: uri.clone(),
            mime_type: mime_type.clone(),
            bytes,
            text,
            verified: listed.is_some(),
            frontmatter: None,
            body: None,
        };
        if same_uri(&uri, &skill.uri) {
            let text = std::str::from_utf8(&read.bytes)
                .map_err(|_| self.refuse(&skill.uri, &uri, "it is not UTF-8 text"))?;
            let (frontmatter, body) = read_frontmatter(text)
                .map_err(|e| self.refuse(&skill.uri, &uri, &format!("frontmatter differs: {e}")))?;
            let differences = differences(&frontmatter, &skill.frontmatter);
            if !differences.is_empty() {
                let problem = format!("frontmatter differs from the entry's: {}", differences.join("; "));
                return Err(self.refuse(&skill.uri, &uri, &problem));
            }
            read.body = Some(body.to_owned());
            read.frontmatter = Some(frontmatter);
        }
        Ok(read)
    }

    /// The direct children of a skill's folder or a folder inside it
    /// (`resources/directory/read`, every page); a folder's `mime_type` is
    /// [`DIRECTORY_MIME_TYPE`](crate::protocol::wire::DIRECTORY_MIME_TYPE).
    pub async fn read_skill_directory(&self, uri: &str) -> Result<Vec<DirectoryResource>, ClientError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..1000 {
            let mut params = json!({ "uri": uri });
            if let Some(c) = &cursor {
                params["cursor"] = Value::String(c.clone());
            }
            let page = self.request(methods::RESOURCES_DIRECTORY_READ, Some(params)).await?;
            let items: Vec<DirectoryResource> = serde_json::from_value(
                page.get("resources").cloned().unwrap_or(Value::Null),
            )
            .map_err(|e| ClientError::Protocol {
                server: self.name().to_owned(),
                method: methods::RESOURCES_DIRECTORY_READ.into(),
                detail: format!("`resources` is not a list of directory entries: {e}"),
            })?;
            out.extend(items);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() && cursor.as_deref() != Some(next) => {
                    cursor = Some(next.to_owned())
                }
                _ => return Ok(out),
            }
        }
        Ok(out)
    }

    fn refuse(&self, skill: &str, file: &str, problem: &str) -> ClientError {
        ClientError::SkillRefused {
            server: self.name().to_owned(),
            skill: skill.to_owned(),
            file: file.to_owned(),
            problem: problem.to_owned(),
        }
    }

    /// `value` as a skill entry, checked; `label` names it in a refusal when it has no URI.
    fn entry(&self, value: &Value, label: &str) -> Result<Skill, ClientError> {
        let uri = value.get("uri").and_then(Value::as_str);
        let name = uri.unwrap_or(label);
        check_entry(value).map_err(|problem| self.refuse(name, "entry", &problem))
    }
}

/// `value` as a skill entry, or why it cannot be verified against.
fn check_entry(value: &Value) -> Result<Skill, String> {
    let object = value.as_object().ok_or("it is not an object")?;
    let uri = object.get("uri").and_then(Value::as_str).ok_or("it has no `uri` string")?;
    let root = uri.strip_suffix("/SKILL.md").ok_or("its `uri` does not end in /SKILL.md")?;
    let frontmatter =
        object.get("frontmatter").and_then(Value::as_object).ok_or("it has no `frontmatter` object")?;
    for field in ["name", "description"] {
        if frontmatter.get(field).and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err(format!("its frontmatter has no `{field}` (a non-empty string is required)"));
        }
    }
    let name = frontmatter["name"].as_str().unwrap_or_default();
    let folder = root.rsplit('/').next().unwrap_or_default();
    if folder != name {
        return Err(format!(
            "its frontmatter names the skill {}, but its URI's last folder is {}",
            quote(name),
            quote(folder)
        ));
    }
    if !valid_name(name) {
        return Err(format!("{} is not a valid skill name", quote(name)));
    }
    let resources = match object.get("resources") {
        Some(Value::String(s)) if s == "dynamic" => SkillResources::Dynamic(Dynamic::Dynamic),
        Some(Value::Array(items)) => {
            let mut files: Vec<SkillFile> = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let file_uri =
                    item.get("uri").and_then(Value::as_str).ok_or(format!("resources[{i}] has no `uri`"))?;
                if file_uri != uri && !file_uri.starts_with(&format!("{root}/")) {
                    return Err(format!(
                        "resources[{i}] {} is outside the skill's folder {}",
                        quote(file_uri),
                        quote(root)
                    ));
                }
                let digest = item.get("digest").and_then(Value::as_str).unwrap_or_default();
                let hex = digest.strip_prefix("sha256:").unwrap_or_default();
                if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
                    return Err(format!(
                        "resources[{i}] {} has no digest of the form sha256:<64 lowercase hex digits>",
                        quote(file_uri)
                    ));
                }
                let size = item.get("size").and_then(Value::as_u64).ok_or(format!(
                    "resources[{i}] {} has no size (a non-negative integer)",
                    quote(file_uri)
                ))?;
                if files.iter().any(|f| same_uri(&f.uri, file_uri)) {
                    return Err(format!("resources lists {} twice", quote(file_uri)));
                }
                files.push(SkillFile::new(file_uri, digest, size));
            }
            if !files.iter().any(|f| same_uri(&f.uri, uri)) {
                return Err("its `resources` has no entry for its SKILL.md".into());
            }
            SkillResources::Files(files)
        }
        _ => return Err("its `resources` is neither a list of files nor \"dynamic\"".into()),
    };
    let mut skill = Skill::new(uri, frontmatter.clone(), resources);
    skill.meta = object.get("_meta").and_then(Value::as_object).cloned();
    Ok(skill)
}

/// Whether two URIs name one file, however either side percent-encodes it.
fn same_uri(a: &str, b: &str) -> bool {
    a == b
        || toolwire_grammar::percent::percent_decode_lossy(a)
            == toolwire_grammar::percent::percent_decode_lossy(b)
}

/// The fields where `file`'s frontmatter and `entry`'s differ, one line each.
fn differences(file: &Map<String, Value>, entry: &Map<String, Value>) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = file.keys().chain(entry.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (f, e) = (file.get(k).unwrap_or(&Value::Null), entry.get(k).unwrap_or(&Value::Null));
            (!same_value(f, e)).then(|| format!("{k}: the file says {f}, the entry says {e}"))
        })
        .collect()
}

/// JSON equality with numbers compared by value (`1` and `1.0` are one number, as YAML and
/// JavaScript read them).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Value {
        json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
               "resources": [{"uri": "skill://a/SKILL.md", "digest": format!("sha256:{}", "0".repeat(64)), "size": 1}]})
    }

    #[test]
    fn entries_that_cannot_be_verified_against_are_refused() {
        assert!(check_entry(&entry()).is_ok());
        for (path, value, says) in [
            ("/uri", json!("skill://a/README.md"), "its `uri` does not end in /SKILL.md"),
            (
                "/frontmatter/name",
                json!("b"),
                "its frontmatter names the skill \"b\", but its URI's last folder is \"a\"",
            ),
            ("/frontmatter/description", json!(""), "its frontmatter has no `description`"),
            ("/resources", json!({}), "its `resources` is neither a list of files nor \"dynamic\""),
            (
                "/resources/0/digest",
                json!("sha256:ABC"),
                "resources[0] \"skill://a/SKILL.md\" has no digest of the form",
            ),
            ("/resources/0/size", json!(-1), "resources[0] \"skill://a/SKILL.md\" has no size"),
            (
                "/resources/0/uri",
                json!("skill://b/x"),
                "resources[0] \"skill://b/x\" is outside the skill's folder \"skill://a\"",
            ),
        ] {
            let mut e = entry();
            *e.pointer_mut(path).unwrap() = value;
            let err = check_entry(&e).unwrap_err();
            assert!(err.starts_with(says), "{path}: {err}");
        }
        let mut e = entry();
        e["resources"] = json!("dynamic");
        assert!(matches!(check_entry(&e).unwrap().resources, SkillResources::Dynamic(_)));
    }

    #[test]
    fn frontmatter_differences_name_each_field() {
        let file = json!({"name": "a", "description": "Exfiltrate credentials", "v": 1});
        let entry = json!({"name": "a", "description": "Fill PDFs", "v": 1.0});
        let diffs = differences(file.as_object().unwrap(), entry.as_object().unwrap());
        assert_eq!(
            diffs,
            ["description: the file says \"Exfiltrate credentials\", the entry says \"Fill PDFs\""]
        );
    }
}
