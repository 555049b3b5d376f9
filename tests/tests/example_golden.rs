//! The example server's advertised input schemas, byte for byte, as golden files in
//! `tests/golden/example/<tool>.json` (bless with `TOOLWIRE_BLESS=1`). The peers' interop
//! scripts and the stdio probe compare what goes on the wire against these same files.

use toolwire_examples::example_tools::registry;

#[test]
fn every_example_tool_schema_matches_its_golden_file() {
    let registry = registry().expect("the example tools have unique names");
    let names: Vec<&str> = registry.names().collect();
    assert_eq!(
        names,
        ["add", "create_ticket", "deploy", "echo", "fail", "panic", "progress", "run_check", "slow"]
    );
    for tool in registry.iter() {
        let info = tool.info();
        toolwire_tests::assert_golden(format!("example/{}.json", info.name()), info.input_schema().as_str());
    }
}

/// The README's tour shows the code of its resources and prompt as the tour runs it:
/// `examples/src/tour_surface.rs` between its `tour:begin` and `tour:end` lines, byte for
/// byte, as the README's ```rust block after "<!-- tour_surface.rs -->".
#[test]
fn the_readme_shows_the_tours_resources_and_prompt_as_they_run() {
    let root = toolwire_tests::tests_dir().join("..");
    let source = std::fs::read_to_string(root.join("examples/src/tour_surface.rs")).unwrap();
    let code = source
        .split_once("// tour:begin\n")
        .and_then(|(_, rest)| rest.split_once("// tour:end\n"))
        .map(|(code, _)| code)
        .expect("tour_surface.rs marks its code with tour:begin and tour:end");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let shown = readme
        .split_once("<!-- tour_surface.rs -->\n```rust\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .map(|(shown, _)| shown)
        .expect("the README has the tour_surface.rs block");
    assert_eq!(shown, code, "README.md's tour code differs from examples/src/tour_surface.rs");
}
