//! [`SkillCatalog`]: the skills a server serves, read from a directory
//! ([`SkillCatalog::from_dir`], a folder per skill) or given in code ([`SkillCatalog::add`]),
//! each checked whole when it is added, and held in memory: the entry `skills/list` carries
//! (every file's digest and size), the bytes `resources/read` serves, the folders
//! `resources/directory/read` lists.
//!
//! # What a skill must be
//!
//! A skill is a folder whose name is the skill's name: 1 to 64 characters, lowercase ASCII
//! letters, digits and hyphens, no leading, trailing or doubled hyphen (the Agent Skills
//! naming rule). It holds a `SKILL.md` at its root, UTF-8, beginning with YAML frontmatter
//! (module `frontmatter`) whose `name` is the folder's name and whose `description` is a
//! non-empty string. Its other files may sit in subfolders. At most [`MAX_FILES`] files and
//! [`MAX_BYTES`] bytes in all (SEP-2640's limits, which a server should not exceed: toolwire
//! refuses rather than serve past them).
//!
//! A file's path is relative to the skill's folder, `/`-separated, and may not be empty,
//! hold an empty, `.` or `..` segment, a backslash or a NUL (module `paths`' lexical rules).
//! From a directory, a symbolic link is followed only if it stays inside the skill's folder
//! (module `paths` resolves it); one leading out, or to a folder, is refused. Entries whose
//! name begins with `.` are skipped, at every level; files beside the skill folders (a
//! README at the root) are not skills and are skipped too.
//!
//! Every refusal is a [`SkillError`] naming the skill's folder and what is wrong, when the
//! catalog is built: a malformed skill is never served.
//!
//! # How a skill is served
//!
//! The skill `pdf` is at `skill://pdf/SKILL.md`, its file `references/FORMS.md` at
//! `skill://pdf/references/FORMS.md` (each path segment percent-encoded where RFC 3986 needs
//! it), its folder at `skill://pdf` and its subfolder at `skill://pdf/references`. The files
//! are read once, when the catalog is built: what is served is what was digested.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::frontmatter::{self, FrontmatterError};
use crate::paths::{AllowedRoots, PathRefusal, check_text};
use crate::protocol::wire::{DIRECTORY_MIME_TYPE, DirectoryResource, Skill, SkillFile, SkillResources};

/// The most files a skill may have, `SKILL.md` included.
pub const MAX_FILES: usize = 512;
/// The most bytes a skill's files may hold together (16 MiB).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Why a skill was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The skills directory, or a skill's folder or file, could not be read.
    #[error("skill folder {folder}: {what} could not be read: {source}")]
    Io {
        /// The skill's folder (or the skills directory).
        folder: PathBuf,
        /// What was being read.
        what: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The folder's name is not a valid skill name.
    #[error(
        "skill folder {folder}: {name:?} is not a valid skill name (1-64 lowercase letters, digits and hyphens, no leading, trailing or doubled hyphen)"
    )]
    Name {
        /// The skill's folder.
        folder: PathBuf,
        /// The name.
        name: String,
    },
    /// Two skills have one name.
    #[error("skill folder {folder}: a skill named {name:?} is already in the catalog")]
    Duplicate {
        /// The skill's folder.
        folder: PathBuf,
        /// The name.
        name: String,
    },
    /// The folder has no `SKILL.md` at its root.
    #[error("skill folder {folder}: it has no SKILL.md at its root")]
    NoSkillMd {
        /// The skill's folder.
        folder: PathBuf,
    },
    /// The `SKILL.md` is not UTF-8.
    #[error("skill folder {folder}: its SKILL.md is not UTF-8")]
    NotUtf8 {
        /// The skill's folder.
        folder: PathBuf,
    },
    /// The `SKILL.md`'s frontmatter is missing or malformed.
    #[error("skill folder {folder}: SKILL.md: {source}")]
    Frontmatter {
        /// The skill's folder.
        folder: PathBuf,
        /// What is wrong with it.
        #[source]
        source: FrontmatterError,
    },
    /// The frontmatter's `name` is not the folder's name.
    #[error(
        "skill folder {folder}: its SKILL.md names the skill {said:?}, but the folder is {name:?}; they must be equal"
    )]
    NameMismatch {
        /// The skill's folder.
        folder: PathBuf,
        /// The folder's name.
        name: String,
        /// The frontmatter's `name`.
        said: String,
    },
    /// A file's path is not one a skill may hold.
    #[error("skill folder {folder}: file {path:?} {problem}")]
    BadPath {
        /// The skill's folder.
        folder: PathBuf,
        /// The file's path, relative to the folder.
        path: String,
        /// What is wrong with it, in `SafePath`'s words.
        problem: String,
    },
    /// The skill is past a limit.
    #[error("skill folder {folder}: {what}, past the limit of {limit}")]
    TooLarge {
        /// The skill's folder.
        folder: PathBuf,
        /// What is too large.
        what: String,
        /// The limit.
        limit: u64,
    },
}

/// One file of a skill, held in memory.
#[derive(Debug, Clone)]
pub(crate) struct HeldFile {
    /// Its path in the skill's folder.
    pub(crate) path: String,
    pub(crate) uri: String,
    pub(crate) bytes: Arc<[u8]>,
}

/// One skill, checked.
#[derive(Debug, Clone)]
pub(crate) struct HeldSkill {
    pub(crate) name: String,
    pub(crate) entry: Skill,
    pub(crate) files: Vec<HeldFile>,
}

/// The skills a server serves, each checked whole when added. Give it to
/// [`ServerBuilder::skills`](crate::server::ServerBuilder::skills).
///
/// ```
/// use toolwire::skills::SkillCatalog;
///
/// let mut catalog = SkillCatalog::new();
/// catalog
///     .add("pdf-tools", [
///         ("SKILL.md", &b"---\nname: pdf-tools\ndescription: Fill PDF forms\n---\nUse forms.py.\n"[..]),
///         ("scripts/forms.py", b"print('hi')\n"),
///     ])
///     .unwrap();
/// assert_eq!(catalog.skills()[0].uri, "skill://pdf-tools/SKILL.md");
///
/// // A malformed skill is refused, naming the skill and the fault.
/// let err = SkillCatalog::new().add("broken", [("README.md", &b"hi"[..])]).unwrap_err();
/// assert_eq!(err.to_string(), "skill folder broken: it has no SKILL.md at its root");
/// ```
#[derive(Debug, Clone, Default)]
pub struct SkillCatalog {
    /// By name, so entries list in URI order.
    skills: BTreeMap<String, HeldSkill>,
}

impl SkillCatalog {
    /// An empty catalog.
    pub fn new() -> SkillCatalog {
        SkillCatalog::default()
    }

    /// Every skill under `root`: each folder directly inside it is one skill, named by the
    /// folder (see the module docs for what a skill must be). Fails on the first malformed
    /// skill, naming its folder and the fault.
    pub fn from_dir(root: impl AsRef<Path>) -> Result<SkillCatalog, SkillError> {
        let root = root.as_ref();
        let mut catalog = SkillCatalog::new();
        let io =
            |what: &str, source| SkillError::Io { folder: root.to_owned(), what: what.to_owned(), source };
        let mut folders = Vec::new();
        for entry in std::fs::read_dir(root).map_err(|e| io("the skills directory", e))? {
            let entry = entry.map_err(|e| io("the skills directory", e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if entry.path().is_dir() {
                folders.push(entry.path());
            }
        }
        folders.sort();
        for folder in folders {
            catalog.add_dir(&folder)?;
        }
        Ok(catalog)
    }

    /// The skill in the folder `folder`, named by the folder's last component.
    pub fn add_dir(&mut self, folder: impl AsRef<Path>) -> Result<&mut Self, SkillError> {
        let folder = folder.as_ref();
        let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let files = read_folder(folder)?;
        self.insert(folder, &name, files)
    }

    /// The skill `name` made of `files`: each a path relative to the skill's folder and its
    /// bytes, `SKILL.md` among them. Refused as [`from_dir`](Self::from_dir) would refuse the
    /// folder; the error names the skill as its folder.
    pub fn add<P, B>(
        &mut self,
        name: &str,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<&mut Self, SkillError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let folder = PathBuf::from(name);
        let mut held = Vec::new();
        for (path, bytes) in files {
            let path: String = path.into();
            check_path(&folder, &path)?;
            held.push((path, bytes.into()));
        }
        self.insert(&folder, name, held)
    }

    /// The entries, in URI order, as `skills/list` carries them.
    pub fn skills(&self) -> Vec<Skill> {
        self.skills.values().map(|s| s.entry.clone()).collect()
    }

    /// How many skills.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skills, checked, in URI order.
    pub(crate) fn held(&self) -> impl Iterator<Item = &HeldSkill> {
        self.skills.values()
    }

    fn insert(
        &mut self,
        folder: &Path,
        name: &str,
        mut files: Vec<(String, Vec<u8>)>,
    ) -> Result<&mut Self, SkillError> {
        if !valid_name(name) {
            return Err(SkillError::Name { folder: folder.to_owned(), name: name.to_owned() });
        }
        if self.skills.contains_key(name) {
            return Err(SkillError::Duplicate { folder: folder.to_owned(), name: name.to_owned() });
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(w) = files.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(SkillError::BadPath {
                folder: folder.to_owned(),
                path: w[0].0.clone(),
                problem: "is given twice".into(),
            });
        }
        if files.len() > MAX_FILES {
            return Err(SkillError::TooLarge {
                folder: folder.to_owned(),
                what: format!("{} files", files.len()),
                limit: MAX_FILES as u64,
            });
        }
        let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
        if total > MAX_BYTES {
            return Err(SkillError::TooLarge {
                folder: folder.to_owned(),
                what: format!("{total} bytes in all"),
                limit: MAX_BYTES,
            });
        }
        let skill_md = files
            .iter()
            .find(|(p, _)| p == "SKILL.md")
            .ok_or_else(|| SkillError::NoSkillMd { folder: folder.to_owned() })?;
        let text = std::str::from_utf8(&skill_md.1)
            .map_err(|_| SkillError::NotUtf8 { folder: folder.to_owned() })?;
        let (fm, _) = frontmatter::read(text)
            .map_err(|source| SkillError::Frontmatter { folder: folder.to_owned(), source })?;
        let said = fm.get("name").and_then(Value::as_str).unwrap_or_default();
        if said != name {
            return Err(SkillError::NameMismatch {
                folder: folder.to_owned(),
                name: name.to_owned(),
                said: said.to_owned(),
            });
        }
        let skill_uri = file_uri(name, "SKILL.md");
        let held: Vec<HeldFile> = files
            .into_iter()
            .map(|(path, bytes)| HeldFile { uri: file_uri(name, &path), path, bytes: bytes.into() })
            .collect();
        // SKILL.md first, then the rest by path.
        let mut manifest: Vec<SkillFile> = Vec::with_capacity(held.len());
        for f in
            held.iter().filter(|f| f.path == "SKILL.md").chain(held.iter().filter(|f| f.path != "SKILL.md"))
        {
            manifest.push(SkillFile::new(f.uri.clone(), digest(&f.bytes), f.bytes.len() as u64));
        }
        let entry = Skill::new(skill_uri, fm, SkillResources::Files(manifest));
        self.skills.insert(name.to_owned(), HeldSkill { name: name.to_owned(), entry, files: held });
        Ok(self)
    }
}

impl HeldSkill {
    /// The frontmatter's `description`.
    pub(crate) fn description(&self) -> &str {
        self.entry.frontmatter.get("description").and_then(Value::as_str).unwrap_or_default()
    }

    /// Each folder of the skill (`""` is its root) and its direct children, in path order.
    pub(crate) fn folders(&self) -> BTreeMap<String, Vec<DirectoryResource>> {
        let mut folders: BTreeMap<String, BTreeMap<String, DirectoryResource>> = BTreeMap::new();
        folders.entry(String::new()).or_default();
        for file in &self.files {
            let segments: Vec<&str> = file.path.split('/').collect();
            for depth in 0..segments.len() {
                let parent = segments[..depth].join("/");
                let here = segments[..=depth].join("/");
                let child = if depth + 1 == segments.len() {
                    DirectoryResource::new(file.uri.clone(), segments[depth])
                        .with_mime_type(mime_type(&file.path))
                        .with_size(file.bytes.len() as u64)
                } else {
                    folders.entry(here.clone()).or_default();
                    DirectoryResource::new(folder_uri(&self.name, &here), segments[depth])
                        .with_mime_type(DIRECTORY_MIME_TYPE)
                };
                folders.entry(parent).or_default().insert(here, child);
            }
        }
        folders.into_iter().map(|(k, v)| (k, v.into_values().collect())).collect()
    }
}

/// `sha256:` and the SHA-256 of `bytes` in lowercase hex.
pub fn digest(bytes: &[u8]) -> String {
    let hash = hmac_sha256::Hash::hash(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in hash {
        out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    out
}

/// The MIME type a skill file is served with, by its extension.
pub(crate) fn mime_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// The Agent Skills naming rule.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The URI of the file `path` of the skill `name`.
pub(crate) fn file_uri(name: &str, path: &str) -> String {
    folder_uri(name, path)
}

/// The URI of the folder (or file) `path` of the skill `name`; `""` is the skill's root.
pub(crate) fn folder_uri(name: &str, path: &str) -> String {
    let mut uri = format!("skill://{name}");
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        uri.push('/');
        for b in segment.bytes() {
            // RFC 3986 pchar: unreserved, sub-delims, ':' and '@' stay; the rest is encoded.
            if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b) {
                uri.push(char::from(b));
            } else {
                uri.push_str(&format!("%{b:02X}"));
            }
        }
    }
    uri
}

/// `path`'s lexical check, in `SafePath`'s words, plus the empty and `.` segments a skill's
/// file list may not hold either.
fn check_path(folder: &Path, path: &str) -> Result<(), SkillError> {
    let bad =
        |problem: String| SkillError::BadPath { folder: folder.to_owned(), path: path.to_owned(), problem };
    check_text(path).map_err(|refusal| bad(refusal.to_string()))?;
    if path.starts_with('/') || path.split('/').any(|s| s.is_empty() || s == ".") {
        return Err(bad("must be relative to the skill's folder, with no empty or '.' segment".into()));
    }
    Ok(())
}

/// Every file under `folder`, read, with its path relative to it.
fn read_folder(folder: &Path) -> Result<Vec<(String, Vec<u8>)>, SkillError> {
    let io = |what: String, source| SkillError::Io { folder: folder.to_owned(), what, source };
    let roots = AllowedRoots::new([folder]).map_err(|e| io("the folder".into(), e.source))?;
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(dir) = pending.pop() {
        let path = if dir.is_empty() { folder.to_owned() } else { folder.join(&dir) };
        let entries = std::fs::read_dir(&path).map_err(|e| io(format!("folder {dir:?}"), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(format!("folder {dir:?}"), e))?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(SkillError::BadPath {
                    folder: folder.to_owned(),
                    path: format!("{dir}/{}", entry.file_name().to_string_lossy()),
                    problem: "has a name that is not UTF-8".into(),
                });
            };
            if name.starts_with('.') {
                continue;
            }
            let rel = if dir.is_empty() { name } else { format!("{dir}/{name}") };
            check_path(folder, &rel)?;
            let kind = entry.file_type().map_err(|e| io(format!("file {rel:?}"), e))?;
            if kind.is_symlink() {
                // Followed only while it stays in the skill's folder, and only to a file.
                let resolved = roots.check(&rel).map_err(|refusal| SkillError::BadPath {
                    folder: folder.to_owned(),
                    path: rel.clone(),
                    problem: match refusal {
                        PathRefusal::Escapes { .. } => {
                            "is a symbolic link leading out of the skill's folder".to_owned()
                        }
                        other => other.to_string(),
                    },
                })?;
                if !resolved.as_path().is_file() {
                    return Err(SkillError::BadPath {
                        folder: folder.to_owned(),
                        path: rel,
                        problem: "is a symbolic link to something other than a file".into(),
                    });
                }
            } else if kind.is_dir() {
                pending.push(rel);
                continue;
            } else if !kind.is_file() {
                return Err(SkillError::BadPath {
                    folder: folder.to_owned(),
                    path: rel,
                    problem: "is not a regular file".into(),
                });
            }
            let bytes = std::fs::read(folder.join(&rel)).map_err(|e| io(format!("file {rel:?}"), e))?;
            out.push((rel, bytes));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill_md(name: &str) -> Vec<u8> {
        format!("---\nname: {name}\ndescription: Does {name} things\n---\nBody of {name}.\n").into_bytes()
    }

    #[test]
    fn a_skill_in_code_gets_its_manifest() {
        let mut catalog = SkillCatalog::new();
        catalog.add("pdf", [("SKILL.md", skill_md("pdf")), ("ref/a b.md", b"x".to_vec())]).unwrap();
        let entry = &catalog.skills()[0];
        assert_eq!(entry.uri, "skill://pdf/SKILL.md");
        let SkillResources::Files(files) = &entry.resources else { panic!() };
        assert_eq!(files[0].uri, "skill://pdf/SKILL.md");
        assert_eq!(files[0].size, skill_md("pdf").len() as u64);
        assert_eq!(files[1].uri, "skill://pdf/ref/a%20b.md");
        // sha256("x")
        assert_eq!(
            files[1].digest,
            "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
        );
        let folders = catalog.held().next().unwrap().folders();
        assert_eq!(folders.keys().collect::<Vec<_>>(), ["", "ref"]);
        assert_eq!(folders[""][1].uri, "skill://pdf/ref");
        assert_eq!(folders[""][1].mime_type.as_deref(), Some(DIRECTORY_MIME_TYPE));
    }

    #[test]
    fn malformed_skills_are_refused_naming_the_folder_and_the_fault() {
        // The skill's name, its files, and the start of its refusal.
        type Case<'a> = (&'a str, Vec<(&'a str, Vec<u8>)>, &'a str);
        let cases: Vec<Case<'_>> = vec![
            (
                "Bad_Name",
                vec![("SKILL.md", skill_md("Bad_Name"))],
                "skill folder Bad_Name: \"Bad_Name\" is not a valid skill name",
            ),
            ("a", vec![("README.md", b"x".to_vec())], "skill folder a: it has no SKILL.md at its root"),
            (
                "a",
                vec![("SKILL.md", b"no frontmatter".to_vec())],
                "skill folder a: SKILL.md: it does not begin with a `---` line",
            ),
            (
                "a",
                vec![("SKILL.md", skill_md("b"))],
                "skill folder a: its SKILL.md names the skill \"b\", but the folder is \"a\"",
            ),
            (
                "a",
                vec![("SKILL.md", skill_md("a")), ("../x", vec![])],
                "skill folder a: file \"../x\" must not contain '..' segments",
            ),
            (
                "a",
                vec![("SKILL.md", skill_md("a")), ("x\\y", vec![])],
                "skill folder a: file \"x\\\\y\" must not contain backslashes",
            ),
            (
                "a",
                vec![("SKILL.md", skill_md("a")), ("/etc/x", vec![])],
                "skill folder a: file \"/etc/x\" must be relative",
            ),
            (
                "a",
                vec![("SKILL.md", b"---\nname: a\n---\n".to_vec())],
                "skill folder a: SKILL.md: its frontmatter has no `description`",
            ),
            ("a", vec![("SKILL.md", vec![0xff, 0xfe])], "skill folder a: its SKILL.md is not UTF-8"),
        ];
        for (name, files, says) in cases {
            let err = SkillCatalog::new().add(name, files).unwrap_err().to_string();
            assert!(err.starts_with(says), "{err}\nshould start with\n{says}");
        }
        let mut catalog = SkillCatalog::new();
        catalog.add("a", [("SKILL.md", skill_md("a"))]).unwrap();
        let err = catalog.add("a", [("SKILL.md", skill_md("a"))]).unwrap_err();
        assert_eq!(err.to_string(), "skill folder a: a skill named \"a\" is already in the catalog");
        let many: Vec<(String, Vec<u8>)> = (0..=MAX_FILES)
            .map(|i| (format!("f{i}"), vec![]))
            .chain([("SKILL.md".to_owned(), skill_md("a"))])
            .collect();
        let err = SkillCatalog::new().add("a", many).unwrap_err();
        assert_eq!(err.to_string(), "skill folder a: 514 files, past the limit of 512");
    }

    #[test]
    fn from_dir_reads_folders_and_refuses_an_escaping_link() {
        let root = std::env::temp_dir().join(format!("toolwire-skills-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("one/refs")).unwrap();
        std::fs::write(root.join("one/SKILL.md"), skill_md("one")).unwrap();
        std::fs::write(root.join("one/refs/GUIDE.md"), b"guide").unwrap();
        std::fs::write(root.join("one/.hidden"), b"skipped").unwrap();
        std::fs::write(root.join("README.md"), b"not a skill").unwrap();
        let catalog = SkillCatalog::from_dir(&root).unwrap();
        let SkillResources::Files(files) = &catalog.skills()[0].resources else { panic!() };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(uris, ["skill://one/SKILL.md", "skill://one/refs/GUIDE.md"]);

        std::fs::create_dir_all(root.join("two")).unwrap();
        std::fs::write(root.join("two/SKILL.md"), skill_md("two")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/hostname", root.join("two/leak")).unwrap();
            let err = SkillCatalog::from_dir(&root).unwrap_err().to_string();
            assert_eq!(
                err,
                format!(
                    "skill folder {}: file \"leak\" is a symbolic link leading out of the skill's folder",
                    root.join("two").display()
                )
            );
        }
        std::fs::create_dir_all(root.join("three")).unwrap();
        let _ = std::fs::remove_dir_all(root.join("two"));
        let err = SkillCatalog::from_dir(&root).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("skill folder {}: it has no SKILL.md at its root", root.join("three").display())
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
