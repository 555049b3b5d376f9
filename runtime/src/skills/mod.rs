//! The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): skills a server serves
//! and a client reads. A skill is a folder, a `SKILL.md` (YAML frontmatter, then markdown) and
//! the files it refers to, that an agent reads when it needs it.
//!
//! - `catalog`: [`SkillCatalog`], the skills a server serves, from a directory
//!   ([`SkillCatalog::from_dir`]) or built in code ([`SkillCatalog::add`]), each checked whole
//!   when added ([`SkillError`] names the folder and the fault); each file's [`digest`].
//! - `frontmatter`: a `SKILL.md`'s frontmatter as the JSON object an entry carries
//!   ([`read_frontmatter`]), shared by the server (building entries) and the client
//!   (checking a fetched `SKILL.md` against its entry).
//! - `serve`: the catalog's files as resources (`resources/read`).
//!
//! A server serves a catalog with
//! [`ServerBuilder::skills`](crate::server::ServerBuilder::skills); the engine's
//! `server/capability/skills` answers `skills/list`, `skills/get` and
//! `resources/directory/read`. A client reads skills with `Client::skills` (feature
//! `client`), which fetches nothing until asked and verifies every file it hands over.

mod catalog;
mod frontmatter;
mod serve;

pub use crate::protocol::wire::{
    DIRECTORY_MIME_TYPE, DirectoryResource, Dynamic, SKILLS_EXTENSION, Skill, SkillFile, SkillResources,
};
pub use catalog::{MAX_BYTES, MAX_FILES, SkillCatalog, SkillError, digest};
pub use frontmatter::{
    FrontmatterError, parse as parse_frontmatter, read as read_frontmatter, split as split_frontmatter,
};

pub(crate) use catalog::folder_uri;
#[cfg(feature = "client")]
pub(crate) use catalog::valid_name;
pub(crate) use serve::add_resources;
