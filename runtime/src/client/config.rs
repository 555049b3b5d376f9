//! Server declarations from configuration: the `MCP_SERVERS` environment JSON, or the first
//! of `mcp_servers.json`, `.mcp.json`, `mcp.json` in a project directory, with or without the
//! `{"mcpServers": {...}}` wrapper; and [`connect_all`], which degrades gracefully.
//!
//! ```json
//! {"mcpServers": {
//!   "docs":   {"command": "uvx", "args": ["mcp-server-fetch"], "env": {"TZ": "UTC"}},
//!   "search": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer …"}}
//! }}
//! ```
//!
//! No `url` means stdio; a `url` means HTTP. A `type` member (`stdio`, `http`,
//! `streamable-http`) may say the same, and must agree. A bad entry is skipped and reported
//! in [`ConfigLoad::problems`]; the others load.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::connection::Client;
use super::error::ClientError;
use super::options::{ClientOptions, HttpServer, ServerTransport, StdioServer};

/// The environment variable read first.
pub const MCP_SERVERS_ENV: &str = "MCP_SERVERS";
/// The files looked for in a project directory, in order; the first that exists is read.
pub const CONFIG_FILES: [&str; 3] = ["mcp_servers.json", ".mcp.json", "mcp.json"];

/// One declared server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// Its name (the key it was declared under).
    pub name: String,
    /// How to reach it.
    pub transport: ServerTransport,
}

/// Why a configuration document could not be read at all.
///
/// The OS's and serde's errors are kept as the [`source`](std::error::Error::source);
/// equality compares them by their message.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read MCP server config {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The document is not JSON.
    #[error("MCP server config from {source_name} is not JSON: {source}")]
    NotJson {
        /// `MCP_SERVERS` or the file's path.
        source_name: String,
        /// serde's reason.
        #[source]
        source: Arc<serde_json::Error>,
    },
    /// The document is not an object of servers.
    #[error(
        "MCP server config from {source_name} must be an object of servers (optionally under \"mcpServers\")"
    )]
    NotAnObject {
        /// `MCP_SERVERS` or the file's path.
        source_name: String,
    },
}

impl PartialEq for ConfigError {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ConfigError::Io { path, source }, ConfigError::Io { path: path2, source: source2 }) => {
                path == path2 && source.to_string() == source2.to_string()
            }
            (
                ConfigError::NotJson { source_name, source },
                ConfigError::NotJson { source_name: name2, source: source2 },
            ) => source_name == name2 && source.to_string() == source2.to_string(),
            (ConfigError::NotAnObject { source_name }, ConfigError::NotAnObject { source_name: name2 }) => {
                source_name == name2
            }
            _ => false,
        }
    }
}

impl Eq for ConfigError {}

/// What was read: the servers, where from, and the entries that were skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ConfigLoad {
    /// `MCP_SERVERS` or the file read; `None` when there was no configuration.
    pub source: Option<String>,
    /// The usable servers, sorted by name.
    pub servers: Vec<ServerConfig>,
    /// `(name, reason)` for each entry that was skipped.
    pub problems: Vec<(String, String)>,
}

/// Parse a configuration document; `source_name` names it in messages.
///
/// A name may be declared only once: a name declared twice in one document is ambiguous
/// (which one was meant cannot be known), so neither declaration is used and the name is
/// reported in [`ConfigLoad::problems`], `declared twice in <source>`. JSON readers that keep
/// the last member would have connected to one of them silently.
pub fn parse_servers(text: &str, source_name: &str) -> Result<ConfigLoad, ConfigError> {
    let members = server_members(text).map_err(|e| match e {
        Some(e) => ConfigError::NotJson { source_name: source_name.to_owned(), source: Arc::new(e) },
        None => ConfigError::NotAnObject { source_name: source_name.to_owned() },
    })?;
    let mut load = ConfigLoad { source: Some(source_name.to_owned()), ..ConfigLoad::default() };
    let twice = |name: &str| members.iter().filter(|(n, _)| n == name).count() > 1;
    for (name, entry) in &members {
        if twice(name) {
            if !load.problems.iter().any(|(n, _)| n == name) {
                let reason = format!("declared twice in {source_name}; neither declaration is used");
                tracing::warn!(server = %name, "skipping MCP server config entry: {reason}");
                load.problems.push((name.clone(), reason));
            }
            continue;
        }
        let entry: Result<Value, _> = serde_json::from_str(entry.get());
        let parsed = entry.map_err(|e| e.to_string()).and_then(|e| {
            e.as_object().map(parse_entry).unwrap_or_else(|| Err("the entry is not an object".into()))
        });
        match parsed {
            Ok(transport) => load.servers.push(ServerConfig { name: name.clone(), transport }),
            Err(reason) => {
                tracing::warn!(server = %name, "skipping MCP server config entry: {reason}");
                load.problems.push((name.clone(), reason));
            }
        }
    }
    load.servers.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(load)
}

/// A JSON object's members in document order, duplicates kept (a `Value` keeps the last).
pub(crate) struct Members(pub(crate) Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                    out.push((k, v));
                }
                Ok(Members(out))
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// The servers of a configuration document, an object of them, or one under `mcpServers`,
/// in document order with duplicates kept. `Err(Some)`: not JSON; `Err(None)`: JSON, but
/// not an object of servers.
pub(crate) fn server_members(text: &str) -> Result<Vec<(String, Box<RawValue>)>, Option<serde_json::Error>> {
    let top: Members = serde_json::from_str(text).map_err(|e| (!e.is_data()).then_some(e))?;
    match top.0.iter().find(|(k, _)| k == "mcpServers") {
        Some((_, inner)) => Ok(serde_json::from_str::<Members>(inner.get()).map_err(|_| None)?.0),
        None => Ok(top.0),
    }
}

fn strings(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(|| format!("`{what}` must hold strings")))
            .collect(),
        Some(_) => Err(format!("`{what}` must be an array of strings")),
    }
}

fn string_map(v: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|s| (k.clone(), s.to_owned()))
                    .ok_or_else(|| format!("`{what}.{k}` must be a string"))
            })
            .collect(),
        Some(_) => Err(format!("`{what}` must be an object of strings")),
    }
}

pub(crate) fn parse_entry(e: &Map<String, Value>) -> Result<ServerTransport, String> {
    let kind = e.get("type").map(|t| t.as_str().ok_or("`type` must be a string")).transpose()?;
    let url = e.get("url").map(|u| u.as_str().ok_or("`url` must be a string")).transpose()?;
    match (kind, url) {
        (Some("stdio"), Some(_)) => Err("`type` is \"stdio\" but a `url` is given".into()),
        (Some("http" | "streamable-http" | "streamableHttp" | "sse"), None) => {
            Err("`type` is HTTP but no `url` is given".into())
        }
        (Some(other), _)
            if !matches!(other, "stdio" | "http" | "streamable-http" | "streamableHttp" | "sse") =>
        {
            Err(format!("`type` \"{other}\" is not stdio, http or sse"))
        }
        (_, Some(url)) => {
            let mut s = HttpServer::new(url);
            // Claude Code's and the Python SDK's name for the 2024-11-05 HTTP+SSE transport.
            if kind == Some("sse") {
                s = s.legacy_sse();
            }
            for (k, v) in string_map(e.get("headers"), "headers")? {
                s = s.header(k, v);
            }
            Ok(ServerTransport::Http(s))
        }
        (_, None) => {
            let command =
                e.get("command").and_then(Value::as_str).ok_or("neither `command` nor `url` is given")?;
            let mut s = StdioServer::new(command).args(strings(e.get("args"), "args")?);
            for (k, v) in string_map(e.get("env"), "env")? {
                s = s.env(k, v);
            }
            if let Some(cwd) = e.get("cwd") {
                s = s.cwd(cwd.as_str().ok_or("`cwd` must be a string")?);
            }
            Ok(ServerTransport::Stdio(s))
        }
    }
}

/// Read the configuration: `MCP_SERVERS` when set, else the first of [`CONFIG_FILES`] in
/// `project_root`. No configuration at all is an empty load, not an error.
pub fn load_servers(project_root: &Path) -> Result<ConfigLoad, ConfigError> {
    if let Ok(text) = std::env::var(MCP_SERVERS_ENV) {
        return parse_servers(&text, MCP_SERVERS_ENV);
    }
    for file in CONFIG_FILES {
        let path = project_root.join(file);
        if path.is_file() {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| ConfigError::Io { path: path.clone(), source: Arc::new(e) })?;
            return parse_servers(&text, &path.display().to_string());
        }
    }
    Ok(ConfigLoad::default())
}

impl Client {
    /// Connect to the server `name` declared in the config file at `path` (an `.mcp.json`,
    /// or the file a [`serve_registry()`](crate::serve_registry()) spec writes), or to its only
    /// server when `name` is `None`. The client is named after the entry.
    ///
    /// Fails with [`ClientError::Config`] when the file cannot be read or parsed, when it
    /// declares no server of that name (the message lists the ones it does), or when that
    /// entry is unusable (the message says why).
    pub async fn connect_config_file(path: &Path, name: Option<&str>) -> Result<Client, ClientError> {
        let server = load_one(path, name)?;
        Client::connect(server.transport, ClientOptions::new(server.name)).await
    }

    /// Connect to the server a [`serve_registry()`](crate::serve_registry()) spec serves, as
    /// an agent CLI would: its URL and bearer token (HTTP), or the command in its config file
    /// (stdio). The client is named after the spec. Start the spec first.
    #[cfg(feature = "http")]
    pub async fn connect_spec(spec: &crate::spec::McpServerSpec) -> Result<Client, ClientError> {
        Client::connect_spec_with(spec, ClientOptions::new(spec.name())).await
    }

    /// [`connect_spec`](Self::connect_spec) with your own [`ClientOptions`] (its handlers,
    /// timeouts, era; the client takes the options' name).
    #[cfg(feature = "http")]
    pub async fn connect_spec_with(
        spec: &crate::spec::McpServerSpec,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        Client::connect(transport_of_spec(spec)?, options).await
    }
}

/// How to reach the server `spec` serves.
#[cfg(feature = "http")]
fn transport_of_spec(spec: &crate::spec::McpServerSpec) -> Result<ServerTransport, ClientError> {
    match spec.url() {
        Some(url) => {
            let mut http = HttpServer::new(url);
            for (k, v) in spec.auth_headers() {
                http = http.header(k, v);
            }
            Ok(ServerTransport::Http(http))
        }
        None => Ok(load_one(spec.config_path(), Some(spec.name()))?.transport),
    }
}

/// The server `name` (or the only one) declared in the file at `path`.
fn load_one(path: &Path, name: Option<&str>) -> Result<ServerConfig, ClientError> {
    let shown = path.display().to_string();
    let problem = |problem: String, source: Option<super::error::SharedError>| ClientError::Config {
        server: name.unwrap_or(&shown).to_owned(),
        problem,
        source,
    };
    let text = std::fs::read_to_string(path).map_err(|e| {
        let e = ConfigError::Io { path: path.to_owned(), source: Arc::new(e) };
        problem(e.to_string(), Some(Arc::new(e)))
    })?;
    let load = parse_servers(&text, &shown).map_err(|e| problem(e.to_string(), Some(Arc::new(e))))?;
    let declared = || {
        let mut names: Vec<&str> = load.servers.iter().map(|s| s.name.as_str()).collect();
        names.extend(load.problems.iter().map(|(n, _)| n.as_str()));
        names.sort_unstable();
        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
    };
    if let Some(name) = name
        && let Some((_, reason)) = load.problems.iter().find(|(n, _)| n == name)
    {
        return Err(problem(format!("its entry in {shown} is unusable: {reason}"), None));
    }
    let found = match name {
        Some(name) => load.servers.iter().find(|s| s.name == name),
        None if load.servers.len() + load.problems.len() == 1 => load.servers.first(),
        None => {
            return Err(problem(
                format!("{shown} declares several servers ({}); name the one to connect to", declared()),
                None,
            ));
        }
    };
    match (found, name) {
        (Some(server), _) => Ok(server.clone()),
        (None, Some(name)) => {
            Err(problem(format!("{shown} declares no server '{name}'; it declares: {}", declared()), None))
        }
        (None, None) => match load.problems.first() {
            Some((_, reason)) => Err(problem(format!("its entry in {shown} is unusable: {reason}"), None)),
            None => Err(problem(format!("{shown} declares no server"), None)),
        },
    }
}

/// What [`connect_all`] did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Connected {
    /// The clients that connected, in configuration order.
    pub clients: Vec<Client>,
    /// The servers that failed, with why; they were skipped.
    pub failed: Vec<(String, ClientError)>,
}

/// Connect to every server, concurrently. A server that fails is reported and skipped; the
/// others load. `options` makes each server's options from its name.
pub async fn connect_all(servers: &[ServerConfig], options: impl Fn(&str) -> ClientOptions) -> Connected {
    let tasks: Vec<_> = servers
        .iter()
        .map(|s| {
            let (name, transport, opts) = (s.name.clone(), s.transport.clone(), options(&s.name));
            (name, tokio::spawn(async move { Client::connect(transport, opts).await }))
        })
        .collect();
    let mut out = Connected::default();
    for (name, task) in tasks {
        match task.await {
            Ok(Ok(client)) => out.clients.push(client),
            Ok(Err(e)) => {
                tracing::warn!(server = %name, "skipping MCP server: {e}");
                out.failed.push((name, e));
            }
            Err(_) => out.failed.push((
                name.clone(),
                ClientError::Unavailable {
                    server: name,
                    reason: "could not be connected: the task failed".into(),
                },
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::options::HttpTransportKind;

    #[test]
    fn one_server_is_picked_from_a_config_file_by_name() {
        let dir = std::env::temp_dir().join(format!("toolwire-cfg-one-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mcp.json");
        std::fs::write(
            &path,
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"url": "http://127.0.0.1:9/mcp"}, "c": {"args": []}}}"#,
        )
        .unwrap();
        let shown = path.display();
        assert_eq!(load_one(&path, Some("a")).unwrap().name, "a");
        assert_eq!(
            load_one(&path, Some("z")).unwrap_err().to_string(),
            format!("server 'z': {shown} declares no server 'z'; it declares: a, b, c")
        );
        assert_eq!(
            load_one(&path, Some("c")).unwrap_err().to_string(),
            format!("server 'c': its entry in {shown} is unusable: neither `command` nor `url` is given")
        );
        assert_eq!(
            load_one(&path, None).unwrap_err().to_string(),
            format!(
                "server '{shown}': {shown} declares several servers (a, b, c); name the one to connect to"
            )
        );
        std::fs::write(&path, r#"{"mcpServers": {"only": {"command": "x"}}}"#).unwrap();
        assert_eq!(load_one(&path, None).unwrap().name, "only");
        let missing = dir.join("missing.json");
        assert!(
            load_one(&missing, Some("a"))
                .unwrap_err()
                .to_string()
                .starts_with(&format!("server 'a': cannot read MCP server config {}: ", missing.display()))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_name_declared_twice_is_used_by_neither_declaration_and_reported() {
        let load = parse_servers(
            r#"{"mcpServers": {"t": {"command": "x"}, "u": {"command": "x"}, "t": {"command": "y"}, "t": {"url": "http://h/mcp"}}}"#,
            "mcp.json",
        )
        .unwrap();
        assert_eq!(load.servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["u"]);
        assert_eq!(
            load.problems,
            [("t".to_owned(), "declared twice in mcp.json; neither declaration is used".to_owned())]
        );
        // The bare form too, and the errors are still told apart.
        let bare = parse_servers(r#"{"a": {"command": "x"}, "a": {"command": "x"}}"#, "MCP_SERVERS").unwrap();
        assert!(bare.servers.is_empty());
        assert_eq!(bare.problems.len(), 1);
        assert!(matches!(parse_servers("{", "f"), Err(ConfigError::NotJson { .. })));
        assert_eq!(parse_servers("[1]", "f"), Err(ConfigError::NotAnObject { source_name: "f".into() }));
        assert_eq!(
            parse_servers(r#"{"mcpServers": 3}"#, "f"),
            Err(ConfigError::NotAnObject { source_name: "f".into() })
        );
    }

    #[test]
    fn the_first_config_file_found_wins() {
        let dir = std::env::temp_dir().join(format!("toolwire-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mcp.json"), r#"{"mcpServers": {"late": {"command": "x"}}}"#).unwrap();
        std::fs::write(dir.join(".mcp.json"), r#"{"mcpServers": {"early": {"command": "x"}}}"#).unwrap();
        let load = load_servers(&dir).unwrap();
        // MCP_SERVERS, when the environment sets it, comes before any file.
        match std::env::var(MCP_SERVERS_ENV) {
            Ok(text) => assert_eq!(load, parse_servers(&text, MCP_SERVERS_ENV).unwrap()),
            Err(_) => {
                assert_eq!(load.source, Some(dir.join(".mcp.json").display().to_string()));
                assert_eq!(load.servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["early"]);
                let empty = dir.join("empty");
                std::fs::create_dir_all(&empty).unwrap();
                assert_eq!(load_servers(&empty).unwrap(), ConfigLoad::default());
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn entries_are_stdio_without_a_url_and_http_with_one() {
        let load = parse_servers(
            r#"{"mcpServers": {
                "docs": {"command": "uvx", "args": ["mcp-server-fetch"], "env": {"TZ": "UTC"}},
                "search": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer x"}},
                "old": {"type": "sse", "url": "http://127.0.0.1:3002/sse"},
                "bad": {"type": "stdio", "url": "http://x"},
                "odd": {"type": "websocket", "url": "ws://x"},
                "worse": {"args": []}
            }}"#,
            ".mcp.json",
        )
        .unwrap();
        assert_eq!(load.servers.len(), 3);
        assert_eq!(load.servers[0].name, "docs");
        match &load.servers[0].transport {
            ServerTransport::Stdio(s) => {
                assert_eq!(s.command, PathBuf::from("uvx"));
                assert_eq!(s.args, ["mcp-server-fetch"]);
                assert_eq!(s.env.get("TZ").map(String::as_str), Some("UTC"));
            }
            other => panic!("{other:?}"),
        }
        let http = |name: &str| match &load.servers.iter().find(|s| s.name == name).unwrap().transport {
            ServerTransport::Http(h) => (h.url.clone(), h.kind),
            other => panic!("{other:?}"),
        };
        assert_eq!(http("search"), ("http://127.0.0.1:3001/mcp".to_owned(), HttpTransportKind::Auto));
        // `"type": "sse"` is the 2024-11-05 HTTP+SSE transport, as Claude Code reads it.
        assert_eq!(http("old"), ("http://127.0.0.1:3002/sse".to_owned(), HttpTransportKind::LegacySse));
        assert_eq!(
            load.problems,
            [
                ("bad".to_owned(), "`type` is \"stdio\" but a `url` is given".to_owned()),
                ("odd".to_owned(), "`type` \"websocket\" is not stdio, http or sse".to_owned()),
                ("worse".to_owned(), "neither `command` nor `url` is given".to_owned()),
            ]
        );
        // Without the wrapper too.
        assert_eq!(parse_servers(r#"{"a": {"command": "x"}}"#, "MCP_SERVERS").unwrap().servers.len(), 1);
        assert_eq!(
            parse_servers("{\"a\": 1", "MCP_SERVERS").unwrap_err().to_string(),
            "MCP server config from MCP_SERVERS is not JSON: EOF while parsing an object at line 1 column 7"
        );
        assert_eq!(
            parse_servers("[1]", "MCP_SERVERS").unwrap_err().to_string(),
            "MCP server config from MCP_SERVERS must be an object of servers (optionally under \"mcpServers\")"
        );
    }
}
