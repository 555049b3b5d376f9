//! Argument validation, and [`ToolArgumentError`], the message a model reads when its call
//! was wrong.
//!
//! The model wrote the call and is the only party that can fix it, so a rejection names the
//! tool, the offending arguments, what was expected and the accepted set:
//!
//! ```text
//! tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']
//! tool 'run_check' call rejected: missing required argument(s) ['name']. Accepted arguments: ['name', 'strict']
//! tool 'run_check' call rejected: argument 'strict' must be a boolean, got a string
//! ```
//!
//! Validation and the advertised schema come from the same facts, an [`ArgSpec`]: the same
//! property names, the same required set, and each property's own schema, which the
//! "must be ..." part of a message is written from. Each argument is then deserialized
//! straight from its raw bytes into the parameter's Rust type.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

mod check;
mod error;
pub(crate) mod members;

pub use error::{ArgumentProblem, ToolArgumentError};
pub(crate) use error::{PyList, PyStr};

use check::Checker;

/// A type a `#[tool]` parameter may have: anything that deserializes into an owned value
/// and describes itself with a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "this type must implement `serde::Deserialize` (owned) and `schemars::JsonSchema`",
    note = "derive them: `#[derive(serde::Deserialize, schemars::JsonSchema)]`; borrowed types such as `&str` become their owned forms (`String`)"
)]
pub trait ToolParam: DeserializeOwned + JsonSchema + Send + 'static {}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam for T {}

/// One parameter, as validation and the schema both see it.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    /// The argument's name on the wire (after renaming).
    pub name: Cow<'static, str>,
    /// Whether the call must supply it.
    pub required: bool,
    /// The property's schema (may be a `$ref` into the root's `$defs`).
    pub schema: Value,
}

/// The facts a tool's arguments are validated against; the same facts its input schema was
/// built from.
#[derive(Debug, Clone)]
pub struct ArgSpec {
    tool: Cow<'static, str>,
    params: Vec<ParamSpec>,
    accepted: Vec<String>,
    defs: Map<String, Value>,
    /// Per parameter, the kinds of value ([`QUICK_STRING`] and the like) its schema admits
    /// without a look past the first byte: it says nothing but its type.
    quick: Vec<u8>,
}

impl ArgSpec {
    /// The facts for `tool`, its parameters in declaration order, and the `$defs` their
    /// schemas refer to.
    pub fn new(tool: Cow<'static, str>, params: Vec<ParamSpec>, defs: Map<String, Value>) -> Self {
        let mut accepted: Vec<String> = params.iter().map(|p| p.name.to_string()).collect();
        accepted.sort();
        let quick = params.iter().map(|p| quick_kinds(&defs, &p.schema)).collect();
        ArgSpec { tool, params, accepted, defs, quick }
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The parameters, in declaration order.
    pub fn params(&self) -> &[ParamSpec] {
        &self.params
    }

    /// The input schema these facts describe:
    /// `{"type":"object","properties":…,"required":[…],"additionalProperties":false,"$defs":…}`.
    pub fn input_schema(&self) -> Value {
        let mut root = Map::new();
        root.insert("type".into(), "object".into());
        if !self.params.is_empty() {
            let properties: Map<String, Value> =
                self.params.iter().map(|p| (p.name.to_string(), p.schema.clone())).collect();
            root.insert("properties".into(), properties.into());
            let required: Vec<Value> =
                self.params.iter().filter(|p| p.required).map(|p| p.name.to_string().into()).collect();
            if !required.is_empty() {
                root.insert("required".into(), required.into());
            }
        }
        root.insert("additionalProperties".into(), false.into());
        if !self.defs.is_empty() {
            root.insert("$defs".into(), self.defs.clone().into());
        }
        root.into()
    }

    /// [`input_schema`](Self::input_schema) in canonical form, written from the parts: the
    /// same bytes as `canonical_json(&self.input_schema())` without building the object
    /// (whose parameter schemas and `$defs` would be cloned into it only to be written).
    pub(crate) fn input_schema_text(&self) -> String {
        use crate::json::{push_json_string, write_canonical_object};
        let mut out = String::with_capacity(128);
        // The root's members in canonical order: `$defs`, `additionalProperties`,
        // `properties`, `required`, `type`.
        out.push('{');
        if !self.defs.is_empty() {
            out.push_str("\"$defs\":");
            write_canonical_object(&mut out, self.defs.iter().map(|(k, v)| (k.as_str(), v)).collect());
            out.push(',');
        }
        out.push_str("\"additionalProperties\":false,");
        if !self.params.is_empty() {
            // Of two parameters with one name, the later is kept, as the map keeps it.
            let mut properties: Vec<(&str, &Value)> = Vec::with_capacity(self.params.len());
            for (i, p) in self.params.iter().enumerate() {
                if !self.params[i + 1..].iter().any(|later| later.name == p.name) {
                    properties.push((&p.name, &p.schema));
                }
            }
            out.push_str("\"properties\":");
            write_canonical_object(&mut out, properties);
            out.push(',');
            let mut required = self.params.iter().filter(|p| p.required).peekable();
            if required.peek().is_some() {
                out.push_str("\"required\":[");
                for (i, p) in required.enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_json_string(&mut out, &p.name);
                }
                out.push_str("],");
            }
        }
        out.push_str("\"type\":\"object\"}");
        out
    }

    fn error(&self, problem: ArgumentProblem) -> ToolArgumentError {
        ToolArgumentError { tool: self.tool.to_string(), problem }
    }

    /// Check a call's raw arguments: an object, no unknown or repeated names, every required
    /// name present. Values are checked later, one by one, by [`Args::take`].
    pub fn parse<'a>(&self, raw: &'a RawValue) -> Result<Args<'a, '_>, ToolArgumentError> {
        let text = raw.get();
        if text.as_bytes().first() != Some(&b'{') && !text.trim_start().starts_with('{') {
            return Err(self.error(ArgumentProblem::NotAnObject { got: json_kind(text).into() }));
        }
        // One pass: each member's value goes straight to its parameter's slot.
        let values = Slots::new(self.params.len());
        let mut sorted = Sorted { spec: self, values, duplicate: None, unexpected: Vec::new() };
        // The members found by structure alone (the text is valid JSON); serde reads an
        // object whose names have escapes, from scratch.
        if members::each_member(text, |name, value| sorted.sort(Cow::Borrowed(name), value)).is_none() {
            sorted.values.iter_mut().for_each(|v| *v = None);
            sorted.duplicate = None;
            sorted.unexpected.clear();
            let mut de = serde_json::Deserializer::from_str(text);
            (&mut de).deserialize_map(&mut sorted).and_then(|()| de.end()).map_err(|e| {
                self.error(ArgumentProblem::NotAnObject { got: format!("malformed JSON ({e})") })
            })?;
        }
        let Sorted { values, duplicate, unexpected, .. } = sorted;
        if let Some(name) = duplicate {
            return Err(self.error(ArgumentProblem::Duplicate { name }));
        }
        let missing: Vec<String> = self
            .params
            .iter()
            .zip(values.iter())
            .filter(|(p, v)| p.required && v.is_none())
            .map(|(p, _)| p.name.to_string())
            .collect();
        if !unexpected.is_empty() || !missing.is_empty() {
            return Err(self.error(ArgumentProblem::UnknownOrMissing {
                unexpected,
                missing,
                accepted: self.accepted.clone(),
            }));
        }
        Ok(Args { spec: self, values })
    }

    /// Check argument `index`'s raw text against its schema.
    fn check_arg(&self, index: usize, text: &str) -> Result<(), ToolArgumentError> {
        let param = &self.params[index];
        // Fast path: a string, boolean or null against a schema that says nothing but its
        // type needs no parse; the first byte decides.
        if self.quick[index] & quick_kind(text) != 0 {
            return Ok(());
        }
        let value: Value = serde_json::from_str(text).map_err(|e| self.invalid(index, "", e.to_string()))?;
        let checker = Checker { defs: &self.defs };
        let mut path = String::new();
        checker.check(&param.schema, &value, &mut path).map_err(|v| {
            if v.path.is_empty() && v.wrong_type.is_some() {
                let got = v.wrong_type.map(|(_, got)| got).unwrap_or_default();
                self.error(ArgumentProblem::WrongType {
                    name: param.name.to_string(),
                    expected: checker.describe(&param.schema, param.required),
                    got,
                })
            } else {
                self.invalid(index, &v.path, v.message)
            }
        })
    }

    fn invalid(&self, index: usize, path: &str, message: String) -> ToolArgumentError {
        self.error(ArgumentProblem::Invalid {
            name: self.params[index].name.to_string(),
            path: path.to_owned(),
            message,
        })
    }
}

/// [`ArgSpec`]'s quick kinds: a string, a boolean, `null`, as bits.
const QUICK_STRING: u8 = 1;
const QUICK_BOOLEAN: u8 = 2;
const QUICK_NULL: u8 = 4;

/// The quick kind of a raw value (valid JSON) by its first byte; 0 for a number, an array
/// or an object, which the schema checks for real.
fn quick_kind(raw: &str) -> u8 {
    match raw.bytes().find(|b| !b.is_ascii_whitespace()) {
        Some(b'"') => QUICK_STRING,
        Some(b't' | b'f') => QUICK_BOOLEAN,
        Some(b'n') => QUICK_NULL,
        _ => 0,
    }
}

/// The quick kinds `schema` admits when it is nothing but `type` (module `check` would
/// pass any value of them); 0 when it needs the real check.
fn quick_kinds(defs: &Map<String, Value>, schema: &Value) -> u8 {
    let kinds = simple_kinds(defs, schema).unwrap_or_default();
    kinds.iter().fold(0, |bits, kind| {
        bits | match *kind {
            "string" => QUICK_STRING,
            "boolean" => QUICK_BOOLEAN,
            "null" => QUICK_NULL,
            _ => 0,
        }
    })
}

/// For a schema that is nothing but `type` (plus annotations and numeric bounds), the JSON
/// types it admits; `None` for anything that needs a real check.
fn simple_kinds(defs: &Map<String, Value>, schema: &Value) -> Option<Vec<&'static str>> {
    let schema = crate::schema_gen::resolve_in(defs, schema).as_object()?;
    let plain = schema.keys().all(|k| {
        matches!(k.as_str(), "type" | "description" | "default" | "title" | "format" | "minimum" | "maximum")
    });
    if !plain {
        return None;
    }
    let names: Vec<&Value> = match schema.get("type")? {
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    names
        .into_iter()
        .map(|n| match n.as_str()? {
            "string" => Some("string"),
            "boolean" => Some("boolean"),
            "null" => Some("null"),
            "integer" => Some("integer"),
            "number" => Some("number"),
            _ => None,
        })
        .collect()
}

/// The JSON type of raw JSON text, judged by its first character (the text is valid JSON).
fn raw_kind(raw: &str) -> &'static str {
    let t = raw.trim_start();
    match t.as_bytes().first() {
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        Some(b'[') => "array",
        Some(b'{') => "object",
        _ if t.contains(['.', 'e', 'E']) => "number",
        _ => "integer",
    }
}

/// "a string", "an array", ... for raw JSON text.
fn json_kind(raw: &str) -> &'static str {
    match raw_kind(raw) {
        "string" => "a string",
        "boolean" => "a boolean",
        "null" => "null",
        "array" => "an array",
        "object" => "an object",
        "number" => "a number",
        _ => "an integer",
    }
}

/// serde_json's message without its ` at line L column C` suffix, which points into the
/// raw text of one argument and means nothing to the model.
fn clean_serde_message(err: &serde_json::Error) -> String {
    let msg = err.to_string();
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg,
    }
}

/// A call's arguments after the object-level checks: each parameter's raw value, if given.
#[derive(Debug)]
pub struct Args<'a, 's> {
    spec: &'s ArgSpec,
    /// Each parameter's raw JSON text (valid JSON: a member of a `RawValue`'s object).
    values: Slots<'a>,
}

impl Args<'_, '_> {
    /// The raw value of parameter `index`, if the call supplied it.
    pub fn raw(&self, index: usize) -> Option<&RawValue> {
        // Valid JSON, so this reads it; it is read here, not for every call.
        self.values[index].and_then(|text| serde_json::from_str(text).ok())
    }

    /// The wire name of parameter `index`.
    pub fn name(&self, index: usize) -> Cow<'static, str> {
        self.spec.params[index].name.clone()
    }

    /// Check and deserialize parameter `index`; an absent (optional) one is read as
    /// `null`, which an `Option` reads as `None`.
    pub fn take<T: ToolParam>(&self, index: usize) -> Result<T, ToolArgumentError> {
        match self.values[index] {
            Some(text) => self.parse_text(index, text),
            None => serde_json::from_str("null").map_err(|e| {
                self.spec.invalid(index, "", format!("could not be read: {}", clean_serde_message(&e)))
            }),
        }
    }

    /// Check the given raw value of parameter `index` against its schema, then deserialize
    /// it into the parameter's type.
    ///
    /// JSON Schema counts `1.0` as an integer; serde does not. So that validation accepts
    /// exactly what the schema accepts, a value that fails is retried once with integral
    /// floats rewritten as integers.
    pub fn parse<T: ToolParam>(&self, index: usize, raw: &RawValue) -> Result<T, ToolArgumentError> {
        self.parse_text(index, raw.get())
    }

    fn parse_text<T: ToolParam>(&self, index: usize, text: &str) -> Result<T, ToolArgumentError> {
        self.spec.check_arg(index, text)?;
        if let Some(v) = plain_string(text) {
            return Ok(v);
        }
        match serde_json::from_str::<T>(text) {
            Ok(v) => Ok(v),
            Err(err) => {
                if text.contains(['.', 'e', 'E'])
                    && let Ok(mut value) = serde_json::from_str::<Value>(text)
                    && integralize(&mut value)
                    && let Ok(v) = serde_json::from_value::<T>(value)
                {
                    return Ok(v);
                }
                Err(self.spec.invalid(index, "", format!("could not be read: {}", clean_serde_message(&err))))
            }
        }
    }
}

/// A `String` parameter's value when its raw text (valid JSON) is a string with no escape:
/// the text between the quotes, which is what serde would read, without serde. The most
/// common parameter there is; `None` for any other type or text.
pub(crate) fn plain_string<T: 'static>(text: &str) -> Option<T> {
    if std::any::TypeId::of::<T>() != std::any::TypeId::of::<String>() {
        return None;
    }
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if memchr::memchr(b'\\', inner.as_bytes()).is_some() {
        return None;
    }
    // `T` is `String`: the downcast succeeds.
    let mut value = Some(inner.to_owned());
    (&mut value as &mut dyn std::any::Any).downcast_mut::<Option<T>>()?.take()
}

/// Rewrite every float that is mathematically an integer (and fits 64 bits) as an integer;
/// says whether anything changed.
fn integralize(value: &mut Value) -> bool {
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.is_finite() && f.fract() == 0.0 {
                if (0.0..18446744073709551616.0).contains(&f) {
                    *value = Value::from(f as u64);
                    return true;
                }
                if (-9223372036854775808.0..0.0).contains(&f) {
                    *value = Value::from(f as i64);
                    return true;
                }
            }
            false
        }
        Value::Array(items) => items.iter_mut().fold(false, |acc, v| integralize(v) | acc),
        Value::Object(map) => map.values_mut().fold(false, |acc, v| integralize(v) | acc),
        _ => false,
    }
}

/// Each parameter's raw text, if given: in place for up to [`Slots::IN_PLACE`] parameters
/// (most tools), so reading a call's arguments allocates nothing for them.
#[derive(Debug)]
enum Slots<'a> {
    InPlace([Option<&'a str>; Slots::IN_PLACE], usize),
    Heap(Vec<Option<&'a str>>),
}

impl<'a> Slots<'a> {
    const IN_PLACE: usize = 4;

    /// `n` empty slots. Past the few in place, not `vec![None; n]`: that is a zeroed
    /// allocation (`calloc`), about 250 instructions more than one filled in place.
    fn new(n: usize) -> Slots<'a> {
        if n <= Slots::IN_PLACE {
            Slots::InPlace([None; Slots::IN_PLACE], n)
        } else {
            Slots::Heap((0..n).map(|_| None).collect())
        }
    }

    fn as_slice(&self) -> &[Option<&'a str>] {
        match self {
            Slots::InPlace(slots, n) => &slots[..*n],
            Slots::Heap(slots) => slots,
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, Option<&'a str>> {
        self.as_slice().iter()
    }

    fn iter_mut(&mut self) -> std::slice::IterMut<'_, Option<&'a str>> {
        match self {
            Slots::InPlace(slots, n) => slots[..*n].iter_mut(),
            Slots::Heap(slots) => slots.iter_mut(),
        }
    }
}

impl<'a> std::ops::Index<usize> for Slots<'a> {
    type Output = Option<&'a str>;

    fn index(&self, i: usize) -> &Option<&'a str> {
        &self.as_slice()[i]
    }
}

impl std::ops::IndexMut<usize> for Slots<'_> {
    fn index_mut(&mut self, i: usize) -> &mut Self::Output {
        match self {
            Slots::InPlace(slots, n) => &mut slots[..*n][i],
            Slots::Heap(slots) => &mut slots[i],
        }
    }
}

/// A call's arguments object read into its parameters' slots, in one pass: each member's
/// raw value goes to the slot of the parameter it names; the first name given twice and the
/// names no parameter has are kept for the errors (which wait until the whole object has
/// parsed, so malformed JSON is reported first).
struct Sorted<'a, 's> {
    spec: &'s ArgSpec,
    values: Slots<'a>,
    duplicate: Option<String>,
    unexpected: Vec<String>,
}

impl<'a> Sorted<'a, '_> {
    /// Member `name` with raw value `value`: into its parameter's slot, or noted as a
    /// repeat or as unknown.
    fn sort(&mut self, name: Cow<'a, str>, value: &'a str) {
        match self.spec.params.iter().position(|p| p.name == *name) {
            Some(i) if self.values[i].is_some() => {
                self.duplicate.get_or_insert_with(|| name.into_owned());
            }
            Some(i) => self.values[i] = Some(value),
            None => self.unexpected.push(name.into_owned()),
        }
    }
}

impl<'de> Visitor<'de> for &mut Sorted<'de, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let value: &'de RawValue = map.next_value()?;
            self.sort(key, value.get());
        }
        Ok(())
    }
}

struct Key<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> ArgSpec {
        ArgSpec::new(
            "run_check".into(),
            vec![
                ParamSpec { name: "name".into(), required: true, schema: json!({"type": "string"}) },
                ParamSpec {
                    name: "strict".into(),
                    required: false,
                    schema: json!({"type": ["boolean", "null"]}),
                },
            ],
            Map::new(),
        )
    }

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    fn reject(args: &str) -> String {
        let spec = spec();
        let r = raw(args);
        match spec.parse(&r) {
            Err(e) => e.to_string(),
            Ok(a) => match (a.take::<String>(0), a.take::<Option<bool>>(1)) {
                (Err(e), _) | (_, Err(e)) => e.to_string(),
                _ => panic!("{args} was accepted"),
            },
        }
    }

    /// The input schema written from its parts is the canonical form of the one built as a
    /// value, byte for byte: with and without parameters, required or not, `$defs`, names in
    /// an order where UTF-16 and UTF-8 disagree (U+1F600 before U+FFFF), names that need
    /// escaping, and a name given twice (the later parameter kept, as a map keeps it).
    #[test]
    fn the_input_schema_text_is_the_canonical_form_of_the_value() {
        let p = |name: &str, required: bool, schema: Value| ParamSpec {
            name: name.to_owned().into(),
            required,
            schema,
        };
        let defs: Map<String, Value> = [
            ("Zed".to_owned(), json!({"type": "integer", "maximum": 3})),
            ("Ab".to_owned(), json!({"const": "x"})),
        ]
        .into_iter()
        .collect();
        let specs = [
            ArgSpec::new("none".into(), vec![], Map::new()),
            spec(),
            ArgSpec::new("defs".into(), vec![p("who", true, json!({"$ref": "#/$defs/Zed"}))], defs.clone()),
            ArgSpec::new("defs_only".into(), vec![], defs),
            ArgSpec::new(
                "order".into(),
                vec![
                    p("\u{ffff}", true, json!({})),
                    p("😀", false, json!({"type": "string"})),
                    p("z", true, json!({"enum": [1, 2.5, "a\"b"]})),
                    p("a\"b\n", true, json!(null)),
                    p("", false, json!(true)),
                ],
                Map::new(),
            ),
            ArgSpec::new(
                "twice".into(),
                vec![p("x", true, json!({"type": "string"})), p("x", false, json!({"type": "integer"}))],
                Map::new(),
            ),
        ];
        for spec in specs {
            assert_eq!(
                spec.input_schema_text(),
                crate::json::canonical_json(&spec.input_schema()),
                "{}",
                spec.tool()
            );
        }
        let order = ArgSpec::new(
            "order".into(),
            vec![p("\u{ffff}", true, json!({})), p("😀", true, json!({})), p("a", true, json!({}))],
            Map::new(),
        );
        assert_eq!(
            order.input_schema_text(),
            "{\"additionalProperties\":false,\"properties\":{\"a\":{},\"😀\":{},\"\u{ffff}\":{}},\"required\":[\"\u{ffff}\",\"😀\",\"a\"],\"type\":\"object\"}"
        );
    }

    #[test]
    fn the_design_messages() {
        assert_eq!(
            reject(r#"{"name":"lint","verbose":true}"#),
            "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"
        );
        assert_eq!(
            reject("{}"),
            "tool 'run_check' call rejected: missing required argument(s) ['name']. Accepted arguments: ['name', 'strict']"
        );
        assert_eq!(
            reject(r#"{"name":"lint","strict":"yes"}"#),
            "tool 'run_check' call rejected: argument 'strict' must be a boolean, got a string"
        );
    }

    #[test]
    fn unknown_and_missing_together_and_odd_shapes() {
        assert_eq!(
            reject(r#"{"x\u0027y":1}"#),
            "tool 'run_check' call rejected: unexpected argument(s) ['x\\'y']; missing required argument(s) ['name']. Accepted arguments: ['name', 'strict']"
        );
        assert_eq!(
            reject("[1]"),
            "tool 'run_check' call rejected: arguments must be a JSON object, got an array"
        );
        assert_eq!(
            reject(r#"{"name":"a","name":"b"}"#),
            "tool 'run_check' call rejected: argument 'name' was given more than once"
        );
        // A repeated name is reported before unknown ones, wherever they stand.
        assert_eq!(
            reject(r#"{"x":1,"strict":true,"name":"a","strict":false,"y":2}"#),
            "tool 'run_check' call rejected: argument 'strict' was given more than once"
        );
        // A string with escapes reads as serde reads it; one without, the same, unread.
        let strings = raw(r#"{"name":"a\"b\u00e9\n","strict":null}"#);
        assert_eq!(spec().parse(&strings).unwrap().take::<String>(0).unwrap(), "a\"b\u{e9}\n");
        let plain = raw(r#"{"name":"plain é text"}"#);
        assert_eq!(spec().parse(&plain).unwrap().take::<String>(0).unwrap(), "plain é text");
        assert_eq!(plain_string::<String>(r#""x""#), Some("x".to_owned()));
        assert_eq!(plain_string::<Option<String>>(r#""x""#), None);
        assert_eq!(plain_string::<String>(r#""a\"b""#), None);
        // More parameters than fit in place: each value still lands in its own slot.
        let many: Vec<ParamSpec> = (0..6)
            .map(|i| ParamSpec {
                name: format!("p{i}").into(),
                required: i < 5,
                schema: json!({"type": "integer"}),
            })
            .collect();
        let wide = ArgSpec::new("many".into(), many, Map::new());
        let r = raw(r#"{"p4":4,"p0":0,"p3":3,"p1":1,"p2":2}"#);
        let args = wide.parse(&r).unwrap();
        assert_eq!((0..5).map(|i| args.take::<i64>(i).unwrap()).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        assert_eq!(args.take::<Option<i64>>(5).unwrap(), None);
        assert!(
            wide.parse(&raw(r#"{"p0":0}"#)).unwrap_err().to_string().contains("['p1', 'p2', 'p3', 'p4']")
        );
        // A name written with escapes is the name it spells.
        let escaped = raw(r#"{"na\u006de":"lint"}"#);
        assert_eq!(spec().parse(&escaped).unwrap().take::<String>(0).unwrap(), "lint");
    }
}
