//! The Skills extension's shapes (SEP-2640, `io.modelcontextprotocol/skills`): a [`Skill`]
//! entry as `skills/list` and `skills/get` carry it, with its [`SkillResources`] (every file's
//! [`SkillFile`]: URI, digest, size), and a [`DirectoryResource`] as
//! `resources/directory/read` lists it.
//!
//! Unlike the other shapes of this module these are read strictly (plain derives, no lenient
//! members): a host must refuse an entry it cannot verify against, so a missing or mistyped
//! member is an error the client names, not an absent value.

use serde::Serialize;

use super::JsonObject;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a directory resource (a skill's folder, or a folder inside one).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// One skill: where its `SKILL.md` is, its frontmatter, and its files.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct Skill {
    /// The URI of the skill's `SKILL.md` (`skill://<skill-path>/SKILL.md`).
    pub uri: String,
    /// The `SKILL.md`'s YAML frontmatter as a JSON object, verbatim: `name` and
    /// `description` at least.
    pub frontmatter: JsonObject,
    /// Every file of the skill, or `"dynamic"`.
    pub resources: SkillResources,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Skill {
    /// An entry for the skill whose `SKILL.md` is at `uri`.
    pub fn new(uri: impl Into<String>, frontmatter: JsonObject, resources: SkillResources) -> Skill {
        Skill { uri: uri.into(), frontmatter, resources, meta: None }
    }
}

/// A skill's files: the complete list, or `"dynamic"` (a server that publishes no manifest;
/// its files cannot be verified).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(untagged)]
#[non_exhaustive]
pub enum SkillResources {
    /// Every file of the skill, each once, `SKILL.md` included.
    Files(Vec<SkillFile>),
    /// The string `"dynamic"`.
    Dynamic(Dynamic),
}

/// The string `"dynamic"`, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Dynamic {
    /// `"dynamic"`.
    Dynamic,
}

/// One file of a skill, with what a host needs to verify it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[non_exhaustive]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and the SHA-256 of the file's raw bytes in 64 lowercase hex digits.
    pub digest: String,
    /// The length of the file's raw bytes.
    pub size: u64,
}

impl SkillFile {
    /// A file entry.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> SkillFile {
        SkillFile { uri: uri.into(), digest: digest.into(), size }
    }
}

/// One child of a directory resource, as `resources/directory/read` lists it: a file, or a
/// folder (`mimeType` [`DIRECTORY_MIME_TYPE`]) a client can descend into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "client", derive(serde::Deserialize))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DirectoryResource {
    /// Its URI.
    pub uri: String,
    /// Its name: the last segment of its path.
    pub name: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes (files only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl DirectoryResource {
    /// A child named `name` at `uri`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> DirectoryResource {
        DirectoryResource { uri: uri.into(), name: name.into(), mime_type: None, size: None }
    }

    /// With a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a size in bytes.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_serialise_as_the_extension_carries_them() {
        let mut fm = JsonObject::new();
        fm.insert("name".into(), "a".into());
        let files = vec![SkillFile::new("skill://a/SKILL.md", "sha256:00", 3)];
        let skill = Skill::new("skill://a/SKILL.md", fm.clone(), SkillResources::Files(files));
        assert_eq!(
            serde_json::to_string(&skill).unwrap(),
            r#"{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":3}]}"#
        );
        let dynamic = Skill::new("skill://a/SKILL.md", fm, SkillResources::Dynamic(Dynamic::Dynamic));
        assert!(serde_json::to_string(&dynamic).unwrap().contains(r#""resources":"dynamic""#));
        let dir = DirectoryResource::new("skill://a/refs", "refs").with_mime_type(DIRECTORY_MIME_TYPE);
        assert_eq!(
            serde_json::to_string(&dir).unwrap(),
            r#"{"uri":"skill://a/refs","name":"refs","mimeType":"inode/directory"}"#
        );
    }
}
