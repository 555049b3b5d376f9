//! What the agreement tests share (tests/tests/schema_agreement.rs on a fixed corpus,
//! tests/tests/properties.rs on generated ones): valid instances of a schema, mutations of
//! them, and the verdict on whether validation and the `jsonschema` crate agree.

#![allow(dead_code, unreachable_pub, missing_docs)]

use serde_json::{Map, Value, json};
use toolwire::args::{ArgumentProblem, ToolArgumentError};

/// Follow a local `$ref`.
pub fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut s = schema;
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local refs only");
        s = &root["$defs"][name];
    }
    s
}

/// One valid instance of `schema`; `variant` picks which alternative of each `oneOf`/`anyOf`.
pub fn valid(root: &Value, schema: &Value, variant: usize) -> Value {
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
pub fn replacements(node: &Value) -> Vec<Value> {
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
pub fn mutations(value: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
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

/// Whether validation (`ours`) and the schema's `validator` agree on `args`: both accept,
/// or both reject and blame the same thing (our error names the top-level argument the
/// schema's first error points into; for unknown, missing and non-object arguments the
/// schema also objects at the root). `Ok(true)` when both rejected; `Err` says how they
/// disagree.
pub fn judge(
    tool: &str,
    validator: &jsonschema::Validator,
    args: &Value,
    ours: &Result<(), ToolArgumentError>,
) -> Result<bool, String> {
    match (ours, validator.is_valid(args)) {
        (Ok(()), true) => Ok(false),
        (Err(e), false) => {
            let first = validator.iter_errors(args).next().expect("an invalid instance has an error");
            let pointer = first.instance_path().to_string();
            let top = pointer.trim_start_matches('/').split('/').next().unwrap_or("").to_owned();
            match &e.problem {
                ArgumentProblem::WrongType { name, .. } | ArgumentProblem::Invalid { name, .. } => {
                    if &top != name {
                        return Err(format!(
                            "{tool}: {args}: we blamed '{name}', the schema blamed '{pointer}' ({first})"
                        ));
                    }
                }
                ArgumentProblem::UnknownOrMissing { .. } | ArgumentProblem::NotAnObject { .. } => {
                    if !validator.iter_errors(args).any(|e| e.instance_path().to_string().is_empty()) {
                        return Err(format!(
                            "{tool}: {args}: we objected at the root ({e}), the schema did not"
                        ));
                    }
                }
                other => return Err(format!("{tool}: unexpected problem {other:?}")),
            }
            Ok(true)
        }
        (Ok(()), false) => Err(format!(
            "{tool}: validation accepted {args} but the schema rejects it: {}",
            validator.iter_errors(args).map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
        )),
        (Err(e), true) => Err(format!("{tool}: the schema accepts {args} but validation rejected it: {e}")),
    }
}
