//! Checking a JSON value against a JSON Schema (2020-12), and describing schemas in words.
//!
//! This is how validation and the advertised schema come to agree by construction: an
//! argument is checked against the very schema the tool advertises, then deserialized into
//! its Rust type. serde is more lenient than the schema in places (it reads a struct from
//! an array, a unit variant from `{"low": null}`), so serde alone would accept calls the
//! schema forbids.
//!
//! Supported: `$ref` (local `#/$defs/...`), boolean schemas, `type`, `enum`, `const`,
//! `oneOf`, `anyOf`, `allOf`, `not`, `properties`, `required`, `additionalProperties`,
//! `propertyNames`, `minProperties`/`maxProperties`, `items`, `prefixItems`,
//! `minItems`/`maxItems`, `uniqueItems`, `minLength`/`maxLength`, `minimum`/`maximum`,
//! `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`. Annotations (`description`,
//! `default`, `title`, `format`, ...) assert nothing, as in 2020-12. `pattern` and
//! `patternProperties` are not checked: schemars writes them only when asked to with a
//! regex attribute, and toolwire carries no regex engine; such a constraint is left to the
//! type's own `Deserialize`.

use std::fmt::{self, Write as _};

use serde_json::{Map, Value};

use super::error::{PyList, PyStr};

/// Where in an argument a check failed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// A JSON pointer into the argument, `""` for the argument itself.
    pub(crate) path: String,
    pub(crate) message: String,
    /// Whether this is a top-level type (or enum) mismatch, worded as "must be X, got Y".
    pub(crate) wrong_type: Option<(String, String)>,
}

pub(crate) struct Checker<'a> {
    pub(crate) defs: &'a Map<String, Value>,
}

impl<'a> Checker<'a> {
    pub(crate) fn resolve(&self, schema: &'a Value) -> &'a Value {
        crate::schema_gen::resolve_in(self.defs, schema)
    }

    /// Check `value` against `schema`; the first violation found, depth first.
    pub(crate) fn check(&self, schema: &'a Value, value: &Value, path: &mut String) -> Result<(), Violation> {
        self.check_depth(schema, value, path, 0)
    }

    fn fail(&self, path: &str, message: String) -> Violation {
        Violation { path: path.to_owned(), message, wrong_type: None }
    }

    fn wrong_type(&self, path: &str, expected: String, got: String) -> Violation {
        Violation {
            path: path.to_owned(),
            message: format!("must be {expected}, got {got}"),
            wrong_type: Some((expected, got)),
        }
    }

    fn check_depth(
        &self,
        schema: &'a Value,
        value: &Value,
        path: &mut String,
        depth: usize,
    ) -> Result<(), Violation> {
        // Schemas may be recursive; values are finite, but a bare `$ref` cycle is not.
        if depth > 128 {
            return Err(self.fail(path, "nests too deeply".into()));
        }
        let schema = self.resolve(schema);
        let obj = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return Err(self.fail(path, "is not allowed here".into())),
            Value::Object(o) => o,
            _ => return Ok(()),
        };
        if let Some(kinds) = self.kinds(schema)
            && !kinds.iter().any(|k| kind_admits(k, value))
        {
            return Err(self.wrong_type(path, self.describe(schema, true), kind_of(value).into()));
        }
        if let Some(Value::Array(options)) = obj.get("enum")
            && !options.iter().any(|o| json_eq(o, value))
        {
            return Err(self.enum_violation(path, schema, value));
        }
        if let Some(c) = obj.get("const")
            && !json_eq(c, value)
        {
            return Err(self.enum_violation(path, schema, value));
        }
        if let Some(Value::Array(alts)) = obj.get("allOf") {
            for alt in alts {
                self.check_depth(alt, value, path, depth + 1)?;
            }
        }
        if let Some(Value::Array(alts)) = obj.get("anyOf")
            && !alts.iter().any(|alt| self.check_depth(alt, value, &mut path.clone(), depth + 1).is_ok())
        {
            return Err(self.no_alternative(path, schema, alts, value, depth));
        }
        if let Some(Value::Array(alts)) = obj.get("oneOf") {
            let matching = alts
                .iter()
                .filter(|alt| self.check_depth(alt, value, &mut path.clone(), depth + 1).is_ok())
                .count();
            if matching == 0 {
                return Err(self.no_alternative(path, schema, alts, value, depth));
            }
            if matching > 1 {
                return Err(self.fail(path, "matches more than one of the allowed shapes".into()));
            }
        }
        if let Some(not) = obj.get("not")
            && self.check_depth(not, value, &mut path.clone(), depth + 1).is_ok()
        {
            return Err(self.fail(path, "matches a shape that is not allowed".into()));
        }
        match value {
            Value::Number(n) => self.check_number(obj, n, path)?,
            Value::String(s) => {
                let len = s.chars().count() as u64;
                if let Some(min) = obj.get("minLength").and_then(Value::as_u64)
                    && len < min
                {
                    return Err(
                        self.fail(path, format!("must be at least {min} character(s) long, got {len}"))
                    );
                }
                if let Some(max) = obj.get("maxLength").and_then(Value::as_u64)
                    && len > max
                {
                    return Err(
                        self.fail(path, format!("must be at most {max} character(s) long, got {len}"))
                    );
                }
            }
            Value::Array(items) => self.check_array(obj, items, path, depth)?,
            Value::Object(members) => self.check_object(obj, members, path, depth)?,
            Value::Null | Value::Bool(_) => {}
        }
        Ok(())
    }

    fn check_number(
        &self,
        obj: &Map<String, Value>,
        n: &serde_json::Number,
        path: &str,
    ) -> Result<(), Violation> {
        let bound = |key: &str| obj.get(key).and_then(Value::as_number);
        if let Some(min) = bound("minimum")
            && cmp_num(n, min).is_lt()
        {
            return Err(self.fail(path, format!("must be at least {min}, got {n}")));
        }
        if let Some(max) = bound("maximum")
            && cmp_num(n, max).is_gt()
        {
            return Err(self.fail(path, format!("must be at most {max}, got {n}")));
        }
        if let Some(min) = bound("exclusiveMinimum")
            && !cmp_num(n, min).is_gt()
        {
            return Err(self.fail(path, format!("must be greater than {min}, got {n}")));
        }
        if let Some(max) = bound("exclusiveMaximum")
            && !cmp_num(n, max).is_lt()
        {
            return Err(self.fail(path, format!("must be less than {max}, got {n}")));
        }
        if let Some(m) = bound("multipleOf").and_then(serde_json::Number::as_f64) {
            let v = n.as_f64().unwrap_or(f64::NAN);
            let q = v / m;
            if m > 0.0 && (q - q.round()).abs() > 1e-9 {
                return Err(self.fail(path, format!("must be a multiple of {m}, got {n}")));
            }
        }
        Ok(())
    }

    fn check_array(
        &self,
        obj: &'a Map<String, Value>,
        items: &[Value],
        path: &mut String,
        depth: usize,
    ) -> Result<(), Violation> {
        let n = items.len() as u64;
        if let Some(min) = obj.get("minItems").and_then(Value::as_u64)
            && n < min
        {
            return Err(self.fail(path, format!("must have at least {min} item(s), got {n}")));
        }
        if let Some(max) = obj.get("maxItems").and_then(Value::as_u64)
            && n > max
        {
            return Err(self.fail(path, format!("must have at most {max} item(s), got {n}")));
        }
        if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, a) in items.iter().enumerate() {
                if items[..i].iter().any(|b| json_eq(a, b)) {
                    return Err(self.fail(path, "must not contain duplicate items".into()));
                }
            }
        }
        let prefix: &[Value] =
            obj.get("prefixItems").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        for (i, item) in items.iter().enumerate() {
            let item_schema = match prefix.get(i) {
                Some(s) => Some(s),
                None => obj.get("items"),
            };
            if let Some(s) = item_schema {
                let len = path.len();
                let _ = write!(path, "/{i}");
                self.check_depth(s, item, path, depth + 1)?;
                path.truncate(len);
            }
        }
        Ok(())
    }

    fn check_object(
        &self,
        obj: &'a Map<String, Value>,
        members: &Map<String, Value>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), Violation> {
        let props = obj.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = obj.get("required") {
            let missing: Vec<String> = required
                .iter()
                .filter_map(Value::as_str)
                .filter(|r| !members.contains_key(*r))
                .map(str::to_owned)
                .collect();
            if !missing.is_empty() {
                return Err(self.fail(path, format!("is missing required field(s) {}", PyList(&missing))));
            }
        }
        let n = members.len() as u64;
        if let Some(min) = obj.get("minProperties").and_then(Value::as_u64)
            && n < min
        {
            return Err(self.fail(path, format!("must have at least {min} field(s), got {n}")));
        }
        if let Some(max) = obj.get("maxProperties").and_then(Value::as_u64)
            && n > max
        {
            return Err(self.fail(path, format!("must have at most {max} field(s), got {n}")));
        }
        let additional = obj.get("additionalProperties");
        // `patternProperties` is not checked (see the module docs); its members are let
        // through rather than refused as unexpected.
        let has_patterns = obj.contains_key("patternProperties");
        if additional == Some(&Value::Bool(false)) && !has_patterns {
            let unexpected: Vec<String> =
                members.keys().filter(|k| !props.is_some_and(|p| p.contains_key(*k))).cloned().collect();
            if !unexpected.is_empty() {
                let mut accepted: Vec<String> =
                    props.map(|p| p.keys().cloned().collect()).unwrap_or_default();
                accepted.sort();
                return Err(self.fail(
                    path,
                    format!(
                        "has unexpected field(s) {}; accepted: {}",
                        PyList(&unexpected),
                        PyList(&accepted)
                    ),
                ));
            }
        }
        if let Some(names) = obj.get("propertyNames") {
            for k in members.keys() {
                self.check_depth(names, &Value::String(k.clone()), path, depth + 1).map_err(|v| {
                    self.fail(path, format!("has a field name {} that {}", PyStr(k), v.message))
                })?;
            }
        }
        for (k, v) in members {
            let member_schema = match props.and_then(|p| p.get(k)) {
                Some(s) => Some(s),
                None if has_patterns => None,
                None => additional.filter(|a| !a.is_boolean()),
            };
            if let Some(s) = member_schema {
                let len = path.len();
                path.push('/');
                push_pointer_token(path, k);
                self.check_depth(s, v, path, depth + 1)?;
                path.truncate(len);
            }
        }
        Ok(())
    }

    fn enum_violation(&self, path: &str, schema: &Value, value: &Value) -> Violation {
        let got = match value {
            Value::String(s) => PyStr(s).to_string(),
            other => other.to_string(),
        };
        self.wrong_type(path, self.describe(schema, true), got)
    }

    /// No alternative of a `oneOf`/`anyOf` matched: if exactly one alternative admits the
    /// value's JSON type, its own error is the useful one; otherwise say what was allowed.
    fn no_alternative(
        &self,
        path: &str,
        schema: &'a Value,
        alts: &'a [Value],
        value: &Value,
        depth: usize,
    ) -> Violation {
        let plausible: Vec<&Value> = alts
            .iter()
            .filter(|alt| {
                let alt = self.resolve(alt);
                let typed = self.kinds(alt).is_none_or(|ks| ks.iter().any(|k| kind_admits(k, value)));
                let tag_ok = match (alt.get("const"), alt.get("enum")) {
                    (Some(c), _) => json_eq(c, value),
                    (None, Some(Value::Array(e))) => e.iter().any(|o| json_eq(o, value)),
                    _ => true,
                };
                typed && tag_ok && !is_null_schema(alt) && self.object_plausible(alt, value)
            })
            .collect();
        if let [only] = plausible.as_slice() {
            let mut p = path.to_owned();
            if let Err(v) = self.check_depth(only, value, &mut p, depth + 1) {
                return v;
            }
        }
        let got = match value {
            Value::String(s) if string_options(self.resolve(schema)).is_some() => PyStr(s).to_string(),
            Value::Object(members) => object_phrase(alts.iter().map(|a| self.resolve(a)), members),
            other => kind_of(other).to_owned(),
        };
        self.wrong_type(path, self.describe(schema, true), got)
    }

    /// Whether an object value could be meant for an object alternative: its
    /// discriminators (properties with a `const`) match, and, when the alternative is
    /// closed, the value has no member it does not know.
    fn object_plausible(&self, alt: &'a Value, value: &Value) -> bool {
        let (Value::Object(members), Some(props)) = (value, alt.get("properties").and_then(Value::as_object))
        else {
            return true;
        };
        for (k, prop) in props {
            if let Some(c) = self.resolve(prop).get("const")
                && members.get(k).is_some_and(|v| !json_eq(v, c))
            {
                return false;
            }
        }
        if alt.get("additionalProperties") == Some(&Value::Bool(false)) {
            return members.keys().all(|k| props.contains_key(k));
        }
        true
    }

    /// The JSON types a schema admits at its top level, or `None` when it does not say.
    pub(crate) fn kinds(&self, schema: &'a Value) -> Option<Vec<String>> {
        let schema = self.resolve(schema);
        if let Some(t) = schema.get("type") {
            return Some(match t {
                Value::String(s) => vec![s.clone()],
                Value::Array(items) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                _ => return None,
            });
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alts)) = schema.get(key) {
                let mut all = Vec::new();
                for alt in alts {
                    all.extend(self.kinds(alt)?);
                }
                return Some(all);
            }
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return Some(values.iter().map(|v| kind_name(v).to_owned()).collect());
        }
        if let Some(v) = schema.get("const") {
            return Some(vec![kind_name(v).to_owned()]);
        }
        None
    }

    /// "must be ..." for a schema: `a boolean`, `a string or null`,
    /// `an integer between 0 and 255`, `one of 'low', 'high'`.
    ///
    /// With `mention_null` false, `null` goes unmentioned beside other types: for an
    /// optional argument, leaving it out says the same thing, and "a boolean or null" only
    /// distracts from what was wrong.
    pub(crate) fn describe(&self, schema: &'a Value, mention_null: bool) -> String {
        let schema = self.resolve(schema);
        if let Some(options) = string_options(schema) {
            return format!("one of {}", QuotedList(&options));
        }
        let alts = schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array);
        if let Some(alts) =
            alts.filter(|alts| alts.iter().any(|a| self.resolve(a).get("properties").is_some()))
        {
            let mut parts: Vec<String> = Vec::new();
            for alt in alts {
                let alt = self.resolve(alt);
                if is_null_schema(alt) && !mention_null {
                    continue;
                }
                let phrase = match (string_options(alt), alt_tag(alt)) {
                    (Some(options), _) => QuotedList(&options).to_string(),
                    (None, Some((key, Some(value)))) => format!("an object with {key} {}", PyStr(&value)),
                    (None, Some((key, None))) => format!("an object with key {}", PyStr(&key)),
                    (None, None) => self.describe(alt, mention_null),
                };
                if !parts.contains(&phrase) {
                    parts.push(phrase);
                }
            }
            return join_or(&parts);
        }
        if let Some(kinds) = self.kinds(schema) {
            let only_null = kinds.iter().all(|k| k == "null");
            let mut parts: Vec<String> = Vec::new();
            for k in kinds {
                if k == "null" && !mention_null && !only_null {
                    continue;
                }
                let phrase = kind_phrase(&k, schema);
                if !parts.contains(&phrase) {
                    parts.push(phrase);
                }
            }
            if !parts.is_empty() {
                return parts.join(" or ");
            }
        }
        "a valid value".into()
    }
}

/// How an object alternative is told apart: a property with a string `const` (internal
/// tag: `("kind", Some("file"))`), or its one required member when it is closed (external
/// tag: `("move", None)`).
fn alt_tag(alt: &Value) -> Option<(String, Option<String>)> {
    let props = alt.get("properties")?.as_object()?;
    for (k, p) in props {
        if let Some(c) = p.get("const").and_then(Value::as_str) {
            return Some((k.clone(), Some(c.to_owned())));
        }
    }
    let required = alt.get("required")?.as_array()?;
    if let ([only], Some(Value::Bool(false))) = (required.as_slice(), alt.get("additionalProperties")) {
        return Some((only.as_str()?.to_owned(), None));
    }
    None
}

/// "an object with kind 'ftp'" or "an object with key(s) ['jump']": what arrived, in the
/// terms the alternatives are told apart by.
fn object_phrase<'v>(alts: impl Iterator<Item = &'v Value>, members: &Map<String, Value>) -> String {
    for alt in alts {
        if let Some((key, Some(_))) = alt_tag(alt)
            && let Some(Value::String(v)) = members.get(&key)
        {
            return format!("an object with {key} {}", PyStr(v));
        }
    }
    let keys: Vec<String> = members.keys().cloned().collect();
    if keys.is_empty() {
        "an empty object".into()
    } else {
        format!("an object with key(s) {}", PyList(&keys))
    }
}

/// `a`, `a or b`, `a, b or c`.
fn join_or(parts: &[String]) -> String {
    match parts {
        [] => "a valid value".into(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `'a', 'b'` (no brackets): how a message lists allowed values.
struct QuotedList<'a>(&'a [String]);

impl fmt::Display for QuotedList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", PyStr(s))?;
        }
        Ok(())
    }
}

fn is_null_schema(s: &Value) -> bool {
    s.get("type") == Some(&Value::String("null".into()))
}

/// RFC 6901: `~` is `~0` and `/` is `~1`.
fn push_pointer_token(path: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

fn kind_phrase(kind: &str, schema: &Value) -> String {
    let base = match kind {
        "null" => return "null".into(),
        "boolean" => "a boolean",
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "array" => "an array",
        "object" => "an object",
        other => return format!("of type {other}"),
    };
    if kind == "integer" || kind == "number" {
        let min = schema.get("minimum").map(Value::to_string);
        let max = schema.get("maximum").map(Value::to_string);
        return match (min, max) {
            (Some(a), Some(b)) => format!("{base} between {a} and {b}"),
            (Some(a), None) => format!("{base} of at least {a}"),
            (None, Some(b)) => format!("{base} of at most {b}"),
            (None, None) => base.into(),
        };
    }
    base.into()
}

/// The allowed values of a string enum, if the schema is one: `{"enum": [..]}`, a `const`,
/// or a `oneOf`/`anyOf` of those (what schemars writes for documented variants).
pub(crate) fn string_options(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().map(|v| v.as_str().map(str::to_owned)).collect();
    }
    if let Some(v) = schema.get("const") {
        return v.as_str().map(|s| vec![s.to_owned()]);
    }
    let alts = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    let mut out = Vec::new();
    for alt in alts {
        out.extend(string_options(alt)?);
    }
    Some(out)
}

/// Whether a `type` name admits a value. An integral float is an integer, as JSON Schema
/// counts.
fn kind_admits(kind: &str, v: &Value) -> bool {
    match (kind, v) {
        ("null", Value::Null) | ("boolean", Value::Bool(_)) | ("string", Value::String(_)) => true,
        ("array", Value::Array(_)) | ("object", Value::Object(_)) | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// The JSON type name of a value (`integer` for integral numbers).
fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// "a string", "an array", ... for a value.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// JSON equality: numbers by value (`1` equals `1.0`), objects regardless of order.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => cmp_num(x, y).is_eq(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Compare two JSON numbers exactly where both are integers, else as doubles.
fn cmp_num(a: &serde_json::Number, b: &serde_json::Number) -> std::cmp::Ordering {
    let as_int = |n: &serde_json::Number| n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
    match (as_int(a), as_int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => {
            let (x, y) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN));
            x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)
        }
    }
}
