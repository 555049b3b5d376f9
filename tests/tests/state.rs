//! Tools that hold state: `State<T>` parameters, `#[toolbox]` methods, and what a registry
//! refuses when it is built. End to end, the state server (tests/src/bin/state-server.rs) is
//! driven over stdio by the official Python SDK client (tests/peers/clients/py_state_client.py).

use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use toolwire::registry::RegistryError;
use toolwire::state::State;
use toolwire::{Context, ToolRegistry, tool, toolbox, tools};
use toolwire_tests::tests_dir;

#[derive(Default)]
struct Hits(AtomicU64);

struct Prefix(&'static str);

/// Count and label the call.
#[tool]
fn hit(hits: State<Hits>, prefix: State<Prefix>, label: String) -> String {
    format!("{}{label}:{}", prefix.0, hits.0.fetch_add(1, Ordering::Relaxed) + 1)
}

/// Read the prefix.
#[tool(read_only)]
async fn prefix(prefix: State<Prefix>, ctx: &Context) -> String {
    let _ = ctx;
    prefix.0.to_owned()
}

struct Library {
    books: Vec<&'static str>,
}

#[toolbox]
impl Library {
    /// How many books there are.
    #[tool(read_only)]
    fn count(&self) -> String {
        self.books.len().to_string()
    }

    /// The book at a position.
    #[tool(read_only, name = "book_at")]
    async fn book(&self, index: usize) -> Result<String, String> {
        self.books.get(index).map(|b| (*b).to_owned()).ok_or_else(|| format!("no book at {index}"))
    }

    /// A tool with no receiver: no state.
    #[tool(read_only)]
    fn shelves() -> String {
        "1".into()
    }
}

fn text(output: &toolwire::ToolOutput) -> String {
    serde_json::to_value(&output.content).unwrap()[0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn state_is_injected_and_left_out_of_the_schema() {
    let registry = tools![hit, prefix; state = [Hits::default(), Prefix("#")]].unwrap();
    let hit = registry.get("hit").unwrap();
    assert_eq!(
        hit.info().input_schema().as_str(),
        r#"{"additionalProperties":false,"properties":{"label":{"type":"string"}},"required":["label"],"type":"object"}"#
    );
    let names: Vec<_> = hit.info().state_needs().iter().map(|n| n.type_name()).collect();
    assert_eq!(names, ["state::Hits", "state::Prefix"]);

    // The engine hands the registry's state to each call's context.
    let ctx = Context::builder().states(registry.states().clone()).build();
    assert_eq!(text(&hit.call_json(json!({"label": "a"}), &ctx).await.unwrap()), "#a:1");
    assert_eq!(text(&hit.call_json(json!({"label": "b"}), &ctx).await.unwrap()), "#b:2");
    let prefix = registry.get("prefix").unwrap();
    assert_eq!(text(&prefix.call_json(json!({}), &ctx).await.unwrap()), "#");

    // Called by hand with a context that holds no state, the call fails, naming the type.
    let err = prefix.call_json(json!({}), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'prefix' failed: no state `state::Prefix` was provided to this call's context"
    );
}

#[test]
fn a_missing_state_is_refused_when_the_registry_is_built() {
    let err = tools![hit; state = [Hits::default()]].unwrap_err();
    assert_eq!(err, RegistryError::MissingState { tool: "hit".into(), type_name: "state::Prefix" });
    assert_eq!(
        err.to_string(),
        "tool 'hit' needs state `state::Prefix`, which was never provided; give it to the registry: `tools![..; state = [value]]` or `ToolRegistry::add_state(value)`"
    );
    // By hand: state after the tool is too late, the tool is refused as it is added.
    let mut registry = ToolRegistry::new();
    assert!(matches!(registry.register(prefix {}), Err(RegistryError::MissingState { .. })));
    registry.add_state(Prefix(">")).unwrap().register(prefix {}).unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["prefix"]);
}

#[test]
fn one_value_per_state_type() {
    let err = tools![prefix; state = [Prefix("a"), Prefix("b")]].unwrap_err();
    assert_eq!(
        err.to_string(),
        "state `state::Prefix` is provided twice; a registry holds one value per type (wrap one of them in its own type)"
    );
    // Merging a toolbox whose state type is already held is refused the same way.
    let lib = || Library { books: vec![] };
    let err = tools![Library::tools(lib()), Library::tools(lib())].unwrap_err();
    assert_eq!(err, RegistryError::DuplicateState { type_name: "state::Library" });
}

#[tokio::test]
async fn a_toolbox_is_registered_from_one_value_and_its_methods_stay_methods() {
    let library = Library { books: vec!["Dune", "Emma"] };
    assert_eq!(library.count(), "2");
    assert_eq!(library.book(5).await, Err("no book at 5".to_owned()));
    assert_eq!(Library::shelves(), "1");

    let registry = tools![prefix, Library::tools(library); state = [Prefix("")]].unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["book_at", "count", "prefix", "shelves"]);
    let book = registry.get("book_at").unwrap();
    assert_eq!(book.info().description(), "The book at a position.");
    assert_eq!(
        book.info().input_schema().as_str(),
        r#"{"additionalProperties":false,"properties":{"index":{"format":"uint","maximum":18446744073709551615,"minimum":0,"type":"integer"}},"required":["index"],"type":"object"}"#
    );
    let ctx = Context::builder().states(registry.states().clone()).build();
    assert_eq!(text(&book.call_json(json!({"index": 1}), &ctx).await.unwrap()), "Emma");
    assert_eq!(
        book.call_json(json!({"index": 9}), &ctx).await.unwrap_err().to_string(),
        "tool 'book_at' failed: no book at 9"
    );
    let count = registry.get("count").unwrap();
    assert_eq!(text(&count.call_json(json!({}), &ctx).await.unwrap()), "2");
    assert!(registry.get("shelves").unwrap().info().state_needs().is_empty());
}

/// The Python SDK 2.3.0 client drives the state server over stdio, in both eras.
#[test]
fn python_sdk_drives_a_stateful_server_over_stdio() {
    let python = std::env::var("TOOLWIRE_PY_MCP2").unwrap_or_else(|_| {
        panic!("TOOLWIRE_PY_MCP2 is not set: run `bash tests/peers/setup.sh && source tests/peers/env.sh` first (scripts/test.sh does)")
    });
    let driver = tests_dir().join("peers/clients/py_state_client.py");
    for mode in ["legacy", "auto"] {
        let out = Command::new(&python)
            .arg(&driver)
            .args(["--mode", mode, "--"])
            .arg(env!("CARGO_BIN_EXE_state-server"))
            .output()
            .expect("run the Python driver");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.lines().last() == Some("8 passed, 0 failed"),
            "{mode}: {}\n{stdout}\n{stderr}",
            out.status
        );
    }
}
