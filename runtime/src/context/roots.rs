//! The client's roots (the directories it lets the server work in): [`Context::roots`]
//! asks with `roots/list` once per session and caches the answer until the client sends
//! `notifications/roots/list_changed`; [`Roots`] answers "is this path within a root" and
//! "resolve this path against the root holding it".

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::Context;
use super::error::AskError;
use crate::protocol::methods;
use toolwire_grammar::percent::percent_decode;

/// One root the client exposes: what a tool reads with [`Context::roots`], and what a
/// client offers with `client::ClientOptions::roots` (the one type on both sides).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI (`file:///home/me/project`).
    pub uri: String,
    /// A name to show for it.
    #[serde(default)]
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`, named `name`.
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Root {
        Root { uri: uri.into(), name }
    }

    /// The directory `path` as a `file://` root named after its last component.
    pub fn directory(path: impl Into<PathBuf>) -> Root {
        let path = path.into();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        Root { uri: format!("file://{}", path.display()), name }
    }

    /// The local path of a `file://` root (percent-escapes decoded); `None` for other schemes.
    pub fn path(&self) -> Option<PathBuf> {
        let rest = self.uri.strip_prefix("file://")?;
        // `file://host/path`: only an empty host or `localhost` is this machine.
        let rest = rest.strip_prefix("localhost").unwrap_or(rest);
        if !rest.starts_with('/') {
            return None;
        }
        Some(PathBuf::from(percent_decode(rest)?))
    }
}

/// The client's roots, as one `roots/list` answered.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[non_exhaustive]
pub struct Roots {
    /// The roots, in the client's order.
    pub roots: Vec<Root>,
}

impl Roots {
    /// Roots made from a list (for tests and hosts).
    pub fn new(roots: impl IntoIterator<Item = Root>) -> Roots {
        Roots { roots: roots.into_iter().collect() }
    }

    /// The root holding `path` (an absolute path, compared after lexical normalisation:
    /// `a/../b` is `b`, and nothing climbs out of a root with `..`), with `path` relative to
    /// it.
    pub fn root_of(&self, path: &Path) -> Option<(&Root, PathBuf)> {
        let path = normalise(path)?;
        self.roots.iter().find_map(|root| {
            let base = normalise(&root.path()?)?;
            path.strip_prefix(&base).ok().map(|rel| (root, rel.to_path_buf()))
        })
    }

    /// Whether `path` lies within one of the roots.
    pub fn contains(&self, path: &Path) -> bool {
        self.root_of(path).is_some()
    }

    /// Resolve `path` against the roots: an absolute path is returned (normalised) if it lies
    /// within a root; a relative one is joined to the first root under which it exists, or
    /// else to the first `file://` root. `None` when it would land outside every root, or
    /// there is no `file://` root.
    pub fn resolve(&self, path: &Path) -> Option<PathBuf> {
        if path.is_absolute() {
            return self.root_of(path).and_then(|_| normalise(path));
        }
        let bases: Vec<PathBuf> =
            self.roots.iter().filter_map(Root::path).filter_map(|p| normalise(&p)).collect();
        let joined = |base: &PathBuf| normalise(&base.join(path)).filter(|p| p.starts_with(base));
        bases
            .iter()
            .find_map(|base| joined(base).filter(|p| p.exists()))
            .or_else(|| bases.first().and_then(joined))
    }
}

/// `path` made absolute-lexical: `.` dropped, `..` taken back; `None` if it is relative or
/// `..` would climb above `/`.
fn normalise(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

impl Context {
    /// The client's roots. Asked with `roots/list` the first time in a session, then served
    /// from the session's cache until the client sends `notifications/roots/list_changed`.
    /// Needs the client's `roots` capability ([`AskError::NotDeclared`] otherwise, and
    /// nothing is sent).
    pub async fn roots(&self) -> Result<Arc<Roots>, AskError> {
        self.roots_keyed(None).await
    }

    /// [`roots`](Self::roots) under `key` (see [`elicit_as`](Self::elicit_as)). A 2026-07-28
    /// call has no session to cache in: it asks in every call.
    pub async fn roots_as(&self, key: &str) -> Result<Arc<Roots>, AskError> {
        self.roots_keyed(Some(key)).await
    }

    async fn roots_keyed(&self, key: Option<&str>) -> Result<Arc<Roots>, AskError> {
        let talk = self.talkback(methods::ROOTS_LIST)?;
        if !talk.capabilities().roots {
            return Err(AskError::NotDeclared { capability: "roots", what: methods::ROOTS_LIST });
        }
        if let Some(roots) = talk.cached_roots() {
            return Ok(roots);
        }
        let generation = talk.roots_generation();
        let answer = self.ask(talk, key, methods::ROOTS_LIST, "{}".to_owned()).await?;
        let roots: Roots = serde_json::from_str(answer.get())
            .map_err(|e| AskError::BadAnswer { what: methods::ROOTS_LIST, reason: super::trim_serde(e) })?;
        let roots = Arc::new(roots);
        talk.cache_roots(generation, roots.clone());
        Ok(roots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> Roots {
        Roots::new([
            Root { uri: "file:///work/my%20project".into(), name: Some("p".into()) },
            Root { uri: "https://example.com/x".into(), name: None },
            Root { uri: "file:///tmp".into(), name: None },
        ])
    }

    #[test]
    fn paths_are_within_a_root_only_lexically_inside_it() {
        let r = roots();
        assert_eq!(r.roots[0].path().unwrap(), Path::new("/work/my project"));
        assert_eq!(r.roots[1].path(), None);
        assert!(r.contains(Path::new("/work/my project/src/lib.rs")));
        assert!(r.contains(Path::new("/tmp")));
        assert!(!r.contains(Path::new("/work/my project/../other")));
        assert!(!r.contains(Path::new("/work/my projectile")));
        assert!(!r.contains(Path::new("src/lib.rs")));
        let (root, rel) = r.root_of(Path::new("/tmp/./a/../b")).unwrap();
        assert_eq!((root.uri.as_str(), rel.as_path()), ("file:///tmp", Path::new("b")));
    }

    #[test]
    fn relative_paths_resolve_under_the_root_holding_them_and_never_climb_out() {
        let r = roots();
        // Nothing exists under the first root here; /tmp exists, and holds "." always.
        assert_eq!(r.resolve(Path::new(".")), Some(PathBuf::from("/tmp")));
        assert_eq!(r.resolve(Path::new("new/file")), Some(PathBuf::from("/work/my project/new/file")));
        assert_eq!(r.resolve(Path::new("../escape")), None);
        assert_eq!(r.resolve(Path::new("/etc/passwd")), None);
        assert_eq!(r.resolve(Path::new("/tmp/x/../y")), Some(PathBuf::from("/tmp/y")));
    }
}
