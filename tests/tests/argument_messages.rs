//! The exact messages a model reads when its call was wrong, for the shapes that matter.

use serde_json::json;
use toolwire::{Context, Tool};

#[path = "support/signatures.rs"]
mod signatures;

async fn reject(tool: &dyn Tool, args: serde_json::Value) -> String {
    match tool.call_json(args.clone(), &Context::new()).await {
        Err(e) => e.to_string(),
        Ok(out) => panic!("{args} was accepted: {out:?}"),
    }
}

#[tokio::test]
async fn messages_name_the_tool_the_argument_and_what_was_expected() {
    let cases: Vec<(Box<dyn Tool>, serde_json::Value, &str)> = vec![
        (
            Box::new(signatures::primitives {}),
            json!({}),
            "tool 'primitives' call rejected: missing required argument(s) ['b', 'i8_', 'i16_', 'i32_', 'i64_', 'u8_', 'u16_', 'u32_', 'u64_', 'usize_', 'f32_', 'f64_', 'c', 's']. Accepted arguments: ['b', 'c', 'f32_', 'f64_', 'i16_', 'i32_', 'i64_', 'i8_', 's', 'u16_', 'u32_', 'u64_', 'u8_', 'usize_']",
        ),
        (
            Box::new(signatures::optionals {}),
            json!({"count": -1}),
            "tool 'optionals' call rejected: argument 'count' must be at least 0, got -1",
        ),
        (
            Box::new(signatures::optionals {}),
            json!({"count": "3"}),
            "tool 'optionals' call rejected: argument 'count' must be an integer between 0 and 4294967295, got a string",
        ),
        (
            Box::new(signatures::optionals {}),
            json!({"nested": [1, 2]}),
            "tool 'optionals' call rejected: argument 'nested' must be an object, got an array",
        ),
        (
            Box::new(signatures::nested {}),
            json!({"origin": {"x": 1, "y": 2}, "polygon": {"name": "p", "corners": [[1, 2]]}}),
            "tool 'nested' call rejected: argument 'polygon' at '/corners/0' must be an object, got an array",
        ),
        (
            Box::new(signatures::nested {}),
            json!({"origin": {"x": 1, "y": 2}, "polygon": {"corners": []}}),
            "tool 'nested' call rejected: argument 'polygon' is missing required field(s) ['name']",
        ),
        (
            Box::new(signatures::nested {}),
            json!({"origin": {"x": 1, "y": 2}, "polygon": {"name": "p", "corners": [], "colour": 1}}),
            "tool 'nested' call rejected: argument 'polygon' has unexpected field(s) ['colour']; accepted: ['corners', 'name', 'style']",
        ),
        (
            Box::new(signatures::nested {}),
            json!({"origin": {"x": 1, "y": 2}, "polygon": {"name": "p", "corners": [], "style": {"strokeWidth": 70000}}}),
            "tool 'nested' call rejected: argument 'polygon' at '/style/strokeWidth' must be at most 65535, got 70000",
        ),
        (
            Box::new(signatures::enums {}),
            json!({"level": "urgent", "action": "stop", "target": {"kind": "file", "path": "/"}}),
            "tool 'enums' call rejected: argument 'level' must be one of 'low', 'high', got 'urgent'",
        ),
        (
            Box::new(signatures::enums {}),
            json!({"level": "low", "action": {"jump": 1}, "target": {"kind": "file", "path": "/"}}),
            "tool 'enums' call rejected: argument 'action' must be 'stop', an object with key 'move' or an object with key 'say', got an object with key(s) ['jump']",
        ),
        (
            Box::new(signatures::enums {}),
            json!({"level": "low", "action": "stop", "target": {"kind": "ftp"}}),
            "tool 'enums' call rejected: argument 'target' must be an object with kind 'file' or an object with kind 'url', got an object with kind 'ftp'",
        ),
        (
            Box::new(signatures::enums {}),
            json!({"level": "low", "action": {"move": {"dx": 1}}, "target": {"kind": "file", "path": "/"}}),
            "tool 'enums' call rejected: argument 'action' at '/move' is missing required field(s) ['dy']",
        ),
        (
            Box::new(signatures::sequences {}),
            json!({"list": [1], "pair": [1], "tuple": ["a", true], "grid": []}),
            "tool 'sequences' call rejected: argument 'pair' must have at least 2 item(s), got 1",
        ),
        (
            Box::new(signatures::primitives {}),
            json!({"b": true, "i8_": 1, "i16_": 1, "i32_": 1, "i64_": 1, "u8_": 256, "u16_": 1, "u32_": 1, "u64_": 1, "usize_": 1, "f32_": 1, "f64_": 1, "c": "cc", "s": "s"}),
            "tool 'primitives' call rejected: argument 'u8_' must be at most 255, got 256",
        ),
        (
            Box::new(signatures::defaults {}),
            json!({"retries": null}),
            "tool 'defaults' call rejected: argument 'retries' must be an integer between 0 and 255, got null",
        ),
    ];
    for (tool, args, want) in cases {
        assert_eq!(reject(&*tool, args).await, want);
    }
}
