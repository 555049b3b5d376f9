//! Shared support for toolwire's end-to-end and interop tests.

pub mod authz;
pub mod cluster;
pub mod example_server;
pub mod http;
pub mod redis;
pub mod remote_math;

use std::path::{Path, PathBuf};

/// The `tests/` directory of the workspace (where `golden/` and `peers/` live).
pub fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compare `actual` with the golden file at `tests/golden/<rel>`, byte for byte.
///
/// With `TOOLWIRE_BLESS=1` the file is (re)written instead; review the diff before
/// committing it.
pub fn assert_golden(rel: impl AsRef<Path>, actual: &str) {
    let path = tests_dir().join("golden").join(rel.as_ref());
    if std::env::var_os("TOOLWIRE_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("golden files live in a directory"))
            .expect("create golden dir");
        std::fs::write(&path, format!("{actual}\n")).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("cannot read golden file {}: {e}; run with TOOLWIRE_BLESS=1 to create it", path.display())
    });
    // Golden files end in one newline so editors leave them alone; the bytes before it
    // must match exactly.
    let expected = expected.strip_suffix('\n').unwrap_or(&expected);
    assert!(
        expected == actual,
        "golden mismatch for {}\n expected: {expected}\n   actual: {actual}\n(run with TOOLWIRE_BLESS=1 to accept, then review the diff)",
        path.display()
    );
}
