//! Declaring the hub's servers: in code, in `MCP_SERVERS`, in a `.mcp.json`-style file, with
//! the precedence code > environment > file > default (seed 002).
//!
//! A layer that declares a name replaces the whole declaration of a lower layer (it is not
//! merged field by field); a field nobody set takes its default. Within one layer a name
//! may appear once: a second declaration is an error naming both places, also inside one
//! JSON document, whose duplicate keys serde would otherwise collapse silently.
//!
//! The entries are the ones [`parse_servers`](crate::client::parse_servers) reads
//! (`command`/`args`/`env`/`cwd` or `url`/`headers`), plus the declaration's bounds:
//! `allow` (tool names), `timeout` and `startTimeout` (seconds), `maxTools`, `maxResultBytes` (snake-case
//! spellings too), `prefix` and `connect` (`lazy`, `startup`, `disabled`). `MCP_SERVERS` may also be
//! a JSON array of entries that carry their `name`, as seed 002 writes it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::client::config::{parse_entry, server_members};
use crate::client::{CONFIG_FILES, MCP_SERVERS_ENV, ServerTransport};

/// The environment variable that sets the default [`ConnectMode`].
pub const MCP_CONNECT_MODE_ENV: &str = "MCP_CONNECT_MODE";

/// When the hub connects to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ConnectMode {
    /// On first use: a call of one of its tools, or a listing across servers (seed 004's
    /// "connections are lazy"). The default.
    #[default]
    Lazy,
    /// When the hub starts ([`Hub::start`](super::Hub::start) waits for it).
    Startup,
    /// Declared but never connected; its tools read as unavailable.
    Disabled,
}

impl ConnectMode {
    /// `lazy`, `startup` or `disabled`.
    pub fn parse(text: &str) -> Option<ConnectMode> {
        match text.trim() {
            "lazy" => Some(ConnectMode::Lazy),
            "startup" => Some(ConnectMode::Startup),
            "disabled" => Some(ConnectMode::Disabled),
            _ => None,
        }
    }
}

/// Where a declaration was made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// In code: the `n`th [`ServerDeclarations::declare`] (from 1).
    Code(usize),
    /// In `MCP_SERVERS`: the `n`th entry (from 1).
    Environment(usize),
    /// In a file: its path and the `n`th entry (from 1).
    File(PathBuf, usize),
    /// Not placed in a layer yet: a [`Declaration::new`] not passed to
    /// [`ServerDeclarations::declare`].
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Code(n) => write!(f, "code (declaration {n})"),
            Origin::Environment(n) => write!(f, "{MCP_SERVERS_ENV} (entry {n})"),
            Origin::File(path, n) => write!(f, "{} (entry {n})", path.display()),
            Origin::Default => f.write_str("no layer"),
        }
    }
}

/// One server: how to reach it, its bounds, when to connect, and where it was declared.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Declaration {
    /// The server's name (the prefix of its tools' names, `<name>__tool`).
    pub name: String,
    /// How to reach it.
    pub transport: ServerTransport,
    /// The only tools considered, by the server's names; `None` for all.
    pub allow: Option<Vec<String>>,
    /// The bound of each tool call (seed 002's `timeout_seconds`); `None` for the
    /// client's request timeout (30 s unless [`HubOptions::client`](super::HubOptions::client)
    /// says otherwise).
    pub timeout: Option<Duration>,
    /// The bound of each request of a start (`initialize`, the tool list) and of every
    /// request that is not a call; `None` for the client's request timeout. Kept apart
    /// from `timeout`: a Python server may take seconds to start on a busy machine.
    pub start_timeout: Option<Duration>,
    /// At most this many tools adopted; `None` for no cap.
    pub max_tools: Option<usize>,
    /// Results cut at this many bytes; `None` for
    /// [`DEFAULT_ADOPTED_RESULT_BYTES`](crate::client::DEFAULT_ADOPTED_RESULT_BYTES).
    pub max_result_bytes: Option<usize>,
    /// When to connect; `None` for the hub's default (`MCP_CONNECT_MODE`, else lazy).
    pub connect: Option<ConnectMode>,
    /// What goes before its tools' names; `None` for `<name>__`. An empty prefix makes
    /// collisions between servers possible (see [`Collisions`](super::Collisions)), and a
    /// lazy server with one is started by any name no connected server serves.
    pub prefix: Option<String>,
    /// Where it was declared.
    pub origin: Origin,
}

impl Declaration {
    /// A server named `name` reached through `transport`, every bound at its default.
    pub fn new(name: impl Into<String>, transport: impl Into<ServerTransport>) -> Self {
        Declaration {
            name: name.into(),
            transport: transport.into(),
            allow: None,
            timeout: None,
            start_timeout: None,
            max_tools: None,
            max_result_bytes: None,
            connect: None,
            prefix: None,
            origin: Origin::Default,
        }
    }

    /// Consider only these tools (the server's names).
    pub fn allow<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Bound each tool call.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Bound each request of a start, and every request that is not a call.
    pub fn start_timeout(mut self, timeout: Duration) -> Self {
        self.start_timeout = Some(timeout);
        self
    }

    /// Adopt at most `n` tools.
    pub fn max_tools(mut self, n: usize) -> Self {
        self.max_tools = Some(n);
        self
    }

    /// Cut results at `n` bytes.
    pub fn max_result_bytes(mut self, n: usize) -> Self {
        self.max_result_bytes = Some(n);
        self
    }

    /// Connect lazily, at start-up, or never.
    pub fn connect(mut self, mode: ConnectMode) -> Self {
        self.connect = Some(mode);
        self
    }

    /// Put `prefix` before its tools' names instead of `<name>__` (`""` for none).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }
}

/// Why the declarations cannot be used. Each message names the places involved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeclareError {
    /// One layer declares a name twice.
    #[error("server '{name}' is declared twice: in {first} and in {second}")]
    Duplicate {
        /// The name.
        name: String,
        /// The first declaration.
        first: Origin,
        /// The second.
        second: Origin,
    },
    /// A name nobody declared was looked up.
    #[error("no server '{name}' is declared; the declared servers are: {declared}")]
    Undeclared {
        /// The name looked up.
        name: String,
        /// The declared names, comma-separated, or `none`.
        declared: String,
    },
    /// A document or an entry cannot be read.
    #[error("{place}: {problem}")]
    Invalid {
        /// `MCP_SERVERS`, a file, or an entry in one.
        place: String,
        /// Why.
        problem: String,
    },
}

/// The declarations of every layer, resolved by precedence with [`resolve`](Self::resolve).
#[derive(Debug, Clone, Default)]
pub struct ServerDeclarations {
    code: Vec<Declaration>,
    env: Option<String>,
    env_mode: Option<String>,
    files: Vec<PathBuf>,
}

impl ServerDeclarations {
    /// No declarations, and neither the environment nor any file read.
    pub fn new() -> Self {
        ServerDeclarations::default()
    }

    /// The layers a host usually has: `MCP_SERVERS` and `MCP_CONNECT_MODE` from the
    /// environment, and the first of [`CONFIG_FILES`] in `project_root`. Add code
    /// declarations with [`declare`](Self::declare).
    pub fn from_environment(project_root: &Path) -> Self {
        let mut d = ServerDeclarations::new();
        d.env = std::env::var(MCP_SERVERS_ENV).ok();
        d.env_mode = std::env::var(MCP_CONNECT_MODE_ENV).ok();
        if let Some(file) = CONFIG_FILES.iter().map(|f| project_root.join(f)).find(|p| p.is_file()) {
            d.files.push(file);
        }
        d
    }

    /// Declare a server in code, the highest layer.
    pub fn declare(mut self, declaration: Declaration) -> Self {
        let n = self.code.len() + 1;
        self.code.push(Declaration { origin: Origin::Code(n), ..declaration });
        self
    }

    /// Use `json` as the environment layer (what `MCP_SERVERS` would hold).
    pub fn environment(mut self, json: impl Into<String>) -> Self {
        self.env = Some(json.into());
        self
    }

    /// Use `mode` as `MCP_CONNECT_MODE` would say it.
    pub fn connect_mode(mut self, mode: impl Into<String>) -> Self {
        self.env_mode = Some(mode.into());
        self
    }

    /// Read `path` as the file layer (later files are lower than earlier ones).
    pub fn file(mut self, path: impl Into<PathBuf>) -> Self {
        self.files.push(path.into());
        self
    }

    /// Every server, highest layer first for each name, in the order code, environment,
    /// file; each with its [`ConnectMode`] settled.
    pub fn resolve(&self) -> Result<Vec<Declaration>, DeclareError> {
        let default_mode = match &self.env_mode {
            None => ConnectMode::Lazy,
            Some(text) => ConnectMode::parse(text).ok_or_else(|| DeclareError::Invalid {
                place: MCP_CONNECT_MODE_ENV.into(),
                problem: format!("'{text}' is not lazy, startup or disabled"),
            })?,
        };
        let mut layers = vec![self.code.clone()];
        if let Some(text) = &self.env {
            layers.push(parse_document(text, &|n| Origin::Environment(n), MCP_SERVERS_ENV)?);
        }
        for path in &self.files {
            let text = std::fs::read_to_string(path).map_err(|e| DeclareError::Invalid {
                place: path.display().to_string(),
                problem: format!("cannot be read: {e}"),
            })?;
            let shown = path.display().to_string();
            layers.push(parse_document(&text, &|n| Origin::File(path.clone(), n), &shown)?);
        }
        let mut out: Vec<Declaration> = Vec::new();
        for layer in layers {
            let mut seen: Vec<&Declaration> = Vec::new();
            for d in &layer {
                if let Some(first) = seen.iter().find(|s| s.name == d.name) {
                    return Err(DeclareError::Duplicate {
                        name: d.name.clone(),
                        first: first.origin.clone(),
                        second: d.origin.clone(),
                    });
                }
                seen.push(d);
            }
            for d in layer {
                if !out.iter().any(|o| o.name == d.name) {
                    out.push(d);
                }
            }
        }
        for d in &mut out {
            d.connect.get_or_insert(default_mode);
        }
        Ok(out)
    }
}

/// The error for a lookup of `name` among `names`, listing them sorted.
pub(crate) fn undeclared<'a>(names: impl Iterator<Item = &'a String>, name: &str) -> DeclareError {
    let mut names: Vec<&str> = names.map(String::as_str).collect();
    names.sort_unstable();
    let declared = if names.is_empty() { "none".to_owned() } else { names.join(", ") };
    DeclareError::Undeclared { name: name.to_owned(), declared }
}

fn parse_document(
    text: &str,
    origin: &dyn Fn(usize) -> Origin,
    shown: &str,
) -> Result<Vec<Declaration>, DeclareError> {
    let invalid = |problem: String| DeclareError::Invalid { place: shown.to_owned(), problem };
    let entries: Vec<(String, Value)> = match text.trim_start().starts_with('[') {
        true => {
            let items: Vec<Value> =
                serde_json::from_str(text).map_err(|e| invalid(format!("is not JSON: {e}")))?;
            let mut out = Vec::new();
            for (i, item) in items.into_iter().enumerate() {
                let name = item.get("name").and_then(Value::as_str).map(str::to_owned);
                let name = name.ok_or_else(|| invalid(format!("entry {} has no string `name`", i + 1)))?;
                out.push((name, item));
            }
            out
        }
        false => {
            let not_object =
                || invalid("must be an object of servers (optionally under \"mcpServers\")".into());
            let members = server_members(text).map_err(|e| match e {
                Some(e) => invalid(format!("is not JSON: {e}")),
                None => not_object(),
            })?;
            members
                .into_iter()
                .map(|(k, v)| Ok((k, serde_json::from_str(v.get()).map_err(|e| invalid(e.to_string()))?)))
                .collect::<Result<_, DeclareError>>()?
        }
    };
    entries
        .into_iter()
        .enumerate()
        .map(|(i, (name, entry))| {
            let origin = origin(i + 1);
            let place = || format!("server '{name}' in {origin}");
            let entry = entry.as_object().ok_or_else(|| DeclareError::Invalid {
                place: place(),
                problem: "the entry is not an object".into(),
            })?;
            declaration(&name, entry)
                .map(|d| Declaration { origin: origin.clone(), ..d })
                .map_err(|problem| DeclareError::Invalid { place: place(), problem })
        })
        .collect()
}

fn field<'a>(e: &'a Map<String, Value>, keys: &[&'static str]) -> Option<(&'static str, &'a Value)> {
    keys.iter().find_map(|k| e.get(*k).map(|v| (*k, v)))
}

fn declaration(name: &str, e: &Map<String, Value>) -> Result<Declaration, String> {
    let field = |keys: &[&'static str]| field(e, keys);
    let mut d = Declaration::new(name, parse_entry(e)?);
    if let Some((key, allow)) = field(&["allow"]) {
        let names = allow.as_array().ok_or(format!("`{key}` must be an array of tool names"))?;
        let names: Option<Vec<String>> = names.iter().map(|n| n.as_str().map(str::to_owned)).collect();
        d.allow = Some(names.ok_or(format!("`{key}` must be an array of tool names"))?);
    }
    let seconds = |keys: &[&'static str]| -> Result<Option<Duration>, String> {
        match field(keys) {
            None => Ok(None),
            Some((key, t)) => {
                let secs = t.as_f64().filter(|s| *s > 0.0 && s.is_finite());
                let secs = secs.ok_or(format!("`{key}` must be a positive number of seconds"))?;
                Ok(Some(Duration::from_secs_f64(secs)))
            }
        }
    };
    d.timeout = seconds(&["timeout", "timeout_seconds", "timeoutSeconds"])?;
    d.start_timeout = seconds(&["startTimeout", "start_timeout"])?;
    let count = |keys: &[&'static str]| -> Result<Option<usize>, String> {
        match field(keys) {
            None => Ok(None),
            Some((key, v)) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or(format!("`{key}` must be a whole number")),
        }
    };
    d.max_tools = count(&["maxTools", "max_tools"])?;
    d.max_result_bytes = count(&["maxResultBytes", "max_result_bytes"])?;
    if let Some((key, prefix)) = field(&["prefix"]) {
        d.prefix = Some(prefix.as_str().ok_or(format!("`{key}` must be a string"))?.to_owned());
    }
    if let Some((key, mode)) = field(&["connect", "connectMode"]) {
        let mode = mode.as_str().and_then(ConnectMode::parse);
        d.connect = Some(mode.ok_or(format!("`{key}` must be \"lazy\", \"startup\" or \"disabled\""))?);
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::StdioServer;

    fn names(d: &[Declaration]) -> Vec<(&str, String)> {
        d.iter().map(|d| (d.name.as_str(), d.origin.to_string())).collect()
    }

    #[test]
    fn code_beats_environment_beats_file_beats_default() {
        let dir = std::env::temp_dir().join(format!("toolwire-hub-decl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(".mcp.json");
        std::fs::write(
            &file,
            r#"{"mcpServers": {"a": {"command": "file-a"}, "b": {"command": "file-b", "timeout": 2},
                "c": {"url": "http://127.0.0.1:9/mcp", "connect": "startup"}}}"#,
        )
        .unwrap();
        let resolved = ServerDeclarations::new()
            .declare(Declaration::new("a", StdioServer::new("code-a")).max_tools(3))
            .environment(r#"[{"name": "b", "command": "env-b", "allow": ["x"], "maxResultBytes": 10}]"#)
            .file(&file)
            .resolve()
            .unwrap();
        assert_eq!(
            names(&resolved),
            [
                ("a", "code (declaration 1)".to_owned()),
                ("b", "MCP_SERVERS (entry 1)".to_owned()),
                ("c", format!("{} (entry 3)", file.display())),
            ]
        );
        // A higher layer replaces the whole declaration: b's file timeout is gone.
        assert_eq!(resolved[0].max_tools, Some(3));
        assert_eq!((resolved[1].timeout, resolved[1].allow.clone()), (None, Some(vec!["x".to_owned()])));
        assert_eq!(resolved[1].max_result_bytes, Some(10));
        assert_eq!(
            resolved.iter().map(|d| d.connect.unwrap()).collect::<Vec<_>>(),
            [ConnectMode::Lazy, ConnectMode::Lazy, ConnectMode::Startup]
        );
        // MCP_CONNECT_MODE sets the default; a declaration's own mode wins.
        let resolved = ServerDeclarations::new().file(&file).connect_mode("disabled").resolve().unwrap();
        assert_eq!(
            resolved.iter().map(|d| d.connect.unwrap()).collect::<Vec<_>>(),
            [ConnectMode::Disabled, ConnectMode::Disabled, ConnectMode::Startup]
        );
        assert_eq!(
            ServerDeclarations::new().connect_mode("eager").resolve().unwrap_err().to_string(),
            "MCP_CONNECT_MODE: 'eager' is not lazy, startup or disabled"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_name_declared_twice_in_one_layer_names_both_places() {
        let err = ServerDeclarations::new()
            .declare(Declaration::new("t", StdioServer::new("x")))
            .declare(Declaration::new("u", StdioServer::new("x")))
            .declare(Declaration::new("t", StdioServer::new("y")))
            .resolve()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "server 't' is declared twice: in code (declaration 1) and in code (declaration 3)"
        );
        // Inside one JSON object, where serde would keep only the last.
        let err = ServerDeclarations::new()
            .environment(
                r#"{"mcpServers": {"t": {"command": "x"}, "u": {"command": "x"}, "t": {"command": "y"}}}"#,
            )
            .resolve()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "server 't' is declared twice: in MCP_SERVERS (entry 1) and in MCP_SERVERS (entry 3)"
        );
        let err = ServerDeclarations::new()
            .environment(r#"[{"name": "t", "command": "x"}, {"name": "t", "url": "http://h/mcp"}]"#)
            .resolve()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "server 't' is declared twice: in MCP_SERVERS (entry 1) and in MCP_SERVERS (entry 2)"
        );
    }

    #[test]
    fn bad_documents_and_entries_say_where_and_why() {
        let env = |text: &str| ServerDeclarations::new().environment(text).resolve().unwrap_err().to_string();
        assert_eq!(
            env("{\"a\": 1"),
            "MCP_SERVERS: is not JSON: EOF while parsing an object at line 1 column 7"
        );
        assert_eq!(env("3"), "MCP_SERVERS: must be an object of servers (optionally under \"mcpServers\")");
        assert_eq!(env(r#"[{"command": "x"}]"#), "MCP_SERVERS: entry 1 has no string `name`");
        assert_eq!(
            env(r#"{"a": {"command": "x", "timeout": -1}}"#),
            "server 'a' in MCP_SERVERS (entry 1): `timeout` must be a positive number of seconds"
        );
        assert_eq!(
            env(r#"{"a": {"command": "x", "connect": "now"}}"#),
            "server 'a' in MCP_SERVERS (entry 1): `connect` must be \"lazy\", \"startup\" or \"disabled\""
        );
        assert_eq!(
            env(r#"{"a": {"args": []}}"#),
            "server 'a' in MCP_SERVERS (entry 1): neither `command` nor `url` is given"
        );
        assert_eq!(
            env(r#"{"a": {"command": "x", "max_tools": 1.5}}"#),
            "server 'a' in MCP_SERVERS (entry 1): `max_tools` must be a whole number"
        );
    }

    #[test]
    fn an_undeclared_name_lists_the_declared_ones() {
        let names = ["time".to_owned(), "docs".to_owned()];
        assert_eq!(
            undeclared(names.iter(), "handbook").to_string(),
            "no server 'handbook' is declared; the declared servers are: docs, time"
        );
        assert_eq!(
            undeclared([].iter(), "handbook").to_string(),
            "no server 'handbook' is declared; the declared servers are: none"
        );
    }
}
