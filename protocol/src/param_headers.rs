//! `x-mcp-header` (2026-07-28, SEP-2243): a tool may mark parameters of its input schema
//! with `"x-mcp-header": "Name"`, and a client then mirrors each argument's value into the
//! HTTP header `Mcp-Param-Name` of the tool's calls. The rules both sides share live here:
//! which parameters are annotated, which declarations are valid (the client refuses a tool
//! with an invalid one), and how a value is written into a header.
//!
//! From the spec's "Custom Headers from Tool Parameters" (basic/transports/streamable-http):
//!
//! - only properties reachable from the schema root through `properties` keys alone count;
//!   an annotation anywhere else (under `items`, `allOf`, `$defs`, …, or on the root) makes
//!   the tool invalid;
//! - the name is a non-empty HTTP token (`1*tchar`, RFC 9110 §5.6.2: so no space, colon,
//!   control character or non-ASCII), unique among the tool's names ignoring case;
//! - the parameter's `type` is `string`, `integer` or `boolean` (not `number`, not `object`,
//!   `array` or `null`; a `type` list of those, with `null` allowed beside one of them, is
//!   taken too, and a parameter without a `type` is refused: nothing says it is primitive);
//! - a value is sent as-is (strings), in decimal (integers), as `true`/`false`; a value that
//!   is not plain visible ASCII, or has whitespace at either end, travels as
//!   `=?base64?<base64 of UTF-8>?=`; an absent or `null` value sends no header.

use serde_json::Value;

/// One annotated parameter: the header's name part and the property path to its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The name part: the header is `Mcp-Param-{header}`.
    pub header: String,
    /// The `properties` keys from the root to the parameter.
    pub path: Vec<String>,
}

/// Every `x-mcp-header` reachable from the root through `properties` alone (what a server
/// reads; it does not judge the declarations).
pub fn annotated(schema: &Value) -> Vec<HeaderParam> {
    fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<HeaderParam>) {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
        for (key, sub) in props {
            path.push(key.clone());
            if let Some(h) = sub.get("x-mcp-header").and_then(Value::as_str) {
                out.push(HeaderParam { header: h.to_owned(), path: path.clone() });
            }
            walk(sub, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// The annotated parameters of a tool's input schema when every `x-mcp-header` in it is
/// valid (the module docs have the rules); else the first problem, in words for a person
/// (`x-mcp-header 'Score' on arguments.score: …`).
pub fn validate(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk_all(schema, &mut String::new(), true, &mut found)?;
    let mut params: Vec<HeaderParam> = Vec::with_capacity(found.len());
    for (header, path, sub) in found {
        let at = format!("arguments.{}", path.join("."));
        let Some(name) = header.as_str() else {
            return Err(format!("x-mcp-header on {at} is {header}, not a string"));
        };
        let said = format!("x-mcp-header '{}' on {at}", name.escape_default());
        if name.is_empty() {
            return Err(format!("x-mcp-header on {at} is empty"));
        }
        if let Some(c) = name.chars().find(|c| !is_tchar(*c)) {
            return Err(format!(
                "{said} has '{}', which an HTTP header name cannot carry (letters, digits and !#$%&'*+-.^_`|~ only)",
                c.escape_default()
            ));
        }
        if let Some(other) = params.iter().find(|p| p.header.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "{said} repeats '{}' of arguments.{} (names must differ ignoring case)",
                other.header,
                other.path.join(".")
            ));
        }
        if let Err(ty) = primitive(sub.get("type")) {
            return Err(format!(
                "{said} is on a parameter of type {ty}; only string, integer and boolean parameters can be headers"
            ));
        }
        params.push(HeaderParam { header: name.to_owned(), path });
    }
    Ok(params)
}

/// Every `x-mcp-header` in `schema`, with its property path and the schema it sits in; one
/// not reachable through `properties` alone is refused (`pointer` is where it sits).
fn walk_all<'a>(
    schema: &'a Value,
    pointer: &mut String,
    reachable: bool,
    found: &mut Vec<(&'a Value, Vec<String>, &'a Value)>,
) -> Result<(), String> {
    let Some(obj) = schema.as_object() else { return Ok(()) };
    for (key, sub) in obj {
        let len = pointer.len();
        pointer.push('/');
        pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
        match key.as_str() {
            "properties" => {
                for (name, prop) in sub.as_object().into_iter().flatten() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                    if let Some(h) = prop.get("x-mcp-header") {
                        if !reachable {
                            return Err(format!(
                                "x-mcp-header at {pointer} is not reachable from the schema root through properties alone"
                            ));
                        }
                        let mut path: Vec<String> = found_path(pointer);
                        path.shrink_to_fit();
                        found.push((h, path, prop));
                    }
                    walk_all(prop, pointer, reachable, found)?;
                    pointer.truncate(len);
                }
            }
            "x-mcp-header" if len == 0 => {
                return Err("x-mcp-header on the schema root; only a parameter can be a header".into());
            }
            "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                for (name, sub) in sub.as_object().into_iter().flatten() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                    walk_nested(sub, pointer, found)?;
                    pointer.truncate(len);
                }
            }
            "items"
            | "prefixItems"
            | "additionalItems"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "contains"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else"
            | "allOf"
            | "anyOf"
            | "oneOf" => walk_nested(sub, pointer, found)?,
            _ => {}
        }
        pointer.truncate(len);
    }
    Ok(())
}

/// A subschema (or an array of them) off the `properties` chain: any annotation in it is
/// out of reach.
fn walk_nested<'a>(
    sub: &'a Value,
    pointer: &mut String,
    found: &mut Vec<(&'a Value, Vec<String>, &'a Value)>,
) -> Result<(), String> {
    match sub {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push_str(&format!("/{i}"));
                if item.get("x-mcp-header").is_some() {
                    return Err(format!(
                        "x-mcp-header at {pointer} is not reachable from the schema root through properties alone"
                    ));
                }
                walk_all(item, pointer, false, found)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        Value::Object(_) => {
            if sub.get("x-mcp-header").is_some() {
                return Err(format!(
                    "x-mcp-header at {pointer} is not reachable from the schema root through properties alone"
                ));
            }
            walk_all(sub, pointer, false, found)
        }
        _ => Ok(()),
    }
}

/// The property path of a pointer made only of `/properties/<name>` steps.
fn found_path(pointer: &str) -> Vec<String> {
    let steps: Vec<&str> = pointer.split('/').skip(1).collect();
    steps.chunks(2).filter_map(|c| c.get(1)).map(|s| s.replace("~1", "/").replace("~0", "~")).collect()
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Whether a parameter's `type` is one a header can carry; else the type, for the error.
fn primitive(ty: Option<&Value>) -> Result<(), String> {
    let ok = |t: &str| matches!(t, "string" | "integer" | "boolean");
    match ty {
        Some(Value::String(t)) if ok(t) => Ok(()),
        Some(Value::Array(ts))
            if ts.iter().all(|t| t.as_str().is_some_and(|t| ok(t) || t == "null"))
                && ts.iter().any(|t| t.as_str().is_some_and(ok)) =>
        {
            Ok(())
        }
        Some(Value::String(t)) => Err(t.clone()),
        Some(other) => Err(other.to_string()),
        None => Err("none declared".into()),
    }
}

/// The `Mcp-Param-*` headers a call with `arguments` carries: each annotated parameter
/// whose value is a string, an integer or a boolean, encoded by [`header_value`]. An absent
/// or `null` value sends no header, and so does one of another kind (the tool's own schema
/// check refuses such a call before it is sent).
pub fn mirror(params: &[HeaderParam], arguments: &Value) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|p| {
            let value = p.path.iter().try_fold(arguments, |v, k| v.get(k))?;
            let text = match value {
                Value::String(s) => header_value(s),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", p.header), text))
        })
        .collect()
}

/// A value as an HTTP header carries it: as is when it is plain visible ASCII (spaces
/// inside allowed) without whitespace at either end, else `=?base64?<base64 of its UTF-8>?=`
/// (2026-07-28; `Mcp-Name` and `Mcp-Param-*` alike).
pub fn header_value(v: &str) -> String {
    if v.bytes().all(|b| (0x20..0x7f).contains(&b)) && v.trim() == v {
        return v.to_owned();
    }
    let mut out = String::from("=?base64?");
    crate::base64::HEADER.encode_into(v.as_bytes(), &mut out);
    out.push_str("?=");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_annotations_through_properties_only() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "where": {"type": "object", "properties": {"zone": {"type": "integer", "x-mcp-header": "Zone"}}},
                "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Nope"}}
            },
            "allOf": [{"properties": {"x": {"x-mcp-header": "AlsoNope"}}}]
        });
        assert_eq!(
            annotated(&schema),
            [
                HeaderParam { header: "Region".into(), path: vec!["region".into()] },
                HeaderParam { header: "Zone".into(), path: vec!["where".into(), "zone".into()] },
            ]
        );
    }

    #[test]
    fn valid_declarations_are_the_annotated_parameters() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": ["integer", "null"], "x-mcp-header": "N"},
            "where": {"type": "object", "properties": {"on": {"type": "boolean", "x-mcp-header": "On"}}},
            "score": {"type": "number"},
            "x-mcp-header": {"type": "string"}
        }});
        let params = validate(&schema).unwrap();
        assert_eq!(params.len(), 3);
        assert_eq!(params[2], HeaderParam { header: "On".into(), path: vec!["where".into(), "on".into()] });
        assert_eq!(validate(&json!({"type": "object"})), Ok(vec![]));
    }

    #[test]
    fn invalid_declarations_say_what_is_wrong() {
        let one = |prop: Value| validate(&json!({"type": "object", "properties": {"v": prop}})).unwrap_err();
        assert_eq!(
            one(json!({"type": "string", "x-mcp-header": ""})),
            "x-mcp-header on arguments.v is empty"
        );
        assert_eq!(
            one(json!({"type": "string", "x-mcp-header": 7})),
            "x-mcp-header on arguments.v is 7, not a string"
        );
        assert_eq!(
            one(json!({"type": "number", "x-mcp-header": "Score"})),
            "x-mcp-header 'Score' on arguments.v is on a parameter of type number; only string, integer and boolean parameters can be headers"
        );
        assert_eq!(
            one(json!({"x-mcp-header": "Any"})),
            "x-mcp-header 'Any' on arguments.v is on a parameter of type none declared; only string, integer and boolean parameters can be headers"
        );
        assert_eq!(
            one(json!({"type": "string", "x-mcp-header": "My Region"})),
            "x-mcp-header 'My Region' on arguments.v has ' ', which an HTTP header name cannot carry (letters, digits and !#$%&'*+-.^_`|~ only)"
        );
        assert_eq!(
            one(json!({"type": "string", "x-mcp-header": "Region\t1"})),
            "x-mcp-header 'Region\\t1' on arguments.v has '\\t', which an HTTP header name cannot carry (letters, digits and !#$%&'*+-.^_`|~ only)"
        );
        assert_eq!(
            one(json!({"type": "string", "x-mcp-header": "Région"})),
            "x-mcp-header 'R\\u{e9}gion' on arguments.v has '\\u{e9}', which an HTTP header name cannot carry (letters, digits and !#$%&'*+-.^_`|~ only)"
        );
        assert_eq!(
            validate(&json!({"properties": {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}
            }}))
            .unwrap_err(),
            "x-mcp-header 'myfield' on arguments.b repeats 'MyField' of arguments.a (names must differ ignoring case)"
        );
        assert_eq!(
            validate(&json!({"properties": {"l": {"type": "array", "items": {"type": "string", "x-mcp-header": "L"}}}}))
                .unwrap_err(),
            "x-mcp-header at /properties/l/items is not reachable from the schema root through properties alone"
        );
        assert_eq!(
            validate(&json!({"anyOf": [{"properties": {"x": {"type": "string", "x-mcp-header": "X"}}}]}))
                .unwrap_err(),
            "x-mcp-header at /anyOf/0/properties/x is not reachable from the schema root through properties alone"
        );
        assert_eq!(
            validate(&json!({"x-mcp-header": "Root", "type": "object"})).unwrap_err(),
            "x-mcp-header on the schema root; only a parameter can be a header"
        );
    }

    #[test]
    fn mirrors_values_encoded() {
        let params = validate(&json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "on": {"type": "boolean", "x-mcp-header": "On"},
            "text": {"type": "string", "x-mcp-header": "Text"},
            "gone": {"type": ["string", "null"], "x-mcp-header": "Gone"}
        }}))
        .unwrap();
        let mut headers = mirror(
            &params,
            &json!({"region": "us west 1", "n": -7, "on": false, "text": " 世界", "gone": null}),
        );
        headers.sort();
        let mut want: Vec<(String, String)> = [
            ("Mcp-Param-Region", "us west 1"),
            ("Mcp-Param-N", "-7"),
            ("Mcp-Param-On", "false"),
            ("Mcp-Param-Text", "=?base64?IOS4lueVjA==?="),
        ]
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
        want.sort();
        assert_eq!(headers, want);
        assert_eq!(header_value("café"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(header_value("a\nbc"), "=?base64?YQpiYw==?=");
        assert_eq!(header_value(""), "");
    }
}
