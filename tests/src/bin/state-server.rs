//! A stdio server whose tools hold state, for tests/tests/state.rs and the Python SDK driver
//! tests/peers/clients/py_state_client.py. Its `main` is `serve_registry!`, so it also shows
//! that the macro takes a toolbox and state.
//!
//! - `bump` (a free fn taking `State<Counter>`): counts its calls, `"1"`, `"2"`, ...
//! - `put` / `get` (a `#[toolbox]`: methods of `Store`, registered from one value).
//! - `stats` (a hand-written `Tool` advertising an `outputSchema`): returns what its
//!   `shape` argument asks for, `good` or `bad`, so the engine's output check can be seen.
//! - `search` carries an icon and custom `_meta` entries.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use toolwire::state::State;
use toolwire::{Context, Schema, Tool, ToolInfo, ToolOutput, ToolRegistry, tool, toolbox};

/// Counts calls across the whole process.
#[derive(Default)]
struct Counter(AtomicU64);

/// Count this call and say how many there have been.
#[tool(idempotent = false)]
fn bump(counter: State<Counter>) -> String {
    (counter.0.fetch_add(1, Ordering::Relaxed) + 1).to_string()
}

/// A key-value store whose methods are tools.
#[derive(Default)]
struct Store {
    entries: Mutex<Vec<(String, String)>>,
}

#[toolbox]
impl Store {
    /// Remember a value under a key.
    #[tool]
    fn put(
        &self,
        /// The key.
        key: String,
        /// The value.
        value: String,
    ) -> String {
        self.entries.lock().unwrap().push((key, value));
        "stored".into()
    }

    /// Look a key up; the empty string when it is unknown.
    #[tool(read_only)]
    async fn get(&self, key: String) -> String {
        self.lookup(&key).unwrap_or_default()
    }

    fn lookup(&self, key: &str) -> Option<String> {
        self.entries.lock().unwrap().iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }
}

/// Search the catalogue.
#[tool(
    read_only,
    icon(src = "https://example.com/search.svg", mime_type = "image/svg+xml", sizes = ["any"], theme = "dark"),
    icon = "data:image/png;base64,iVBORw0KGgo=",
    meta = [("com.example/owner", "search-team"), ("com.example/tier", 2)]
)]
fn search(query: String) -> String {
    format!("no results for {query}")
}

/// A hand-written tool with an output schema; it returns what `shape` asks for.
struct Stats {
    info: ToolInfo,
}

impl Stats {
    fn new() -> Self {
        let input = Schema::from_value(json!({
            "type": "object",
            "properties": {"shape": {"type": "string", "enum": ["good", "bad", "none"]}},
            "required": ["shape"],
            "additionalProperties": false,
        }));
        let output = Schema::from_value(json!({
            "type": "object",
            "properties": {"count": {"type": "integer"}},
            "required": ["count"],
        }));
        Stats { info: ToolInfo::new("stats", "Report the count.", input).with_output_schema(output) }
    }
}

impl Tool for Stats {
    fn info(&self) -> &ToolInfo {
        &self.info
    }

    fn call<'a>(
        &'a self,
        args: &'a serde_json::value::RawValue,
        _: &'a Context,
    ) -> toolwire::tool::ToolFuture<'a> {
        Box::pin(async move {
            let args: serde_json::Value = serde_json::from_str(args.get()).unwrap_or_default();
            Ok(match args["shape"].as_str() {
                Some("good") => ToolOutput::structured(json!({"count": 3})),
                Some("bad") => ToolOutput::structured(json!({"count": "three"})),
                _ => ToolOutput::text("3"),
            })
        })
    }
}

fn stats() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(Stats::new()).expect("one tool");
    registry
}

fn main() {
    toolwire::serve_registry!(
        name = "state-server",
        version = "1.0.0",
        tools = [bump, search, Store::tools(Store::default()), stats()],
        state = [Counter::default()],
    )
}
