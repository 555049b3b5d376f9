//! [`assert_tools_golden`]: a server's tool list, as it sends it, held to a committed file.

use std::path::Path;

use serde_json::Value;

use crate::client::Client;

/// Assert that the tools `client`'s server lists (every page of `tools/list`, each entry as
/// sent: names, descriptions, schemas, annotations, `_meta`, icons) match the file at `path`
/// byte for byte.
///
/// The file holds the entries as a pretty-printed JSON array, members of every object in
/// sorted order (RFC 8785's), and one newline at the end; a relative `path` is from the
/// current directory (the package's, under `cargo test`). With the environment variable
/// `TOOLWIRE_BLESS=1` the file is written instead: review its diff before committing it.
///
/// # Panics
///
/// When the list cannot be fetched, the file cannot be read (or, blessing, written), or the
/// two differ: the message names the file and the first line that differs.
pub async fn assert_tools_golden(client: &Client, path: impl AsRef<Path>) {
    let path = path.as_ref();
    let tools = match client.list_all("tools/list", "tools").await {
        Ok(tools) => tools,
        Err(e) => panic!("toolwire::testing: could not list the tools for {}: {e}", path.display()),
    };
    let actual = format!("{}\n", render(tools));
    if std::env::var_os("TOOLWIRE_BLESS").is_some_and(|v| v == "1") {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|e| panic!("toolwire::testing: cannot create {}: {e}", dir.display()));
        }
        std::fs::write(path, &actual)
            .unwrap_or_else(|e| panic!("toolwire::testing: cannot write {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "toolwire::testing: cannot read the golden tool list {}: {e}; run with TOOLWIRE_BLESS=1 to create it",
            path.display()
        )
    });
    if let Some(problem) = first_difference(&expected, &actual) {
        panic!(
            "the tool list differs from {} {problem}\n(run with TOOLWIRE_BLESS=1 to accept it, then review the diff)",
            path.display()
        );
    }
}

/// The entries as pretty JSON with every object's members sorted.
fn render(tools: Vec<Value>) -> String {
    let canonical = crate::schema::canonical_json(&Value::Array(tools));
    let sorted: Value = serde_json::from_str(&canonical).expect("canonical JSON is JSON");
    serde_json::to_string_pretty(&sorted).expect("a Value always serialises")
}

/// Where `actual` first differs from `expected`, in words; `None` when they are equal.
fn first_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let (mut e, mut a) = (expected.lines(), actual.lines());
    let mut line = 1;
    loop {
        match (e.next(), a.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (Some(x), Some(y)) => return Some(format!("at line {line}:\n expected: {x}\n   actual: {y}")),
            (Some(x), None) => return Some(format!("at line {line}: the list ends where the file has: {x}")),
            (None, Some(y)) => return Some(format!("at line {line}: the file ends where the list has: {y}")),
            (None, None) => return Some("in its line endings".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn the_first_difference_is_named_by_its_line() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(first_difference("a\nb\n", "a\nc\n").unwrap(), "at line 2:\n expected: b\n   actual: c");
        assert_eq!(
            first_difference("a\nb\n", "a\n").unwrap(),
            "at line 2: the list ends where the file has: b"
        );
        assert_eq!(
            first_difference("a\n", "a\nb\n").unwrap(),
            "at line 2: the file ends where the list has: b"
        );
        assert_eq!(first_difference("a\r\n", "a\n").unwrap(), "in its line endings");
    }
}
