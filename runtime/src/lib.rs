//! # toolwire
//!
//! A Rust SDK for tools that AI agents call over the Model Context Protocol (MCP).
//!
//! - Write a plain Rust fn and put [`#[tool]`](macro@tool) on it. It gets a byte-stable JSON
//!   Schema, argument validation whose errors a model can act on, and declarations (side
//!   effects, approval, capabilities) that travel with it.
//! - Put tools in a [`ToolRegistry`] with [`tools!`].
//! - Every tool, written with `#[tool]`, by hand, or adopted from a remote server, is the
//!   same object-safe [`Tool`] trait.
//!
//! ```
//! use toolwire::{tool, tools, Context, Tool};
//!
//! /// Run the named check and report whether it passed.
//! #[tool(read_only)]
//! fn run_check(
//!     /// Name of the check to run.
//!     name: String,
//!     /// Fail on warnings too.
//!     strict: Option<bool>,
//! ) -> String {
//!     format!("{name}:{}:ok", if strict.unwrap_or(false) { "strict" } else { "lax" })
//! }
//!
//! // The fn is untouched and callable.
//! assert_eq!(run_check("lint".into(), None), "lint:lax:ok");
//!
//! let registry = tools![run_check].unwrap();
//! let tool = registry.get("run_check").unwrap();
//! assert_eq!(tool.info().description(), "Run the named check and report whether it passed.");
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let err = tool.call_json(serde_json::json!({"name": "lint", "verbose": true}), &Context::new()).await.unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"
//! );
//! # });
//! ```
//!
//! # Cargo features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `http` | on | loopback streamable HTTP: [`serve_registry()`](fn@serve_registry) and [`spec`] (the agent-CLI configs, their stdio projection included), [`http`] (`mcp_router`, `HttpConfig`, `BearerToken`); serving an `ApprovalServer` (`serve`, `serve_with`, `permission_prompt_tool`, `claude_cli_args`) and `RunPolicy::check_specs`; the `--http`, `--port` and `--show-token` flags of the `serve_registry!` main |
//! | `multi-thread` | on (with `http`) | the `--worker-threads N` flag of the `serve_registry!` main: a multi-threaded tokio runtime (tokio's `rt-multi-thread`). `http` turns it on, since its main runs one worker per core |
//! | `output-check` | on | the engine validates a hand-written tool's structured output against its advertised `outputSchema` before it leaves (jsonschema); `#[tool]` output is right by construction and never checked |
//! | `approvals` | on | [`approvals`]: `ApprovalServer` (a permission-prompt tool, over stdio or, with `http`, over HTTP with its console), `Asker`, the decision record and `RunPolicy` (the lethal trifecta). A crate that only serves its own tools can leave it out |
//! | `client` | off | [`client`]: connect to MCP servers over stdio or HTTP(S) (or any transport, a `Server` in process included) and adopt their tools; `testing`. Independent of `http`: it brings its own HTTP client. Also `Deserialize` for the [`protocol::wire`] shapes a server only writes (tools, prompts, resources, content blocks, icons, completion results, `input_required` rounds) |
//! | `client-oauth` | off | `client::oauth`: the MCP authorization spec's client role (discovery, registration, PKCE, refresh, step-up, client credentials, DPoP, workload identity, enterprise-managed authorization) as a `client::Authorizer` for HTTP servers; adds `url`, `jsonwebtoken` and `p256`, which a stdio-only client does not carry. Turns on `client` |
//! | `oauth` | off | the server's OAuth resource-server role: `http::JwksVerifier` (its algorithms named by `http::Algorithm`), JWT access tokens checked against an authorization server's JWKS (signature, `typ`, issuer, audience, expiry, scopes), fetched over HTTP(S), for an `http::ResourceServer`. Turns on `http` |
//! | `redis` | off | `redis`: `Redis` (one connection) and the `RedisSessionStore`, `RedisEventStore`, `RedisTaskStore` and `RedisFanout` made from it, so replicas behind a load balancer share legacy sessions, SSE replay, tasks and notifications. Turns on `http` |
//! | `tower` | off | `ServerBuilder::layer`: tower layers (`TimeoutLayer`, `ConcurrencyLimitLayer`, `LoadShedLayer`, a program's own) around every MCP request the engine serves, over any transport, with `server::McpRequest`, `McpResponse` and `Next`; a timeout and a shed request read as JSON-RPC errors naming the request; adds `tower` and `http` (in the graph already with the `http` feature)
//! | `otel` | off | `otel`: OpenTelemetry on the interceptor seams, `ServerTelemetry` and `ClientTelemetry` (a span per request after the MCP semantic conventions, the request metrics, W3C trace context carried in `_meta` both ways) and `Otlp`, an OTLP/HTTP exporter; adds `opentelemetry`, `opentelemetry_sdk` and `opentelemetry-otlp` |
//!
//! Without `http`, everything a tools-only stdio server uses is still here: `#[tool]`,
//! `tools!`, the registry, the engine, [`serve_stdio`], and `serve_registry!` (the
//! same expansion; its `--http` is then a usage error saying the feature is off). Such a
//! build links none of axum, hyper, tower, http, mio or socket2, and, unless it asks for
//! `multi-thread`, no multi-threaded scheduler (and so no libm, which that scheduler's one
//! `pow` loads): the binary is smaller, its idle resident set lower, its start faster and a
//! clean build faster. Its `--worker-threads` is a usage error saying the feature is off:
//!
//! ```toml
//! [dependencies]
//! toolwire = { version = "0.1", default-features = false }
//! ```
//!
//! An [`ApprovalServer`](approvals::ApprovalServer) (feature `approvals`) is an ordinary
//! [`Tool`] in either build (its asker, timeout and decision record need no HTTP); serving
//! it needs `http`, because the asker lives in this process and only a server this process
//! runs can reach it. A tools-only build that serves one over stdio asks for it:
//! `features = ["approvals"]`.

//! # Where things are
//!
//! The root holds what a first program names: the macros, [`Tool`] and the types a tool
//! trades in, [`Context`], [`ToolRegistry`], and the ways to serve. Everything else lives in
//! a public module named for its layer (`ARCHITECTURE.md` in the repository is the map):
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`tool`](mod@tool) | the [`Tool`] trait, [`ToolInfo`], [`Declarations`], [`ToolOutput`], [`Content`], [`ToolError`], [`Json`] |
//! | [`args`] | argument validation: [`ToolArgumentError`](args::ToolArgumentError) and its problems |
//! | [`schema`] | [`Schema`], and the RFC 8785 writer [`canonical_json`](schema::canonical_json) |
//! | [`context`] | [`Context`], its builder, progress and the peer's identity |
//! | [`state`] | [`State<T>`](state::State): a value the registry is given once and its tools are handed |
//! | [`inject`] | [`FromContext`](inject::FromContext): parameters a `#[tool]` fn is handed, not sent |
//! | [`paths`] | [`SafePath`](paths::SafePath): a path argument checked against the host's allowed roots |
//! | [`registry`] | [`ToolRegistry`], qualified names, the tool-name grammar |
//! | [`protocol`] | the MCP wire: versions and eras, JSON-RPC ids and errors, the `wire` data shapes |
//! | [`principal`] | [`Principal`](principal::Principal): who is calling, as the host or the authenticator says, read through `Context::principal` |
//! | [`server`] | the engine: [`Server`], [`ServerOptions`], sessions and their sinks |
//! | [`stdio`] | the stdio transport: [`stdio::serve`] (also [`serve_stdio`]), [`stdio::serve_lines`], [`StdioConfig`](stdio::StdioConfig) |
//! | `http` (feature `http`) | the streamable-HTTP endpoint: `serve` (toolwire's own listener), `mcp_router` (a `Router` to mount), `HttpConfig`, the bearer token and authenticators |
//! | `spec` (feature `http`) | [`serve_registry()`](fn@serve_registry), `McpServerSpec` and `SpecOptions`: the agent-CLI side |
//! | [`resource`](mod@resource) | the `Resource` and `ResourceTemplate` traits, `ResourceInfo`, `ResourceRegistry`, `UriTemplate`: what `#[resource]` generates and a server serves |
//! | [`prompt`](mod@prompt) | the `Prompt` trait, `PromptInfo`, `PromptRegistry`: what `#[prompt]` generates and a server serves |
//! | [`skills`] | the Skills extension (SEP-2640): `SkillCatalog`, skills from a folder or code, each checked when added, served with `ServerBuilder::skills`; the `SKILL.md` frontmatter reader; read on the client side by `Client::list_skills`, `load_skill`, `read_skill_file` |
//! | [`complete`] | completers for prompt arguments (and resource template variables): `Complete`, `Completion`, `Fixed` |
//! | `approvals` (feature `approvals`) | `ApprovalServer`, `Asker`, and `RunPolicy` (the lethal trifecta) |
//! | `client` (feature `client`) | connect to MCP servers and adopt their tools; any transport, in process included |
//! | `testing` (feature `client`) | test tools through the protocol: the in-process pair, a scripted fake server, golden tool lists |
//! | `redis` (feature `redis`) | the shared stores on Redis: sessions, SSE events, tasks, fan-out |
//! | `otel` (feature `otel`) | OpenTelemetry: `ServerTelemetry`, `ClientTelemetry` (spans, metrics, trace context in `_meta`) and the `Otlp` exporter |

#![cfg_attr(docsrs, feature(doc_cfg))]
// Some docs link to items behind `client` and `oauth`, which are off by default: a local
// `cargo doc` without them would warn of links that resolve on docs.rs (every feature). CI
// checks every link with `-D warnings` on the workspace's docs, where both are on.
#![cfg_attr(not(all(feature = "client", feature = "oauth")), allow(rustdoc::broken_intra_doc_links))]

// The lowest layers, in the crate `toolwire-protocol` (module `protocol` says why), reached
// as `crate::json` and so on, as when they were modules here.
use toolwire_protocol::{base64, by_name, json, swar, sync};

// In name order. Their layers, bottom first, are `scripts/layers.py`'s list (which checks
// that no module imports one above it) and ARCHITECTURE.md's table.
pub mod args;
pub mod complete;
pub mod context;
pub mod inject;
mod log_hold;
pub mod paths;
pub mod principal;
pub mod prompt;
pub mod protocol;
mod race;
mod random;
pub mod registry;
pub mod resource;
pub mod schema;
mod schema_gen;
pub mod server;
pub mod skills;
pub mod state;
pub mod tool;
mod transport;
#[cfg(feature = "http")]
pub use transport::http;
pub use transport::stdio;
#[doc(hidden)]
pub mod __private;
#[cfg(feature = "approvals")]
pub mod approvals;
mod cli;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "http")]
pub mod spec;
#[cfg(feature = "client")]
pub mod testing;

pub use context::Context;
pub use registry::ToolRegistry;
pub use schema::Schema;
pub use server::{Server, ServerOptions};
#[cfg(feature = "http")]
pub use spec::{McpServerSpec, serve_registry};
pub use stdio::serve as serve_stdio;
pub use tool::{Content, Declarations, Json, Tool, ToolError, ToolInfo, ToolOutput};
#[doc = include_str!("../docs/remote.md")]
pub use toolwire_macros::remote;
#[doc = include_str!("../docs/resource.md")]
pub use toolwire_macros::resource;
pub use toolwire_macros::resources;
#[doc = include_str!("../docs/serve_registry.md")]
pub use toolwire_macros::serve_registry;
#[doc = include_str!("../docs/tool.md")]
pub use toolwire_macros::tool;
#[doc = include_str!("../docs/toolbox.md")]
pub use toolwire_macros::toolbox;
pub use toolwire_macros::tools;
pub use toolwire_macros::{prompt, prompts};

// What `#[tool]` expands to, re-exported here hidden only so compile errors name it by its
// short name (`ToolInput<'_, ViaArguments>`): rustc prints a hidden module's items by their
// full `__private` path. Not public API; the expansion reaches them through `__private`.
#[doc(hidden)]
pub use inject::{ToolInput, ViaArguments, ViaContext, ViaSettledArgument};

// The surface a user learns, kept honest: the crate docs' two tables whole (a feature or a
// public module added without a row fails here, not in a user's search), and one name per
// concept.
#[cfg(test)]
mod surface {
    const LIB: &str = include_str!("lib.rs");
    const MANIFEST: &str = include_str!("../Cargo.toml");

    /// Every feature of `Cargo.toml` but `default` and the hidden `fuzzing` has a row in
    /// the "Cargo features" table.
    #[test]
    fn every_feature_has_a_row() {
        let features = MANIFEST.split("\n[features]\n").nth(1).expect("a [features] table");
        let features = features.split("\n[").next().unwrap_or_default();
        let mut seen = 0;
        for line in features.lines() {
            let Some((name, _)) = line.split_once(" = ") else { continue };
            if line.starts_with('#') || line.starts_with(' ') || ["default", "fuzzing"].contains(&name) {
                continue;
            }
            seen += 1;
            assert!(
                LIB.contains(&format!("//! | `{name}` |")),
                "feature `{name}` has no row in the crate docs' table"
            );
        }
        assert!(seen >= 8, "read {seen} features from Cargo.toml");
    }

    /// Every public module (`pub mod x`, `pub use transport::x`) but the hidden `__private`
    /// has a row in the "Where things are" table.
    #[test]
    fn every_public_module_has_a_row() {
        let mut seen = 0;
        for line in LIB.lines() {
            let name = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub use transport::"))
                .and_then(|rest| rest.strip_suffix(';'));
            let Some(name) = name.filter(|n| *n != "__private") else { continue };
            seen += 1;
            let linked = [
                format!("//! | [`{name}`]"),
                format!("//! | `{name}` ("),
                format!("//! | [`{name}`](mod@{name})"),
            ];
            assert!(
                linked.iter().any(|row| LIB.contains(row.as_str())),
                "public module `{name}` has no row in the crate docs' \"Where things are\" table"
            );
        }
        assert!(seen >= 20, "read {seen} public modules from lib.rs");
    }

    /// No two public items of `runtime/src` and `protocol/src` (outside `__private` and test
    /// modules) share a name unless they are one concept: a `pub struct Root` in `context`
    /// and another in `client` would make a program that holds both say which it means.
    #[test]
    fn one_name_per_concept() {
        use std::collections::BTreeMap;
        use std::path::Path;

        // Twins allowed, and why: each wire struct beside the trait that serves it (the wire
        // `Tool` is what `tools/list` carries of a `Tool`), each module's list of all its
        // values, and the hidden decoder's `Incoming` (not public API) beside the client's.
        const ALLOWED: [&str; 6] = ["Tool", "Prompt", "Resource", "ResourceTemplate", "ALL", "Incoming"];

        fn walk(dir: &Path, out: &mut BTreeMap<String, Vec<String>>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if name.starts_with("__private") {
                    continue;
                }
                if path.is_dir() {
                    walk(&path, out);
                    continue;
                }
                if !name.ends_with(".rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let mut lines = text.lines().peekable();
                while let Some(line) = lines.next() {
                    let line = line.trim_start();
                    if line.starts_with("#[cfg(test)]")
                        && lines.peek().is_some_and(|l| l.trim_start().starts_with("mod "))
                    {
                        break;
                    }
                    let Some(rest) = line.strip_prefix("pub ") else { continue };
                    let Some((kind, rest)) = rest.split_once(' ') else { continue };
                    if !["struct", "enum", "trait", "type", "const", "static"].contains(&kind)
                        || rest.starts_with("fn ")
                    {
                        continue;
                    }
                    let ident: String =
                        rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    out.entry(ident).or_default().push(path.display().to_string());
                }
            }
        }

        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut names = BTreeMap::new();
        walk(&root.join("src"), &mut names);
        walk(&root.join("../protocol/src"), &mut names);
        assert!(names.len() > 300, "read {} public names", names.len());
        let twins: Vec<String> = names
            .iter()
            .filter(|(name, places)| places.len() > 1 && !ALLOWED.contains(&name.as_str()))
            .map(|(name, places)| format!("{name}: {}", places.join(", ")))
            .collect();
        assert!(
            twins.is_empty(),
            "one name, two concepts (rename one to say how it differs):\n{}",
            twins.join("\n")
        );
    }
}
