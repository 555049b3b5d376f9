//! MCP's `_meta` key grammar (2025-11-25, "`_meta`"): the one check both `#[tool]` and `ToolInfo::with_meta` use.
//!
//! `toolwire-macros` refuses at compile time exactly what `toolwire::tool::check_meta_key`
//! refuses at run time: one grammar, written once.

/// Why a key is refused: `Some("grammar" | "reserved" | "toolwire")`, or `None` when usable.
pub fn meta_key_problem(key: &str) -> Option<&'static str> {
    if key == "toolwire" {
        return Some("toolwire");
    }
    let (prefix, name) = match key.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let labels: Vec<&str> = prefix.split('.').collect();
        let label_ok = |l: &str| {
            let b = l.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphabetic()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        };
        if !labels.iter().all(|l| label_ok(l)) {
            return Some("grammar");
        }
        if labels.get(1).is_some_and(|l| *l == "modelcontextprotocol" || *l == "mcp") {
            return Some("reserved");
        }
    }
    let b = name.as_bytes();
    if b.is_empty() {
        return if prefix.is_some() { None } else { Some("grammar") };
    }
    let ok = b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'));
    if ok { None } else { Some("grammar") }
}
