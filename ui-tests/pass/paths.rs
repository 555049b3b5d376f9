//! Tools named by path from another module; `pub` tools; docs from `include_str!`.
mod inner {
    /// Inner tool.
    #[toolwire::tool(read_only)]
    pub fn ping() -> &'static str {
        "pong"
    }

    #[doc = include_str!("doc.txt")]
    #[toolwire::tool(read_only)]
    pub fn documented() {}
}

use toolwire::Tool;

fn main() {
    let registry = toolwire::tools![inner::ping, inner::documented].unwrap();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["documented", "ping"]);
    assert_eq!(inner::documented {}.info().description(), "Loaded from a file.");
    assert_eq!(inner::ping(), "pong");
}
