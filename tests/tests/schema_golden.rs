//! Golden schemas: each signature's advertised `inputSchema` (and `outputSchema`, where it
//! has one) compared byte for byte with `tests/golden/schemas/<tool>.json`.
//!
//! `.ci/run` runs this file twice, with serde_json's `preserve_order` off and on
//! (`--features preserve_order`), so the same golden bytes prove the canonical form does not
//! depend on map order.

use std::collections::BTreeMap;

use toolwire::Tool;
use toolwire_tests::assert_golden;

#[path = "support/signatures.rs"]
mod signatures;

use signatures::*;

fn check(tool: &dyn Tool) {
    let info = tool.info();
    assert_golden(format!("schemas/{}.input.json", info.name()), info.input_schema().as_str());
    if let Some(out) = info.output_schema() {
        assert_golden(format!("schemas/{}.output.json", info.name()), out.as_str());
    }
}

#[test]
fn every_signature_matches_its_golden_file() {
    for tool in all() {
        check(&*tool);
    }
}

#[test]
fn the_bytes_are_the_parsed_value_in_canonical_form() {
    for tool in all() {
        let schema = tool.info().input_schema();
        let reparsed: serde_json::Value = serde_json::from_str(schema.as_str()).unwrap();
        assert_eq!(&reparsed, schema.value());
        assert_eq!(toolwire::schema::canonical_json(&reparsed), schema.as_str());
    }
}

#[test]
fn no_parameters_advertise_the_closed_empty_object() {
    assert_eq!(
        no_params {}.info().input_schema().as_str(),
        r#"{"additionalProperties":false,"type":"object"}"#
    );
}

#[test]
fn the_schema_is_built_once_and_shared() {
    let a = primitives {}.info().input_schema().as_str().as_ptr();
    let b = primitives {}.info().input_schema().as_str().as_ptr();
    assert_eq!(a, b, "a tool's schema must be generated at most once per process");
}

#[test]
fn golden_directory_has_no_stale_files() {
    let dir = toolwire_tests::tests_dir().join("golden/schemas");
    let mut expected = BTreeMap::new();
    for tool in all() {
        let info = tool.info();
        expected.insert(format!("{}.input.json", info.name()), ());
        if info.output_schema().is_some() {
            expected.insert(format!("{}.output.json", info.name()), ());
        }
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(expected.contains_key(&name), "golden file {name} belongs to no signature; delete it");
    }
}

/// The second `.ci/run` pass really has the other map order: with `preserve_order`, maps
/// keep insertion order and plain serde_json output is no longer sorted, so only the
/// canonical writer keeps the golden bytes. The schema is rebuilt as a value in the order
/// its parts are put together (`type`, `properties`, `required`, then
/// `additionalProperties`): its own value is parsed from the canonical text, so it would
/// keep the canonical order either way.
#[test]
fn this_build_has_the_map_order_it_claims() {
    let mut m = serde_json::Map::new();
    m.insert("b".into(), 1.into());
    m.insert("a".into(), 2.into());
    let preserving = m.keys().next().map(String::as_str) == Some("b");
    assert_eq!(preserving, cfg!(feature = "preserve_order"));

    let schema = signatures::documented {}.info().input_schema().clone();
    let value = schema.value();
    let built = serde_json::json!({
        "type": "object",
        "properties": value["properties"],
        "required": value["required"],
        "additionalProperties": false,
    });
    let plain = serde_json::to_string(&built).unwrap();
    assert_eq!(plain == schema.as_str(), !preserving, "plain: {plain}");
    assert_eq!(toolwire::schema::canonical_json(&built), schema.as_str());
}
