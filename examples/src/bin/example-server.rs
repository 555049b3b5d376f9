//! The example MCP server: the tools of `toolwire_examples::example_tools`, served over
//! stdio by `serve_registry!`. Every interop test drives this binary.
//!
//! `cargo run -p toolwire-examples --bin example-server -- --help`

use toolwire_examples::example_tools::{
    add, create_ticket, deploy, echo, fail, panic, progress, run_check, slow,
};

fn main() {
    toolwire::serve_registry!(
        name = "toolwire-example",
        tools = [echo, add, slow, fail, panic, progress, create_ticket, run_check, deploy],
    );
}
