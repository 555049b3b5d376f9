//! The macro and the runtime check one tool-name grammar. The proc-macro crate cannot depend
//! on the runtime, so its checker is included here by path and both judge one corpus.

#[path = "../../macros/src/tool/name.rs"]
mod macro_grammar;

#[test]
fn the_macro_and_the_runtime_agree_on_tool_names() {
    let long = |n: usize| "a".repeat(n);
    let mut corpus: Vec<String> = [
        "",
        "a",
        "A",
        "0",
        "_",
        "-",
        ".",
        "run_check",
        "math.add",
        "a-b_c.d",
        "UPPER_lower-09",
        "a b",
        "a/b",
        "a:b",
        "a*",
        "é",
        "名前",
        "tab\t",
        "new\nline",
        "x\0",
        "semi;colon",
        "\u{200b}",
        "a,b",
        "quote'",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    corpus.extend([long(1), long(127), long(128), long(129), long(1000)]);
    // Every single byte, ASCII or not, alone and after a valid prefix.
    for c in (0u32..=0x24f).filter_map(char::from_u32) {
        corpus.push(c.to_string());
        corpus.push(format!("ok{c}"));
    }
    for name in &corpus {
        assert_eq!(
            macro_grammar::is_valid_tool_name(name),
            toolwire::registry::is_valid_tool_name(name),
            "the macro and the runtime disagree on {name:?}"
        );
    }
    // The corpus exercises both answers.
    assert!(corpus.iter().any(|n| toolwire::registry::is_valid_tool_name(n)));
    assert!(corpus.iter().any(|n| !toolwire::registry::is_valid_tool_name(n)));
}
