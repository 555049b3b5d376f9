//! MCP's tool-name grammar, `^[A-Za-z0-9_.-]{1,128}$`, as the macro checks it.
//!
//! This file uses nothing outside itself: a proc-macro crate cannot depend on the runtime,
//! so the ui-tests crate includes it by path and checks, on one corpus, that it agrees with
//! `toolwire::registry::is_valid_tool_name`.

/// Whether `name` matches `^[A-Za-z0-9_.-]{1,128}$`.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}
