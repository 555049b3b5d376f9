//! Properties, on generated inputs (proptest, a few hundred cases each), and the fuzz
//! targets' committed inputs replayed.
//!
//! - The protocol codec round-trips: a request id, and each kind of envelope this crate
//!   writes, decodes to what was encoded. The hand-read `tools/call` reads what the serde
//!   decode reads, and its value finder what serde_json reads.
//! - `canonical_json` is idempotent, reads back as the value it wrote, and writes RFC 8785's
//!   Appendix B numbers and §3.2.3 member order exactly.
//! - Validation and the `jsonschema` crate agree on generated schemas (the constructs
//!   schemars writes) and on generated arguments: valid instances, their mutations (the
//!   helpers of tests/tests/schema_agreement.rs) and arbitrary objects; and on the golden
//!   signatures' schemas with arbitrary values put in place of any node.
//! - The HTTP socket layer's head scan reads a head split anywhere as its line-by-line
//!   reference reads it whole.
//! - Every seed and regression input under fuzz/ goes through its target's entry point
//!   without a panic, so a crash the fuzzer found stays fixed in a plain `cargo test`.

use std::path::Path;

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use toolwire::__private::fuzz::{self, Decoded};
use toolwire::protocol::RequestId;
use toolwire::schema::canonical_json;
use toolwire::{Context, ToolError};

#[path = "support/agreement.rs"]
mod agreement;
#[path = "support/signatures.rs"]
mod signatures;

use agreement::{judge, mutations, valid};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

// ---- Generators ---------------------------------------------------------------------------

fn request_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Number),
        prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), Just(-1)].prop_map(RequestId::Number),
        any::<String>().prop_map(RequestId::String),
        "[0-9a-f\"\\\\/\u{0}-\u{1f}]{0,8}".prop_map(RequestId::String),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[a-z/_\"\\\\\u{0}-\u{1f}\u{7f}-\u{a0}\u{2028}\u{fffd}]{0,12}"]
}

/// Single-byte edits of `bytes`, each `(at, kind, byte)`: `byte` inserted at `at` (kind 0),
/// put in place of the byte at `at` (kind 1), or the byte at `at` removed (kind 2); `at` is
/// taken modulo the length plus one, and a replacement or removal at the end does nothing.
fn edit(bytes: &mut Vec<u8>, edits: Vec<(usize, usize, u8)>) {
    for (at, kind, byte) in edits {
        let at = at % (bytes.len() + 1);
        match kind {
            0 => bytes.insert(at, byte),
            1 if at < bytes.len() => bytes[at] = byte,
            _ if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => {}
        }
    }
}

/// Any JSON value (finite numbers only, as JSON has no others).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-300i64..300).prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f).map(Value::Number)),
        prop_oneof![Just(0.5), Just(1.5), Just(2.0), Just(-0.0), Just(1e21), Just(5e-324)]
            .prop_map(|f| json!(f)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A small JSON value for arguments: short strings from a few letters, small numbers.
fn arg_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-10i64..300).prop_map(Value::from),
        prop_oneof![
            Just(json!(1.5)),
            Just(json!(2.0)),
            Just(json!(-0.5)),
            Just(json!(u64::MAX)),
            Just(json!(i64::MIN))
        ],
        "[a-c]{0,5}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]{1,2}|x|y|text", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A property schema in the subset schemars writes and validation checks, shaped so that
/// `agreement::valid` can build an instance of it (bounds admit 7, 1.5, "text" or "c").
fn schema_node() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        (prop::option::of(-5i64..=7), prop::option::of(7i64..=300), any::<bool>()).prop_map(
            |(min, max, nullable)| {
                let mut s =
                    json!({"type": if nullable { json!(["integer", "null"]) } else { json!("integer") }});
                if let Some(min) = min {
                    s["minimum"] = json!(min);
                }
                if let Some(max) = max {
                    s["maximum"] = json!(max);
                }
                s
            }
        ),
        (prop::option::of(prop_oneof![Just(-1.0), Just(0.0), Just(1.5)]), any::<bool>()).prop_map(
            |(min, excl)| {
                let mut s = json!({"type": "number"});
                if let Some(min) = min {
                    s[if excl && min < 1.5 { "exclusiveMinimum" } else { "minimum" }] = json!(min);
                }
                s
            }
        ),
        (0u64..=1, prop_oneof![Just(None), Just(Some(1u64)), (4u64..=8).prop_map(Some)]).prop_map(
            |(min, max)| {
                let mut s = json!({"type": "string"});
                if min > 0 {
                    s["minLength"] = json!(min);
                }
                if let Some(max) = max {
                    s["maxLength"] = json!(max);
                }
                s
            }
        ),
        prop::collection::btree_set("[a-c]{1,3}", 1..4)
            .prop_map(|e| json!({"type": "string", "enum": e.into_iter().collect::<Vec<_>>()})),
        "[a-c]{1,3}".prop_map(|c| json!({"type": "string", "const": c})),
        Just(json!(true)),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            (inner.clone(), 0u64..3, prop::option::of(0u64..2), any::<bool>()).prop_map(|(items, min, more, unique)| {
                let mut s = json!({"type": "array", "items": items});
                if min > 0 {
                    s["minItems"] = json!(min);
                }
                if let Some(more) = more {
                    s["maxItems"] = json!(min.max(1) + more);
                }
                if unique && min <= 1 {
                    s["uniqueItems"] = json!(true);
                }
                s
            }),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|prefix| json!({"type": "array", "prefixItems": prefix, "minItems": prefix.len(), "maxItems": prefix.len()})),
            (prop::collection::btree_map("[a-c]|x|y", inner.clone(), 1..4), any::<Index>()).prop_map(|(props, req)| {
                let names: Vec<String> = props.keys().cloned().collect();
                let required: Vec<&String> = names.iter().take(req.index(names.len() + 1)).collect();
                json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
            }),
            inner.clone().prop_map(|v| json!({"type": "object", "additionalProperties": v})),
            // Alternatives of distinct types, so exactly one matches a valid instance.
            (inner.clone(), any::<bool>()).prop_map(|(obj, any_of)| {
                let alts = json!([{"type": "string", "maxLength": 4}, {"type": "integer"}, {"type": "object", "properties": {"v": obj}, "required": ["v"], "additionalProperties": false}]);
                json!({ if any_of { "anyOf" } else { "oneOf" }: alts })
            }),
            inner.prop_map(|v| json!({"$ref": "", "__def": v})),
        ]
    })
}

/// Move every `{"$ref", "__def"}` node's definition into `defs` under a name of its own,
/// so every ref resolves and none is a cycle.
fn hoist(node: &mut Value, defs: &mut Map<String, Value>) {
    match node {
        Value::Object(m) => {
            if let Some(mut def) = m.remove("__def") {
                hoist(&mut def, defs);
                let name = format!("D{}", defs.len());
                m.insert("$ref".into(), json!(format!("#/$defs/{name}")));
                defs.insert(name, def);
            }
            m.values_mut().for_each(|v| hoist(v, defs));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| hoist(v, defs)),
        _ => {}
    }
}

/// An input schema: `{"properties", "required", "$defs"}` for `fuzz::arg_spec`.
fn input_schema() -> impl Strategy<Value = Value> {
    (prop::collection::btree_map("[a-c]|text|count", schema_node(), 0..4), any::<Index>()).prop_map(
        |(props, req)| {
            let mut props = Value::Object(props.into_iter().collect());
            let mut defs = Map::new();
            hoist(&mut props, &mut defs);
            let names: Vec<String> =
                props.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
            let required: Vec<&String> = names.iter().take(req.index(names.len() + 1)).collect();
            json!({"properties": props, "required": required, "$defs": defs})
        },
    )
}

fn raw(v: &Value) -> Box<RawValue> {
    RawValue::from_string(v.to_string()).expect("a Value writes valid JSON")
}

// ---- The protocol codec ---------------------------------------------------------------------

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn request_ids_round_trip(id in request_id()) {
        prop_assert_eq!(fuzz::decode_id(&id.to_json()), Some(id));
    }

    #[test]
    fn requests_round_trip(id in request_id(), method in text()) {
        let line = fuzz::encode_request(&id, &method);
        prop_assert_eq!(fuzz::decode(&line), Ok(Decoded::Request { id, method, params: None }));
    }

    #[test]
    fn notifications_round_trip(method in text(), params in prop::collection::btree_map(text(), json_value(), 0..4)) {
        let params = canonical_json(&Value::Object(params.into_iter().collect()));
        let line = fuzz::encode_notification(&method, &params);
        prop_assert_eq!(fuzz::decode(&line), Ok(Decoded::Notification { method, params: Some(params) }));
    }

    #[test]
    fn results_round_trip(id in request_id(), body in prop::collection::btree_map(text(), json_value(), 0..4)) {
        let body = canonical_json(&Value::Object(body.into_iter().collect()));
        let line = fuzz::encode_result(&id, &body);
        prop_assert_eq!(fuzz::decode(&line), Ok(Decoded::Response { id: Some(id), outcome: Ok(body) }));
    }

    #[test]
    fn errors_round_trip(id in prop::option::of(request_id()), code in any::<i64>(), message in text()) {
        let line = fuzz::encode_error(id.as_ref(), code, &message);
        prop_assert_eq!(fuzz::decode(&line), Ok(Decoded::Response { id, outcome: Err((Some(code), Some(message))) }));
    }

    #[test]
    fn what_the_decoder_reads_it_reads_again_written_back(line in prop_oneof![
        json_value().prop_map(|v| v.to_string()),
        (request_id(), text(), json_value()).prop_map(|(id, m, p)| {
            json!({"jsonrpc": "2.0", "id": serde_json::from_str::<Value>(&id.to_json()).unwrap(), "method": m, "params": p}).to_string()
        }),
    ]) {
        // Never a panic; and the fuzz target's own round-trip check holds.
        fuzz::envelope(line.as_bytes());
    }

    /// `tools/call` requests with their members in any order, some repeated, missing or
    /// wrong, and params of any shape: the one-pass decode agrees with the general path on
    /// each it reads (the check inside the `envelope` target).
    #[test]
    fn the_one_pass_tools_call_decode_agrees_with_the_general_path(
        id in request_id(),
        name in prop_oneof![3 => text().prop_map(Value::from), 1 => json_value()],
        arguments in prop::option::of(json_value()),
        meta in prop::option::of(prop_oneof![
            3 => Just(json!({"progressToken": 1, "io.modelcontextprotocol/logLevel": "info"})),
            1 => json_value(),
        ]),
        params in prop_oneof![
            6 => Just(None),
            1 => Just(Some(json!(["echo", {"text": "hi"}]))),
            1 => json_value().prop_map(Some),
        ],
        order in prop_oneof![
            2 => Just(vec![0, 1, 2, 3]),
            // The common order with one more member anywhere: a repeat, or a wrong one.
            2 => (0usize..9, 0usize..5).prop_map(|(extra, at)| {
                let mut order = vec![0, 1, 2, 3];
                order.insert(at, extra);
                order
            }),
            3 => prop::sample::subsequence((0..9).collect::<Vec<usize>>(), 2..6).prop_shuffle(),
            1 => prop::collection::vec(0usize..9, 1..8),
        ],
    ) {
        let id = id.to_json();
        let mut object = Map::new();
        object.insert("name".into(), name);
        if let Some(a) = arguments { object.insert("arguments".into(), a); }
        if let Some(m) = meta { object.insert("_meta".into(), m); }
        let params = params.unwrap_or(Value::Object(object)).to_string();
        let members = [
            r#""jsonrpc":"2.0""#.to_owned(),
            format!(r#""id":{id}"#),
            r#""method":"tools/call""#.to_owned(),
            format!(r#""params":{params}"#),
            r#""method":"tools\/call""#.to_owned(),
            r#""jsonrpc":"1.0""#.to_owned(),
            r#""other":{"method":"tools/call"}"#.to_owned(),
            r#""method":"tools/list""#.to_owned(),
            r#""result":{}"#.to_owned(),
        ];
        let line = format!("{{{}}}", order.iter().map(|&i| members[i].as_str()).collect::<Vec<_>>().join(","));
        fuzz::envelope(line.as_bytes());
    }

    /// Arguments objects of every value kind, names with escapes, any spacing: the members
    /// found by structure are serde's (the check inside the `arguments` target).
    #[test]
    fn argument_members_are_found_as_serde_finds_them(
        members in prop::collection::vec((text(), json_value()), 0..5),
        spaced in any::<bool>(),
    ) {
        let body: Vec<String> = members
            .iter()
            .map(|(name, value)| {
                let (name, value) = (Value::from(name.as_str()).to_string(), value.to_string());
                if spaced { format!("\n {name} :\t{value} ") } else { format!("{name}:{value}") }
            })
            .collect();
        let object = format!("{{{}}}", body.join(","));
        fuzz::arguments(format!("{{}}\n{object}").as_bytes());
    }

    /// The common `tools/call` line with a few single-byte edits (whitespace or a JSON
    /// character inserted, a byte replaced or deleted): whatever the hand scan reads, the
    /// serde decode and the general path read the same (the checks inside the `envelope`
    /// target).
    #[test]
    fn edits_of_the_common_tools_call_are_read_as_the_general_path_reads_them(
        id in prop_oneof![
            request_id().prop_map(|id| id.to_json()),
            "-?0?[0-9]{0,19}(\\.[0-9])?([eE]-?[0-9])?",
            r#""([a-z]|\\[n"\\u]){0,6}""#,
        ],
        arguments in prop::option::of(json_value()),
        meta in prop::option::of(json_value()),
        edits in prop::collection::vec((0usize..400, 0usize..3, prop::sample::select(
            b" \t\n\r{}[],:\"\\0123456789-+.eEnulltrfa_".to_vec()
        )), 0..4),
    ) {
        let mut params = r#"{"name":"echo""#.to_owned();
        if let Some(a) = arguments { params += &format!(r#","arguments":{a}"#); }
        if let Some(m) = meta { params += &format!(r#","_meta":{m}"#); }
        let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}}}"#)
            .into_bytes();
        edit(&mut line, edits);
        fuzz::envelope(&line);
    }

    /// Any JSON value, pretty or compact, with a few single-byte edits: the call scan's
    /// value finder reads it exactly when serde_json does, to the same end (the checks
    /// inside the `raw_value` target).
    #[test]
    fn the_value_finder_reads_what_serde_json_reads(
        value in json_value(),
        pretty in any::<bool>(),
        edits in prop::collection::vec((0usize..400, 0usize..3, prop::sample::select(
            b" \t\n\r{}[],:\"\\/0123456789-+.eEnulltrfabu\x01".to_vec()
        )), 0..4),
    ) {
        let text = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) };
        let mut text = text.expect("a Value is written").into_bytes();
        edit(&mut text, edits);
        fuzz::raw_value(&text);
    }
}

// ---- The HTTP head scan -------------------------------------------------------------------

/// A request head's lines: the framing headers in any case, lines that start as they do and
/// are not them, and lines of `\r` alone.
fn head_line() -> impl Strategy<Value = Vec<u8>> {
    let lines: &[&[u8]] = &[
        b"POST /mcp HTTP/1.1",
        b"Host: 127.0.0.1",
        b"Content-Length: 12",
        b"content-length:0",
        b"Transfer-Encoding: chunked",
        b"TRANSFER-ENCODING: gzip, chunked",
        b"Content-Type: application/json",
        b"TE: trailers",
        b"Trailer: x",
        b"Content-Lengthy: 1",
        b"Transfer-Encoding : chunked",
        b"Accept: application/json, text/event-stream",
        b"",
        b"\r",
        b"c",
    ];
    (prop::sample::select(lines), any::<bool>())
        .prop_map(|(line, upper)| if upper { line.to_ascii_uppercase() } else { line.to_vec() })
}

proptest! {
    #![proptest_config(config(500))]

    /// Heads of such lines, each ended by `\n` or `\r\n`, with `\r` put in at a few
    /// places and perhaps cut short, read in three pieces: the scan says what its reference
    /// says (the check inside the `head_scan` target).
    #[test]
    fn the_head_scan_reads_as_its_reference(
        lines in prop::collection::vec((head_line(), any::<bool>()), 1..8),
        returns in prop::collection::vec(any::<Index>(), 0..3),
        keep in any::<Index>(),
        cuts in any::<[u8; 2]>(),
    ) {
        let mut head = Vec::new();
        for (line, crlf) in lines {
            head.extend_from_slice(&line);
            head.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        for at in returns {
            let at = at.index(head.len() + 1);
            head.insert(at, b'\r');
        }
        head.truncate(keep.index(head.len() + 1).max(head.len() * 3 / 4));
        let mut data = cuts.to_vec();
        data.extend_from_slice(&head);
        fuzz::head_scan(&data);
    }
}

// ---- Canonical JSON -------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn canonical_json_is_idempotent_and_reads_back(v in json_value()) {
        let once = canonical_json(&v);
        let back: Value = serde_json::from_str(&once).expect("canonical JSON parses");
        prop_assert!(same(&back, &v), "{} read back as {}", v, back);
        prop_assert_eq!(canonical_json(&back), once);
    }
}

/// Equal, a number being equal to any of its forms (`2.0` is written `2`, read back as an
/// integer).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(x), Some(y), _, _) => x == y,
            (_, _, Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// RFC 8785, Appendix B: IEEE 754 doubles and their canonical text (NaN and the infinities,
/// which serde_json cannot hold, are left out).
#[test]
fn rfc8785_appendix_b_numbers() {
    let vectors: [(u64, &str); 25] = [
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
        (0x3ff0000000000000, "1"),
    ];
    for (bits, want) in vectors {
        let f = f64::from_bits(bits);
        let n = serde_json::Number::from_f64(f).expect("finite");
        assert_eq!(canonical_json(&Value::Number(n)), want, "{bits:016x}");
    }
    for bits in [0x7fffffffffffffffu64, 0x7ff0000000000000, 0xfff0000000000000] {
        assert!(serde_json::Number::from_f64(f64::from_bits(bits)).is_none(), "{bits:016x} has no JSON form");
    }
}

/// RFC 8785, §3.2.3: members sorted by the UTF-16 code units of their names.
#[test]
fn rfc8785_member_order() {
    let v = json!({
        "\u{20ac}": "Euro Sign",
        "\r": "Carriage Return",
        "\u{fb33}": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\u{1f600}": "Emoji: Grinning Face",
        "\u{80}": "Control",
        "\u{f6}": "Latin Small Letter O With Diaeresis",
    });
    let want = concat!(
        "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",",
        "\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",",
        "\"\u{1f600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}",
    );
    assert_eq!(canonical_json(&v), want);
}

// ---- Validation against the `jsonschema` crate ------------------------------------------------

/// Ours on `args` against `schema` (`fuzz::arg_spec`'s shape), and the verdict.
fn agree_on(schema: &Value, args: &Value, blame: bool) -> Result<(), TestCaseError> {
    let spec = fuzz::arg_spec(schema);
    let advertised = spec.input_schema();
    let validator = jsonschema::validator_for(&advertised)
        .map_err(|e| TestCaseError::fail(format!("{advertised} does not compile: {e}")))?;
    let ours = fuzz::check_arguments(&spec, &raw(args));
    if blame {
        judge("generated", &validator, args, &ours)
            .map(drop)
            .map_err(|m| TestCaseError::fail(format!("{m}\nschema {advertised}")))
    } else if ours.is_ok() == validator.is_valid(args) {
        Ok(())
    } else {
        Err(TestCaseError::fail(format!(
            "{advertised}: ours {ours:?}, jsonschema {}",
            validator.is_valid(args)
        )))
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn generated_schemas_agree_on_valid_instances_and_their_mutations(
        schema in input_schema(), variant in 0usize..3, pick in any::<Index>(),
    ) {
        let advertised = fuzz::arg_spec(&schema).input_schema();
        let base = valid(&advertised, &advertised, variant);
        agree_on(&schema, &base, true)?;
        prop_assert!(fuzz::check_arguments(&fuzz::arg_spec(&schema), &raw(&base)).is_ok(), "{base} is valid");
        let mut corpus = Vec::new();
        mutations(&base, &mut Vec::new(), &mut corpus);
        let (_, mutated) = &corpus[pick.index(corpus.len())];
        agree_on(&schema, mutated, true)?;
    }

    #[test]
    fn generated_schemas_agree_on_arbitrary_arguments(
        schema in input_schema(),
        args in prop::collection::btree_map("[a-c]|text|count|x", arg_value(), 0..4),
    ) {
        agree_on(&schema, &Value::Object(args.into_iter().collect()), false)?;
    }

    #[test]
    fn golden_signatures_agree_with_any_value_anywhere(
        tool in any::<Index>(), variant in 0usize..3, pick in any::<Index>(), replacement in arg_value(),
    ) {
        let tools = signatures::all();
        let tool = &tools[tool.index(tools.len())];
        let info = tool.info();
        let schema = info.input_schema().value().clone();
        let validator = jsonschema::validator_for(&schema).expect("advertised schema compiles");
        let base = valid(&schema, &schema, variant);
        // Every node's path, then the picked one replaced by an arbitrary value.
        let mut corpus = Vec::new();
        mutations(&base, &mut Vec::new(), &mut corpus);
        let (path, _) = &corpus[pick.index(corpus.len())];
        let mut args = base.clone();
        let mut node = &mut args;
        for key in path {
            node = match node {
                Value::Array(items) => &mut items[key.parse::<usize>().expect("an index")],
                other => &mut other[key.as_str()],
            };
        }
        *node = replacement;
        let rt = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let outcome = rt.block_on(tool.call_json(args.clone(), &Context::new()));
        let ours = match outcome {
            Err(ToolError::Arguments(e)) => Err(e),
            _ => Ok(()),
        };
        judge(info.name(), &validator, &args, &ours).map(drop).map_err(TestCaseError::fail)?;
    }
}

// ---- The fuzz targets' inputs ---------------------------------------------------------------

/// Every file under fuzz/seeds/<target>/ and fuzz/regressions/<target>/, through `run`.
fn replay(target: &str, run: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut seen = 0;
    for dir in ["seeds", "regressions"] {
        let dir = root.join(dir).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
                continue;
            }
            let data = std::fs::read(&path).expect("readable");
            let caught = std::panic::catch_unwind(|| run(&data));
            assert!(caught.is_ok(), "{target}: {} panicked", path.display());
            seen += 1;
        }
    }
    assert!(seen > 0, "no inputs for {target} under {}", root.display());
}

#[test]
fn fuzz_inputs_replay_without_a_panic() {
    replay("envelope", fuzz::envelope);
    replay("raw_value", fuzz::raw_value);
    replay("arguments", fuzz::arguments);
    replay("http_request", fuzz::http_request);
    replay("sse", fuzz::sse);
    replay("adoption", fuzz::adoption);
    replay("head_scan", fuzz::head_scan);
}

#[test]
fn the_http_target_reads_its_seed_format() {
    // A malformed head is skipped, not a panic; a good one reaches the router.
    fuzz::http_request(b"no method line");
    fuzz::http_request(b"POST /mcp\nbad header line\n\n{}");
}
