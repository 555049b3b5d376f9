//! Where the OAuth client keeps what it obtained: [`TokenStore`], with [`MemoryTokenStore`]
//! (the default: nothing outlives the process) and [`FileTokenStore`] (a JSON file written
//! with mode 0600, for a CLI that should not ask its user to sign in on every run).
//!
//! What is kept, per MCP endpoint, is one [`Credentials`]: the client registration (and the
//! issuer it belongs to: credentials are never presented to another authorization server)
//! and the tokens.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::sync::lock;

/// A client's registration with one authorization server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Registration {
    /// The authorization server's issuer: the registration is good there only.
    pub(crate) issuer: String,
    pub(crate) client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_secret: Option<String>,
    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub(crate) auth_method: String,
    /// Whether it came from dynamic registration (so it can be registered again).
    #[serde(default)]
    pub(crate) dynamic: bool,
}

/// An access token and what came with it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Tokens {
    pub(crate) access_token: String,
    /// `Bearer`, or `DPoP` for a token bound to the client's DPoP key.
    #[serde(default = "bearer_type")]
    pub(crate) token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) refresh_token: Option<String>,
    /// When it expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expires_at: Option<u64>,
    /// The scopes asked for.
    #[serde(default)]
    pub(crate) requested: Vec<String>,
    /// The scopes granted (the token response's `scope`; else those asked for).
    #[serde(default)]
    pub(crate) granted: Vec<String>,
    /// The issuer that issued it, its token endpoint, and the resource it is for.
    pub(crate) issuer: String,
    pub(crate) token_endpoint: String,
    pub(crate) resource: String,
}

fn bearer_type() -> String {
    "Bearer".to_owned()
}

/// What the OAuth client keeps for one MCP endpoint: its registration with the
/// authorization server and its tokens. Serialisable, for a [`TokenStore`] of your own; its
/// `Debug` shows no secret.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Credentials {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) registration: Option<Registration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tokens: Option<Tokens>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("issuer", &self.registration.as_ref().map(|r| &r.issuer))
            .field("client_id", &self.registration.as_ref().map(|r| &r.client_id))
            .field("token", &self.tokens.as_ref().map(|_| "an access token"))
            .field("refresh_token", &self.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some()))
            .finish()
    }
}

impl Credentials {
    /// The issuer of the registration, if there is one.
    pub fn issuer(&self) -> Option<&str> {
        self.registration.as_ref().map(|r| r.issuer.as_str())
    }

    /// Whether there is an access token.
    pub fn has_token(&self) -> bool {
        self.tokens.is_some()
    }
}

/// Where the OAuth client keeps [`Credentials`], by MCP endpoint URL.
pub trait TokenStore: Send + Sync + 'static {
    /// What is kept for `endpoint`.
    fn load(&self, endpoint: &str) -> io::Result<Option<Credentials>>;
    /// Keep `credentials` for `endpoint` (replacing what was there).
    fn save(&self, endpoint: &str, credentials: &Credentials) -> io::Result<()>;
}

/// Credentials kept in memory, gone with the process (the default).
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    entries: Mutex<BTreeMap<String, Credentials>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryTokenStore::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, endpoint: &str) -> io::Result<Option<Credentials>> {
        Ok(lock(&self.entries).get(endpoint).cloned())
    }

    fn save(&self, endpoint: &str, credentials: &Credentials) -> io::Result<()> {
        lock(&self.entries).insert(endpoint.to_owned(), credentials.clone());
        Ok(())
    }
}

/// Credentials kept in one JSON file (an object by endpoint URL), for CLIs.
///
/// The file holds live credentials: it is written whole to a temporary file created with mode
/// 0600 beside it and renamed over it, so it is never readable by others, even for a moment,
/// and never half-written; a missing parent directory is created with mode 0700. A file that
/// is not such a JSON object is an error, never silently replaced.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    write: Mutex<()>,
}

impl FileTokenStore {
    /// A store in the file at `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore { path: path.into(), write: Mutex::new(()) }
    }

    fn read_all(&self) -> io::Result<BTreeMap<String, Credentials>> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} is not a token store written by toolwire: {e}", self.path.display()),
                )
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(e),
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, endpoint: &str) -> io::Result<Option<Credentials>> {
        Ok(self.read_all()?.remove(endpoint))
    }

    fn save(&self, endpoint: &str, credentials: &Credentials) -> io::Result<()> {
        let _guard = lock(&self.write);
        let mut all = self.read_all()?;
        all.insert(endpoint.to_owned(), credentials.clone());
        let text = serde_json::to_vec_pretty(&all).map_err(io::Error::other)?;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.exists()
        {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir)?;
        }
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        {
            use std::io::Write;
            let mut file = options.open(&tmp)?;
            file.write_all(&text)?;
            file.sync_all()?;
        }
        std::fs::rename(&tmp, &self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Credentials {
        Credentials {
            registration: Some(Registration {
                issuer: "https://as.example.com".into(),
                client_id: "c1".into(),
                client_secret: Some("s3cret".into()),
                auth_method: "client_secret_basic".into(),
                dynamic: true,
            }),
            tokens: Some(Tokens {
                access_token: "at".into(),
                token_type: "Bearer".into(),
                refresh_token: Some("rt".into()),
                expires_at: Some(10),
                requested: vec!["a".into()],
                granted: vec!["a".into()],
                issuer: "https://as.example.com".into(),
                token_endpoint: "https://as.example.com/token".into(),
                resource: "https://mcp.example.com/mcp".into(),
            }),
        }
    }

    #[test]
    fn the_file_store_round_trips_with_mode_0600() {
        let dir = std::env::temp_dir().join(format!("toolwire-oauth-store-{}", std::process::id()));
        let path = dir.join("nested").join("tokens.json");
        let store = FileTokenStore::new(&path);
        assert_eq!(store.load("https://mcp.example.com/mcp").unwrap(), None);
        store.save("https://mcp.example.com/mcp", &sample()).unwrap();
        store.save("https://other.example.com/mcp", &Credentials::default()).unwrap();
        assert_eq!(store.load("https://mcp.example.com/mcp").unwrap(), Some(sample()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            let parent = std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode();
            assert_eq!(parent & 0o777, 0o700);
        }
        std::fs::write(&path, "not json").unwrap();
        let err = store.load("x").unwrap_err();
        assert!(
            err.to_string()
                .ends_with("is not a token store written by toolwire: expected ident at line 1 column 2"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        // Debug shows no secret.
        let shown = format!("{:?}", sample());
        assert!(!shown.contains("s3cret") && !shown.contains("\"at\""), "{shown}");
    }
}
