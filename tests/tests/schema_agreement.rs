//! Validation and the advertised schema agree.
//!
//! For every golden signature, a corpus of argument objects (one valid object generated from
//! the schema, then every mutation of every node in it: each other JSON type, integer
//! bounds and their neighbours, integral floats, removed and unknown members) goes through
//! both the tool's own validation and the `jsonschema` crate on the advertised schema.
//!
//! - Both must accept, or both must reject.
//! - When both reject, they must blame the same thing: our error names the top-level
//!   argument the schema's first error points into, or (for unknown and missing arguments)
//!   the schema also objects at the root.

use serde_json::{Map, Value, json};
use toolwire::args::ArgumentProblem;
use toolwire::{Context, Tool, ToolError};

#[path = "support/signatures.rs"]
mod signatures;

/// Follow a local `$ref`.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut s = schema;
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local refs only");
        s = &root["$defs"][name];
    }
    s
}

/// One valid instance of `schema`; `variant` picks which alternative of each `oneOf`/`anyOf`.
fn valid(root: &Value, schema: &Value, variant: usize) -> Value {
    let s = resolve(root, schema);
    if s == &Value::Bool(true) {
        return json!({"any": [1, "x"]});
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(e)) = s.get("enum") {
        return e[0].clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alts)) = s.get(key) {
            return valid(root, &alts[variant % alts.len()], variant);
        }
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts[0].as_str().unwrap(),
        _ => panic!("no type in {s}"),
    };
    match ty {
        "boolean" => json!(true),
        "integer" => json!(7),
        "number" => json!(1.5),
        "string" => {
            if s.get("maxLength") == Some(&json!(1)) {
                json!("c")
            } else {
                json!("text")
            }
        }
        "null" => Value::Null,
        "array" => {
            if let Some(Value::Array(prefix)) = s.get("prefixItems") {
                Value::Array(prefix.iter().map(|p| valid(root, p, variant)).collect())
            } else {
                let n = s.get("minItems").and_then(Value::as_u64).unwrap_or(1);
                Value::Array((0..n).map(|_| valid(root, &s["items"], variant)).collect())
            }
        }
        "object" => {
            let mut m = Map::new();
            if let Some(Value::Object(props)) = s.get("properties") {
                for (k, v) in props {
                    m.insert(k.clone(), valid(root, v, variant));
                }
            } else if let Some(ap) = s.get("additionalProperties").filter(|v| v.is_object()) {
                m.insert("key".into(), valid(root, ap, variant));
            }
            Value::Object(m)
        }
        other => panic!("unknown type {other}"),
    }
}

/// Values to put in place of a node: every JSON type, and the edges of numbers.
fn replacements(node: &Value) -> Vec<Value> {
    let mut out = vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(""),
        json!("zz"),
        json!("low"),
        json!([]),
        json!([1, 2]),
        json!({}),
        json!(128),
        json!(256),
        json!(-129),
        json!(65536),
        json!(4294967296u64),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e3),
    ];
    if let Value::Object(m) = node {
        for k in m.keys() {
            let mut without = m.clone();
            without.remove(k);
            out.push(Value::Object(without));
        }
        let mut extra = m.clone();
        extra.insert("unexpected".into(), json!(1));
        out.push(Value::Object(extra));
    }
    if let Value::Array(items) = node {
        let mut longer = items.clone();
        if let Some(first) = items.first() {
            longer.push(first.clone());
        }
        out.push(Value::Array(longer));
    }
    out
}

/// Every variant of `value` with one node replaced, paired with the replaced node's path.
fn mutations(value: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
    for r in replacements(value) {
        out.push((path.clone(), r));
    }
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                path.push(k.clone());
                let mut sub = Vec::new();
                mutations(v, path, &mut sub);
                for (p, replaced) in sub {
                    let mut copy = m.clone();
                    copy.insert(k.clone(), replaced);
                    out.push((p, Value::Object(copy)));
                }
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(i.to_string());
                let mut sub = Vec::new();
                mutations(v, path, &mut sub);
                for (p, replaced) in sub {
                    let mut copy = items.clone();
                    copy[i] = replaced;
                    out.push((p, Value::Array(copy)));
                }
                path.pop();
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn validation_and_schema_accept_and_reject_the_same_values() {
    let ctx = Context::new();
    let mut checked = 0usize;
    let mut rejected = 0usize;
    for tool in signatures::all() {
        let info = tool.info();
        let schema = info.input_schema().value().clone();
        let validator = jsonschema::validator_for(&schema).expect("advertised schema compiles");
        let mut corpus = Vec::new();
        for variant in 0..3 {
            let base = valid(&schema, &schema, variant);
            assert!(validator.is_valid(&base), "{}: generated instance {base} is invalid", info.name());
            mutations(&base, &mut Vec::new(), &mut corpus);
            corpus.push((vec![], base));
        }
        for (_, args) in corpus {
            let schema_ok = validator.is_valid(&args);
            let outcome = tool.call_json(args.clone(), &ctx).await;
            let ours = match &outcome {
                Err(ToolError::Arguments(e)) => Err(e.clone()),
                _ => Ok(()),
            };
            checked += 1;
            match (&ours, schema_ok) {
                (Ok(()), true) => {}
                (Err(e), false) => {
                    rejected += 1;
                    let first =
                        validator.iter_errors(&args).next().expect("an invalid instance has an error");
                    let pointer = first.instance_path().to_string();
                    let top = pointer.trim_start_matches('/').split('/').next().unwrap_or("").to_owned();
                    match &e.problem {
                        ArgumentProblem::WrongType { name, .. } | ArgumentProblem::Invalid { name, .. } => {
                            assert_eq!(
                                &top,
                                name,
                                "{}: {args}: we blamed '{name}', the schema blamed '{pointer}' ({first})",
                                info.name()
                            );
                        }
                        ArgumentProblem::UnknownOrMissing { .. } | ArgumentProblem::NotAnObject { .. } => {
                            assert!(
                                validator
                                    .iter_errors(&args)
                                    .any(|e| e.instance_path().to_string().is_empty()),
                                "{}: {args}: we objected at the root ({e}), the schema did not",
                                info.name()
                            );
                        }
                        other => panic!("{}: unexpected problem {other:?}", info.name()),
                    }
                }
                (Ok(()), false) => panic!(
                    "{}: validation accepted {args} but the schema rejects it: {}",
                    info.name(),
                    validator.iter_errors(&args).map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
                ),
                (Err(e), true) => {
                    panic!("{}: the schema accepts {args} but validation rejected it: {e}", info.name())
                }
            }
        }
    }
    // The corpus is broad enough to mean something.
    assert!(checked > 4000, "only {checked} cases");
    assert!(rejected > 2000, "only {rejected} rejections");
}

#[tokio::test]
async fn non_objects_are_refused_by_both() {
    let tool = signatures::documented {};
    let validator = jsonschema::validator_for(tool.info().input_schema().value()).unwrap();
    for args in [json!([]), json!("x"), json!(1), Value::Null, json!(true)] {
        assert!(!validator.is_valid(&args));
        let err = tool.call_json(args.clone(), &Context::new()).await.unwrap_err();
        assert!(
            err.to_string()
                .starts_with("tool 'documented' call rejected: arguments must be a JSON object, got "),
            "{err}"
        );
    }
}
