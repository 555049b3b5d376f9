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
