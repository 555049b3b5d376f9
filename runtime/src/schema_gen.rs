//! Schema generation from Rust types: schemars behind one set of settings (JSON Schema
//! 2020-12, references under `$defs`), plus the one correction toolwire applies.
//!
//! The correction: schemars describes a fixed-width integer by a `format` (`uint32`,
//! `int64`, ...) that JSON Schema validators do not enforce. serde does enforce the width,
//! so the advertised schema would accept values the tool rejects. Every such integer gets
//! the `minimum`/`maximum` its width implies, so schema and validation agree.

use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value};

/// A schema generator with toolwire's settings.
pub(crate) struct SchemaGen {
    generator: SchemaGenerator,
}

impl SchemaGen {
    pub(crate) fn new() -> Self {
        let settings = SchemaSettings::draft2020_12().with(|s| s.meta_schema = None);
        SchemaGen { generator: settings.into_generator() }
    }

    /// The schema of `T`, as a property: inline, or a `$ref` into the definitions.
    pub(crate) fn subschema<T: ?Sized + JsonSchema>(&mut self) -> Value {
        let mut v = self.generator.subschema_for::<T>().to_value();
        bound_integers(&mut v);
        v
    }

    /// The schema of `T` as a document root: `T` inline, what it refers to under `$defs`,
    /// and no `title` (the Rust type's name means nothing to a model).
    pub(crate) fn root<T: ?Sized + JsonSchema>(&mut self) -> Value {
        let mut v = self.generator.root_schema_for::<T>().to_value();
        if let Value::Object(map) = &mut v {
            map.remove("title");
        }
        bound_integers(&mut v);
        v
    }

    /// The definitions gathered so far, corrected.
    pub(crate) fn take_defs(&mut self) -> Map<String, Value> {
        let mut defs = self.generator.take_definitions(true);
        for v in defs.values_mut() {
            bound_integers(v);
        }
        defs
    }
}

pub(crate) fn resolve_in<'a>(defs: &'a Map<String, Value>, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    // Bounded: a cycle of bare references would otherwise spin forever.
    for _ in 0..32 {
        let Some(name) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"))
        else {
            break;
        };
        match defs.get(name) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// Add the `minimum`/`maximum` a fixed-width integer `format` implies, everywhere in `v`.
fn bound_integers(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let bounds: Option<(Value, Value)> = match map.get("format").and_then(Value::as_str) {
                Some("int8") => Some((i8::MIN.into(), i8::MAX.into())),
                Some("int16") => Some((i16::MIN.into(), i16::MAX.into())),
                Some("int32") => Some((i32::MIN.into(), i32::MAX.into())),
                Some("int64") => Some((i64::MIN.into(), i64::MAX.into())),
                Some("uint8") => Some((0.into(), u8::MAX.into())),
                Some("uint16") => Some((0.into(), u16::MAX.into())),
                Some("uint32") => Some((0.into(), u32::MAX.into())),
                Some("uint64") => Some((0.into(), u64::MAX.into())),
                Some("uint") => Some((0.into(), (usize::MAX as u64).into())),
                Some("int") => Some(((isize::MIN as i64).into(), (isize::MAX as i64).into())),
                _ => None,
            };
            let is_integer = match map.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            if let (Some((min, max)), true) = (bounds, is_integer) {
                map.entry("minimum").or_insert(min);
                map.entry("maximum").or_insert(max);
            }
            for child in map.values_mut() {
                bound_integers(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(bound_integers),
        _ => {}
    }
}
