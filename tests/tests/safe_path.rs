//! `SafePath`: a `#[tool]` argument that must name a file inside the host's `AllowedRoots`.
//! Seed 003's path-traversal corpus, symbolic links that escape, the messages a model reads,
//! the advertised schema (checked with the `jsonschema` crate, as a validating client would),
//! and a generated corpus: whatever is accepted lies inside a root.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolwire::paths::{AllowedRoots, SafePath};
use toolwire::registry::RegistryError;
use toolwire::{Context, Tool, ToolError, ToolRegistry, tool, tools};

/// Read a text file from the workspace.
#[tool(read_only)]
fn read_file(
    /// The file, relative to the workspace.
    path: SafePath,
) -> Result<String, ToolError> {
    std::fs::read_to_string(&path).map_err(|e| ToolError::failed("read_file", e))
}

/// Write a file, async; the target need not exist yet.
#[tool(side_effecting)]
async fn write_file(path: SafePath, text: String, backup: Option<SafePath>) -> Result<String, ToolError> {
    if let Some(backup) = &backup {
        let _ = std::fs::copy(&path, backup);
    }
    std::fs::write(&path, text).map_err(|e| ToolError::failed("write_file", e))?;
    Ok(path.relative().display().to_string())
}

/// A root with a file, a subdirectory, a link inside it and a link out of it, and a secret
/// outside it.
struct Tree {
    base: PathBuf,
    root: PathBuf,
}

impl Tree {
    fn new(tag: &str) -> Tree {
        let base = std::env::temp_dir().join(format!("toolwire-safepath-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(root.join("notes.txt"), "inside").unwrap();
        std::fs::write(root.join("sub/deep.txt"), "deep").unwrap();
        std::fs::write(base.join("outside/secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("in")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), root.join("out")).unwrap();
        std::os::unix::fs::symlink(base.join("outside/secret.txt"), root.join("secret-link")).unwrap();
        Tree { base, root }
    }

    fn registry(&self) -> ToolRegistry {
        tools![read_file, write_file; state = [AllowedRoots::new([&self.root]).unwrap()]].unwrap()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

async fn call(registry: &ToolRegistry, tool: &str, args: Value) -> Result<String, String> {
    let ctx = Context::builder().states(registry.states().clone()).build();
    match registry.get(tool).unwrap().call_json(args, &ctx).await {
        Ok(out) => Ok(serde_json::to_value(&out.content).unwrap()[0]["text"].as_str().unwrap().to_owned()),
        Err(e) => Err(e.to_string()),
    }
}

#[tokio::test]
async fn seed_003s_corpus_is_refused_naming_the_argument() {
    let tree = Tree::new("corpus");
    let r = tree.registry();
    let refused = |path: &str| {
        let r = &r;
        let path = path.to_owned();
        async move { call(r, "read_file", json!({ "path": path })).await.unwrap_err() }
    };
    assert_eq!(
        refused("../etc/passwd").await,
        "tool 'read_file' call rejected: argument 'path' must not contain '..' segments, got '../etc/passwd'"
    );
    assert_eq!(
        refused("%2e%2e/etc/passwd").await,
        "tool 'read_file' call rejected: argument 'path' must not contain '..' segments (not even percent-encoded), got '%2e%2e/etc/passwd'"
    );
    assert_eq!(
        refused("%252e%252e/etc/passwd").await,
        "tool 'read_file' call rejected: argument 'path' must not contain '..' segments (not even percent-encoded), got '%252e%252e/etc/passwd'"
    );
    assert_eq!(
        refused("..\\..\\etc\\passwd").await,
        "tool 'read_file' call rejected: argument 'path' must not contain backslashes (use '/' between segments), got '..\\\\..\\\\etc\\\\passwd'"
    );
    assert_eq!(
        refused("safe.txt\0.exe").await,
        "tool 'read_file' call rejected: argument 'path' must not contain NUL bytes, got 'safe.txt\\x00.exe'"
    );
    assert_eq!(
        refused("/etc/passwd").await,
        "tool 'read_file' call rejected: argument 'path' must be inside the allowed roots (a relative path, or an absolute one within a root), got '/etc/passwd'"
    );
    assert_eq!(
        refused("out/secret.txt").await,
        "tool 'read_file' call rejected: argument 'path' leads out of the allowed roots through a symbolic link, got 'out/secret.txt'"
    );
    assert_eq!(
        refused("secret-link").await,
        "tool 'read_file' call rejected: argument 'path' leads out of the allowed roots through a symbolic link, got 'secret-link'"
    );
    // An absolute path that climbs back in with '..' is refused before any root is consulted.
    let outside = tree.base.join("outside");
    let through = format!("{}/../root/notes.txt", outside.display());
    assert!(refused(&through).await.contains("must not contain '..' segments"));
    // The schema still applies first: a number is a wrong type, not a path.
    assert_eq!(
        call(&r, "read_file", json!({ "path": 7 })).await.unwrap_err(),
        "tool 'read_file' call rejected: argument 'path' must be a string, got an integer"
    );
}

#[tokio::test]
async fn paths_inside_the_roots_are_resolved_and_usable() {
    let tree = Tree::new("inside");
    let r = tree.registry();
    let read = |path: &str| call(&r, "read_file", json!({ "path": path }));
    assert_eq!(read("notes.txt").await.unwrap(), "inside");
    assert_eq!(read("./sub/deep.txt").await.unwrap(), "deep");
    assert_eq!(read("in/deep.txt").await.unwrap(), "deep", "a link that stays inside is followed");
    let absolute = tree.root.join("sub/deep.txt");
    assert_eq!(read(absolute.to_str().unwrap()).await.unwrap(), "deep");
    // A file that does not exist yet may be named (a tool may create it), async and sync alike.
    let written =
        call(&r, "write_file", json!({ "path": "sub/new.txt", "text": "hi", "backup": "sub/new.bak" }))
            .await
            .unwrap();
    assert_eq!(written, "sub/new.txt");
    assert_eq!(std::fs::read_to_string(tree.root.join("sub/new.txt")).unwrap(), "hi");
    // An optional SafePath is checked when given, and absent when not.
    assert_eq!(
        call(&r, "write_file", json!({ "path": "a.txt", "text": "x", "backup": "../b" })).await.unwrap_err(),
        "tool 'write_file' call rejected: argument 'backup' must not contain '..' segments, got '../b'"
    );
    assert_eq!(call(&r, "write_file", json!({ "path": "a.txt", "text": "x" })).await.unwrap(), "a.txt");
    // Through a link that leads out, nothing is written.
    let err = call(&r, "write_file", json!({ "path": "out/planted.txt", "text": "x" })).await.unwrap_err();
    assert!(err.contains("leads out of the allowed roots"), "{err}");
    assert!(!tree.base.join("outside/planted.txt").exists());
}

#[test]
fn a_tool_taking_a_safe_path_needs_allowed_roots_in_its_registry() {
    let err = tools![read_file].unwrap_err();
    assert_eq!(
        err,
        RegistryError::MissingState { tool: "read_file".into(), type_name: "toolwire::paths::AllowedRoots" }
    );
    let names: Vec<_> = read_file {}.info().state_needs().iter().map(|n| n.type_name()).collect();
    assert_eq!(names, ["toolwire::paths::AllowedRoots"]);
    // A root must exist.
    let err = AllowedRoots::new([Path::new("/no/such/toolwire/root")]).unwrap_err();
    assert!(err.to_string().starts_with("allowed root '/no/such/toolwire/root' cannot be used: "), "{err}");
}

#[tokio::test]
async fn called_by_hand_without_roots_the_argument_is_refused() {
    let err = read_file {}.call_json(json!({ "path": "x" }), &Context::new()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool 'read_file' call rejected: argument 'path' cannot be checked: this call's context was given no AllowedRoots"
    );
}

#[test]
fn the_schema_says_what_is_accepted_and_a_validating_client_agrees_on_the_corpus() {
    let schema: Value = serde_json::from_str(read_file {}.info().input_schema().as_str()).unwrap();
    assert_eq!(schema["properties"]["path"]["type"], "string");
    assert_eq!(schema["properties"]["path"]["description"], "The file, relative to the workspace.");
    assert_eq!(schema["properties"]["path"]["pattern"], toolwire::paths::SAFE_PATH_PATTERN);
    let validator = jsonschema::validator_for(&schema).unwrap();
    for bad in [
        "../etc/passwd",
        "%2e%2e/etc/passwd",
        "%252e%252e/etc/passwd",
        "..\\..\\etc\\passwd",
        "safe.txt\0.exe",
        "a/../b",
        "..",
        ".%2e/x",
        "..%2fx",
        "x%5cy",
        "",
    ] {
        assert!(!validator.is_valid(&json!({ "path": bad })), "the schema let {bad:?} through");
    }
    for good in ["notes.txt", "./a", "a..b", "...", ".hidden", "100%.txt", "a%20b", "/srv/x"] {
        assert!(validator.is_valid(&json!({ "path": good })), "the schema refused {good:?}");
    }
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just("%2e%2e".to_owned()),
        Just("%252e".to_owned()),
        Just("%2f".to_owned()),
        Just("\\".to_owned()),
        Just("in".to_owned()),
        Just("out".to_owned()),
        Just("sub".to_owned()),
        Just("secret-link".to_owned()),
        "[a-z.%25]{1,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// Whatever `SafePath` accepts lies inside the root once every link is followed, and
    /// never inside `outside/`.
    #[test]
    fn whatever_is_accepted_lies_inside_the_root(
        absolute in any::<bool>(),
        segments in proptest::collection::vec(segment(), 1..6),
    ) {
        let tree = tree_once();
        let roots = AllowedRoots::new([&tree.root]).unwrap();
        let joined = segments.join("/");
        let text = if absolute { format!("{}/{joined}", tree.root.display()) } else { joined };
        if let Ok(safe) = roots.check(&text) {
            let canonical_root = tree.root.canonicalize().unwrap();
            prop_assert!(safe.as_path().starts_with(&canonical_root), "{text:?} -> {}", safe.as_path().display());
            let mut existing = safe.as_path().to_path_buf();
            while !existing.exists() {
                existing.pop();
            }
            prop_assert!(existing.canonicalize().unwrap().starts_with(&canonical_root), "{text:?}");
            prop_assert!(!text.split('/').any(|s| s == ".."), "{text:?}");
        }
    }
}

fn tree_once() -> &'static Tree {
    static TREE: std::sync::OnceLock<Tree> = std::sync::OnceLock::new();
    TREE.get_or_init(|| Tree::new("prop"))
}
