//! [`SafePath`]: a tool argument that names a file inside the directories the host allows
//! ([`AllowedRoots`]), and nothing outside them.
//!
//! A model writes the path, so the path is untrusted input. `SafePath` is a
//! [`FromArgument`]: the call's argument is a string, advertised
//! with a schema that says what it accepts, and settled against the registry's
//! [`AllowedRoots`] state before the body runs. A refusal is an argument error naming the
//! argument, the same kind of message a wrongly typed argument gets:
//!
//! ```text
//! tool 'read_file' call rejected: argument 'path' must not contain '..' segments, got '../etc/passwd'
//! ```
//!
//! # What is refused, in this order
//!
//! 1. An empty path; a NUL byte (`safe.txt\0.exe`); a backslash (`..\..\etc\passwd`: on
//!    Windows a separator, here a confusion).
//! 2. A `..` segment (`../etc/passwd`, `a/../../b`).
//! 3. The same hidden by percent-encoding, once or more (`%2e%2e/etc/passwd`,
//!    `%252e%252e/etc/passwd`, `.%2e/x`, `..%2fx`), and an encoded backslash or NUL
//!    (`%5c`, `%00`): the path is decoded up to four times and each form is checked as in 1
//!    and 2. The path itself is never decoded for use: `a%20b` names the file `a%20b`.
//! 4. An absolute path outside every root (`/etc/passwd`).
//! 5. A path whose existing part, with every symbolic link followed, leads outside every
//!    root (a link `data/out -> /etc` makes `out/passwd` refused).
//!
//! # Where a path points
//!
//! A relative path is taken relative to the first root; an absolute path must lie inside one
//! of the roots. The result ([`SafePath::as_path`]) is absolute, with the symbolic links of
//! its existing part resolved, so it can be opened directly. The file need not exist (a tool
//! may create it): the part that does not exist yet is appended as written, which is safe
//! because it has no `..`.
//!
//! The check is made when the call starts. A link created inside a root between the check and
//! the open is not seen: `SafePath` is a guard on what a model may ask for, not a sandbox
//! against a hostile process on the same machine (use the operating system's isolation for
//! that).

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use toolwire_grammar::percent::percent_decode_lossy;

use crate::args::PyStr;
use crate::context::Context;
use crate::inject::FromArgument;
use crate::state::StateNeed;

/// The directories a [`SafePath`] argument may point into: give them to the registry as state
/// (`tools![read_file; state = [AllowedRoots::new(["/srv/data"])?]]`).
///
/// Each root is made absolute and its symbolic links resolved when it is added, so it must
/// exist.
#[derive(Debug, Clone)]
pub struct AllowedRoots {
    roots: Vec<PathBuf>,
}

/// A root given to [`AllowedRoots::new`] could not be used.
#[derive(Debug, thiserror::Error)]
#[error("allowed root '{}' cannot be used: {source}", root.display())]
#[non_exhaustive]
pub struct RootError {
    /// The root as given.
    pub root: PathBuf,
    /// Why: it does not exist, is not a directory, or could not be read.
    #[source]
    pub source: io::Error,
}

impl AllowedRoots {
    /// The roots, in order: relative paths are taken relative to the first. Fails on a root
    /// that does not exist or is not a directory, and on an empty list.
    pub fn new<I, P>(roots: I) -> Result<Self, RootError>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut out = Vec::new();
        for root in roots {
            let root = root.as_ref();
            let fail = |source| RootError { root: root.to_owned(), source };
            let canonical = root.canonicalize().map_err(fail)?;
            if !canonical.is_dir() {
                return Err(fail(io::Error::new(io::ErrorKind::NotADirectory, "not a directory")));
            }
            out.push(canonical);
        }
        if out.is_empty() {
            return Err(RootError {
                root: PathBuf::new(),
                source: io::Error::new(io::ErrorKind::InvalidInput, "no roots were given"),
            });
        }
        Ok(AllowedRoots { roots: out })
    }

    /// The roots, absolute and with their links resolved.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Check `text` as a [`SafePath`] argument would be checked, and resolve it.
    pub fn check(&self, text: &str) -> Result<SafePath, PathRefusal> {
        check_text(text)?;
        let given = Path::new(text);
        let joined = if given.is_absolute() { given.to_owned() } else { self.roots[0].join(given) };
        // No `..` is left (checked above), so dropping `.` is the whole lexical normalisation.
        let lexical: PathBuf = joined.components().filter(|c| !matches!(c, Component::CurDir)).collect();
        let resolved = resolve_existing(&lexical)
            .map_err(|e| PathRefusal::Unreadable { got: text.to_owned(), reason: e.to_string() })?;
        match self.roots.iter().position(|r| resolved.starts_with(r)) {
            Some(root) => {
                Ok(SafePath { path: resolved, given: text.to_owned(), root: self.roots[root].clone() })
            }
            None if self.roots.iter().any(|r| lexical.starts_with(r)) => {
                Err(PathRefusal::Escapes { got: text.to_owned() })
            }
            None => Err(PathRefusal::Outside { got: text.to_owned() }),
        }
    }
}

/// `path` with its longest existing prefix canonicalised and the rest appended as written.
fn resolve_existing(path: &Path) -> io::Result<PathBuf> {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut canonical) => {
                for part in rest.iter().rev() {
                    canonical.push(part);
                }
                return Ok(canonical);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                    return Err(e);
                };
                rest.push(name.to_owned());
                existing = parent;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The checks that need no file system: steps 1–3 of the module docs.
pub(crate) fn check_text(text: &str) -> Result<(), PathRefusal> {
    let got = || text.to_owned();
    if text.is_empty() {
        return Err(PathRefusal::Empty);
    }
    if text.contains('\0') {
        return Err(PathRefusal::Nul { got: got() });
    }
    if text.contains('\\') {
        return Err(PathRefusal::Backslash { got: got() });
    }
    if has_parent_segment(text) {
        return Err(PathRefusal::Parent { got: got(), encoded: false });
    }
    let mut form: Cow<'_, str> = Cow::Borrowed(text);
    for _ in 0..4 {
        let decoded = percent_decode_lossy(&form);
        if decoded == form {
            break;
        }
        if decoded.contains(['\0', '\\']) || has_parent_segment(&decoded) {
            return Err(PathRefusal::Parent { got: got(), encoded: true });
        }
        form = Cow::Owned(decoded.into_owned());
    }
    Ok(())
}

fn has_parent_segment(text: &str) -> bool {
    text.split('/').any(|segment| segment == "..")
}

/// Why a [`SafePath`] argument was refused. `Display` is what follows `argument '<name>' ` in
/// the call's error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathRefusal {
    /// The path was empty.
    #[error("must not be empty")]
    Empty,
    /// It contained a NUL byte.
    #[error("must not contain NUL bytes, got {}", PyStr(got))]
    Nul {
        /// The path as given.
        got: String,
    },
    /// It contained a backslash.
    #[error("must not contain backslashes (use '/' between segments), got {}", PyStr(got))]
    Backslash {
        /// The path as given.
        got: String,
    },
    /// It had a `..` segment, literally or once percent-decoded (or it decoded to a
    /// backslash or NUL).
    #[error(
        "must not contain '..' segments{}, got {}",
        if *encoded { " (not even percent-encoded)" } else { "" },
        PyStr(got)
    )]
    Parent {
        /// The path as given.
        got: String,
        /// Whether it was hidden by percent-encoding.
        encoded: bool,
    },
    /// An absolute path outside every allowed root.
    #[error(
        "must be inside the allowed roots (a relative path, or an absolute one within a root), got {}",
        PyStr(got)
    )]
    Outside {
        /// The path as given.
        got: String,
    },
    /// Inside a root as written, but a symbolic link leads out of every root.
    #[error("leads out of the allowed roots through a symbolic link, got {}", PyStr(got))]
    Escapes {
        /// The path as given.
        got: String,
    },
    /// The file system could not be read to check it (a permission error, say).
    #[error("could not be checked ({reason}), got {}", PyStr(got))]
    Unreadable {
        /// The path as given.
        got: String,
        /// The operating system's error.
        reason: String,
    },
    /// The call's context holds no [`AllowedRoots`] (a direct call with a bare context: a
    /// registry refuses such a tool when it is built).
    #[error("cannot be checked: this call's context was given no AllowedRoots")]
    NoRoots,
}

/// A path a model gave as a tool argument, checked to lie inside the host's
/// [`AllowedRoots`]: take it as a `#[tool]` parameter.
///
/// ```
/// use toolwire::paths::{AllowedRoots, SafePath};
/// use toolwire::{Tool, ToolError};
///
/// /// Read a text file from the workspace.
/// #[toolwire::tool(read_only)]
/// fn read_file(
///     /// The file, relative to the workspace.
///     path: SafePath,
/// ) -> Result<String, ToolError> {
///     std::fs::read_to_string(&path).map_err(|e| ToolError::failed("read_file", e))
/// }
///
/// let dir = std::env::temp_dir();
/// let registry = toolwire::tools![read_file; state = [AllowedRoots::new([&dir]).unwrap()]].unwrap();
/// let tool = registry.get("read_file").unwrap();
/// // The schema says what it accepts; the doc comment is its description.
/// assert!(tool.info().input_schema().as_str().contains(r#""path":{"description":"The file, relative to the workspace.","minLength":1,"pattern":"#));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafePath {
    path: PathBuf,
    given: String,
    root: PathBuf,
}

impl SafePath {
    /// The path to open: absolute, inside [`root`](Self::root), with the links of its
    /// existing part resolved.
    pub fn as_path(&self) -> &Path {
        &self.path
    }

    /// The path as the model wrote it (for messages).
    pub fn given(&self) -> &str {
        &self.given
    }

    /// The allowed root it lies in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path relative to its root (empty for the root itself).
    pub fn relative(&self) -> &Path {
        self.path.strip_prefix(&self.root).unwrap_or(Path::new(""))
    }

    /// The path to open, owned.
    pub fn into_path_buf(self) -> PathBuf {
        self.path
    }
}

impl AsRef<Path> for SafePath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl fmt::Display for SafePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.path.display().fmt(f)
    }
}

impl FromArgument for SafePath {
    type Raw = PathArgument;
    type Rejection = PathRefusal;

    fn from_argument(raw: PathArgument, ctx: &Context) -> Result<Self, PathRefusal> {
        ctx.state::<AllowedRoots>().ok_or(PathRefusal::NoRoots)?.check(&raw.0)
    }

    fn state_need() -> Option<StateNeed> {
        Some(StateNeed::of::<AllowedRoots>())
    }
}

/// The JSON Schema `pattern` a [`SafePath`] argument advertises: no empty path, backslash or
/// NUL, and no `..` segment, literal or percent-encoded (with `%2f` counted as a separator).
/// An ECMA-262 expression, as JSON Schema requires. Only the server's own check decides; the
/// pattern tells a client what that check will accept.
pub const SAFE_PATH_PATTERN: &str = r"^(?!(?:.*(?:/|%(?:25)*2[fF]))?(?:\.|%(?:25)*2[eE]){2}(?:(?:/|%(?:25)*2[fF]).*)?$)(?!.*%(?:25)*(?:5[cC]|00))[^\\\u0000]+$";

/// What a [`SafePath`] argument is read as before it is checked: a string. Not used directly.
#[doc(hidden)]
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct PathArgument(String);

impl JsonSchema for PathArgument {
    fn schema_name() -> Cow<'static, str> {
        "SafePath".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "minLength": 1,
            "pattern": SAFE_PATH_PATTERN,
            "description": "A path inside the server's allowed roots: relative to the first root, or absolute within one. Refused: '..' segments (also percent-encoded), backslashes, NUL bytes, and symbolic links that lead out of the roots."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lexical_checks_refuse_seed_003s_corpus() {
        let refused = |t: &str| check_text(t).unwrap_err().to_string();
        assert_eq!(refused("../etc/passwd"), "must not contain '..' segments, got '../etc/passwd'");
        assert_eq!(
            refused("%2e%2e/etc/passwd"),
            "must not contain '..' segments (not even percent-encoded), got '%2e%2e/etc/passwd'"
        );
        assert_eq!(
            refused("%252e%252e/etc/passwd"),
            "must not contain '..' segments (not even percent-encoded), got '%252e%252e/etc/passwd'"
        );
        assert_eq!(
            refused("..\\..\\etc\\passwd"),
            "must not contain backslashes (use '/' between segments), got '..\\\\..\\\\etc\\\\passwd'"
        );
        assert_eq!(refused("safe.txt\0.exe"), "must not contain NUL bytes, got 'safe.txt\\x00.exe'");
        assert_eq!(refused(""), "must not be empty");
        for bad in [
            "a/../../b",
            "..",
            ".%2e/x",
            "..%2fx",
            "%2E%2E",
            "a/%2e%2e",
            "x%5c..",
            "x%00",
            "%zz/%2e%2e",
            "%25%32%65%25%32%65",
        ] {
            assert!(check_text(bad).is_err(), "{bad} was let through");
        }
        for good in ["a/b.txt", "./a", "a..b", "...", ".hidden", "100%.txt", "a%20b", "/abs/ok"] {
            assert!(check_text(good).is_ok(), "{good} was refused");
        }
    }
}
