//! The configuration documents an agent CLI reads, and the file the Claude Code one lives in.
//!
//! - Claude Code's `--mcp-config` document (also the shape of `.mcp.json` and
//!   `~/.claude.json`): `{"mcpServers": {name: {"type": "http", "url", "headers"}}}` or
//!   `{"type": "stdio", "command", "args", "env"}`.
//! - Codex's `config.toml` table `[mcp_servers.<name>]`. Codex has no header field for a
//!   bearer token, only `bearer_token_env_var`, naming a variable it reads at connect time;
//!   so the token travels in the child's environment, never in argv (which `ps` shows to
//!   everyone on the host).
//!
//! The file is a live credential: it is written mode 0600 inside a 0700 directory the spec
//! created, and removed with it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// How an agent CLI reaches the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// Streamable HTTP at `url`, with these headers (the `Authorization` one, when auth is on).
    Http { url: String, token: Option<String> },
    /// The CLI spawns `command args...` with `env`.
    Stdio { command: String, args: Vec<String>, env: BTreeMap<String, String> },
}

/// The `mcpServers` entry for one server.
pub(crate) fn claude_entry(endpoint: &Endpoint) -> Value {
    match endpoint {
        Endpoint::Http { url, token } => {
            let mut entry = json!({"type": "http", "url": url});
            if let Some(token) = token {
                entry["headers"] = json!({"Authorization": format!("Bearer {token}")});
            }
            entry
        }
        Endpoint::Stdio { command, args, env } => {
            json!({"type": "stdio", "command": command, "args": args, "env": env})
        }
    }
}

/// The whole `--mcp-config` document, pretty-printed for the humans who open it.
pub(crate) fn claude_document(name: &str, endpoint: &Endpoint) -> String {
    let mut servers = Map::new();
    servers.insert(name.to_owned(), claude_entry(endpoint));
    let doc = json!({"mcpServers": servers});
    let mut text = serde_json::to_string_pretty(&doc).expect("a JSON value always serialises");
    text.push('\n');
    text
}

/// The environment variable that carries the bearer token to Codex: `TOOLWIRE_<NAME>_TOKEN`,
/// the server name upper-cased with `-` as `_`.
pub(crate) fn codex_token_var(name: &str) -> String {
    let upper: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    format!("TOOLWIRE_{upper}_TOKEN")
}

/// The `[mcp_servers.<name>]` table, and the environment the Codex process needs.
pub(crate) fn codex_table(name: &str, endpoint: &Endpoint) -> (String, BTreeMap<String, String>) {
    let mut toml = format!("[mcp_servers.{name}]\n");
    let mut env = BTreeMap::new();
    match endpoint {
        Endpoint::Http { url, token } => {
            let _ = writeln!(toml, "url = {}", toml_string(url));
            if let Some(token) = token {
                let var = codex_token_var(name);
                let _ = writeln!(toml, "bearer_token_env_var = {}", toml_string(&var));
                env.insert(var, token.clone());
            }
        }
        Endpoint::Stdio { command, args, env: child_env } => {
            let _ = writeln!(toml, "command = {}", toml_string(command));
            let items: Vec<String> = args.iter().map(|a| toml_string(a)).collect();
            let _ = writeln!(toml, "args = [{}]", items.join(", "));
            if !child_env.is_empty() {
                let pairs: Vec<String> = child_env
                    .iter()
                    .map(|(k, v)| format!("{} = {}", toml_string(k), toml_string(v)))
                    .collect();
                let _ = writeln!(toml, "env = {{ {} }}", pairs.join(", "));
            }
        }
    }
    (toml, env)
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Where the config file lives, and whether the spec owns its directory.
#[derive(Debug)]
pub(crate) struct ConfigFile {
    pub(crate) path: PathBuf,
    /// The directory the spec created (and will remove); `None` for a caller's path.
    pub(crate) owned_dir: Option<PathBuf>,
}

impl ConfigFile {
    /// A fresh 0700 directory under the system temp dir, holding `mcp-config.json`.
    pub(crate) fn in_private_dir(name: &str) -> io::Result<ConfigFile> {
        let base = std::env::temp_dir();
        // A name nobody can predict, so nobody can plant the directory first.
        let dir = base.join(format!("toolwire-{name}-{}", crate::transport::http::random_id(9)));
        create_private_dir(&dir)?;
        Ok(ConfigFile { path: dir.join("mcp-config.json"), owned_dir: Some(dir) })
    }

    /// The caller's own path; its directory is theirs and is left alone.
    pub(crate) fn at(path: PathBuf) -> ConfigFile {
        ConfigFile { path, owned_dir: None }
    }

    /// Write (or rewrite) the document, mode 0600. The directory is re-created if `stop()`
    /// removed it.
    pub(crate) fn write(&self, contents: &str) -> io::Result<()> {
        if let Some(dir) = &self.owned_dir
            && !dir.exists()
        {
            create_private_dir(dir)?;
        }
        write_private_file(&self.path, contents)
    }

    /// Remove the file and the directory, if the spec created them; a caller's path is
    /// theirs to keep. Idempotent.
    pub(crate) fn remove(&self) -> io::Result<()> {
        if self.owned_dir.is_none() {
            return Ok(());
        }
        match fs::remove_file(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        if let Some(dir) = &self.owned_dir {
            match fs::remove_dir(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir(dir)
}

#[cfg(unix)]
fn write_private_file(path: &Path, contents: &str) -> io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut file = fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)?;
    // `mode` applies only when the file is created; a caller's existing file is tightened too.
    file.set_permissions(fs::Permissions::from_mode(0o600))?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

#[cfg(not(unix))]
fn write_private_file(path: &Path, contents: &str) -> io::Result<()> {
    fs::write(path, contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_http_entry_carries_the_bearer_header() {
        let e = Endpoint::Http { url: "http://127.0.0.1:9/mcp".into(), token: Some("T".into()) };
        let doc: Value = serde_json::from_str(&claude_document("engine", &e)).unwrap();
        assert_eq!(
            doc,
            json!({"mcpServers": {"engine": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer T"}}}})
        );
    }

    #[test]
    fn codex_http_table_names_an_env_var_never_the_token() {
        let e = Endpoint::Http { url: "http://127.0.0.1:9/mcp".into(), token: Some("secret".into()) };
        let (toml, env) = codex_table("my-engine", &e);
        assert_eq!(
            toml,
            "[mcp_servers.my-engine]\nurl = \"http://127.0.0.1:9/mcp\"\nbearer_token_env_var = \"TOOLWIRE_MY_ENGINE_TOKEN\"\n"
        );
        assert!(!toml.contains("secret"));
        assert_eq!(env.get("TOOLWIRE_MY_ENGINE_TOKEN").map(String::as_str), Some("secret"));
    }

    #[test]
    fn codex_stdio_table_and_toml_escaping() {
        let e = Endpoint::Stdio {
            command: "/bin/my \"server\"".into(),
            args: vec!["--x".into(), "a\\b".into()],
            env: BTreeMap::from([("K".to_owned(), "v".to_owned())]),
        };
        let (toml, env) = codex_table("s", &e);
        assert_eq!(
            toml,
            "[mcp_servers.s]\ncommand = \"/bin/my \\\"server\\\"\"\nargs = [\"--x\", \"a\\\\b\"]\nenv = { \"K\" = \"v\" }\n"
        );
        assert!(env.is_empty());
    }
}
