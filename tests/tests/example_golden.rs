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

/// Every README ```rust block whose paragraph names an example (`examples/src/bin/NAME.rs`)
/// shows that example's own lines, in order: the snippets a reader copies compile, because
/// the example does (and `tests/tests/serving_examples.rs` runs it). Comments, whole-line or
/// after two spaces, are the README's own and are not compared; indentation is not either.
#[test]
fn the_readmes_serving_snippets_are_the_examples_lines() {
    let root = toolwire_tests::tests_dir().join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let norm = |line: &str| -> String {
        let line = line.trim();
        if line.starts_with("//") {
            return String::new();
        }
        match line.find("  //") {
            Some(at) => line[..at].trim_end().to_owned(),
            None => line.to_owned(),
        }
    };
    let mut checked = Vec::new();
    let mut rest = readme.as_str();
    while let Some((before, after)) = rest.split_once("```rust\n") {
        let (code, next) = after.split_once("```\n").expect("a closed ```rust block");
        rest = next;
        let paragraph = before.rsplit("```").next().unwrap_or(before);
        let Some(name) = paragraph
            .rsplit("examples/src/bin/")
            .next()
            .filter(|_| paragraph.contains("examples/src/bin/"))
            .and_then(|tail| tail.split_once(".rs"))
            .map(|(name, _)| name.to_owned())
        else {
            continue;
        };
        let source = std::fs::read_to_string(root.join(format!("examples/src/bin/{name}.rs")))
            .unwrap_or_else(|e| panic!("README names examples/src/bin/{name}.rs: {e}"));
        let lines: Vec<String> = source.lines().map(norm).filter(|l| !l.is_empty()).collect();
        let mut at = 0;
        for shown in code.lines().map(norm).filter(|l| !l.is_empty()) {
            match lines[at..].iter().position(|l| *l == shown) {
                Some(i) => at += i + 1,
                None => panic!(
                    "README's snippet for examples/src/bin/{name}.rs shows a line the example does not \
                     have (after its line {at} of code): {shown}"
                ),
            }
        }
        checked.push(name);
    }
    assert_eq!(checked, ["live-http", "untrusted", "redis-replica"], "the README's example snippets");
}
