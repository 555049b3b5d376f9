//! `Mcp-Param-{Name}` headers (2026-07-28): a tool may mark parameters in its input schema
//! with `"x-mcp-header": "Name"`, and a client then mirrors the argument's value into the
//! header `Mcp-Param-Name`, so intermediaries can route on it. A server that reads the body
//! must check that the two agree, or the header could route a request the body does not
//! make; any disagreement is 400 with -32020 (`HeaderMismatch`).
//!
//! Which parameters are annotated, and how a client writes values, is
//! `toolwire_protocol::param_headers` (the client shares it). The server's rules, from the
//! spec's "Custom Headers from Tool Parameters":
//!
//! - only properties reachable from the schema root through `properties` keys count;
//! - a value is sent as-is (strings), in decimal (integers), or as `true`/`false`;
//! - a value that is not plain visible ASCII travels as `=?base64?<base64 of UTF-8>?=`, and
//!   the server decodes it before comparing; anything not wrapped exactly so is literal;
//! - a value present in the body needs its header; a header whose value is absent from the
//!   body (or `null`) matches nothing and is refused too.

use axum::http::HeaderMap;
use serde_json::Value;

use crate::protocol::param_headers::{HeaderParam, annotated};
use crate::registry::ToolRegistry;

/// The annotated parameters of every tool that has any, by tool name.
#[derive(Debug, Default)]
pub(crate) struct ParamHeaders {
    tools: Vec<(String, Vec<HeaderParam>)>,
}

impl ParamHeaders {
    pub(crate) fn of(registry: &ToolRegistry) -> ParamHeaders {
        let tools = registry
            .iter()
            .filter_map(|tool| {
                let params = annotated(tool.info().input_schema().value());
                (!params.is_empty()).then(|| (tool.info().name().to_owned(), params))
            })
            .collect();
        ParamHeaders { tools }
    }

    /// The annotated parameters of `tool` (none for most tools).
    pub(crate) fn get(&self, tool: &str) -> &[HeaderParam] {
        self.tools.iter().find(|(name, _)| name == tool).map_or(&[], |(_, p)| p.as_slice())
    }
}

/// Check every annotated parameter of a `tools/call` body against its header. `arguments`
/// is the call's `params.arguments` (absent: `None`).
pub(crate) fn check(
    params: &[HeaderParam],
    headers: &HeaderMap,
    arguments: Option<&Value>,
) -> Result<(), String> {
    for p in params {
        let name = format!("Mcp-Param-{}", p.header);
        let at = format!("arguments.{}", p.path.join("."));
        let body =
            p.path.iter().try_fold(arguments, |v, k| Some(v?.get(k))).flatten().filter(|v| !v.is_null());
        let header = match headers.get(name.as_str()) {
            None => None,
            Some(v) => Some(decode(v.as_bytes()).map_err(|why| format!("header mismatch: {name} {why}"))?),
        };
        match (header, body) {
            (None, None) => {}
            (None, Some(b)) => {
                return Err(format!("header mismatch: the {name} header is missing; the body's {at} is {b}"));
            }
            (Some(h), None) => {
                return Err(format!("header mismatch: {name} is '{h}' but the body has no {at}"));
            }
            (Some(h), Some(b)) if !matches(&h, b) => {
                return Err(format!("header mismatch: {name} is '{h}' but the body's {at} is {b}"));
            }
            (Some(_), Some(_)) => {}
        }
    }
    Ok(())
}

/// Whether a decoded header value says what the body value says.
fn matches(header: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => header == s,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        // Compared as numbers: `42.0` and `42` are the same value.
        Value::Number(n) => match (header.parse::<f64>(), n.as_f64()) {
            (Ok(h), Some(b)) => h == b,
            _ => false,
        },
        _ => false,
    }
}

/// The value a header carries: the Base64 sentinel form decoded, anything else literal. A
/// literal must be a legal header value (visible ASCII, space, tab), with optional
/// whitespace around it dropped.
pub(crate) fn decode(raw: &[u8]) -> Result<String, &'static str> {
    let text = std::str::from_utf8(raw).map_err(|_| "is not ASCII")?;
    if !text.bytes().all(|b| b == b'\t' || (0x20..0x7f).contains(&b)) {
        return Err("has characters a header value cannot carry");
    }
    let text = text.trim_matches([' ', '\t']);
    match text.strip_prefix("=?base64?").and_then(|t| t.strip_suffix("?=")) {
        Some(encoded) => {
            // Strict standard Base64 (RFC 4648 §4): the alphabet only, padded to a multiple of four;
            // bits left over after the last full byte are ignored, as they always were here.
            let bytes =
                crate::base64::HEADER.decode(encoded).ok_or("is not valid base64 inside =?base64?…?=")?;
            String::from_utf8(bytes).map_err(|_| "decodes to bytes that are not UTF-8")
        }
        None => Ok(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use serde_json::json;

    #[test]
    fn decodes_the_sentinel_form_strictly_and_reads_anything_else_literally() {
        assert_eq!(decode(b"=?base64?SGVsbG8=?=").as_deref(), Ok("Hello"));
        assert_eq!(decode(b"=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(), Ok("Hello, 世界"));
        assert_eq!(decode(b"us-west1").as_deref(), Ok("us-west1"));
        assert_eq!(decode(b"  padded\t").as_deref(), Ok("padded"));
        // Without the exact wrapper it is literal.
        assert_eq!(decode(b"SGVsbG8=").as_deref(), Ok("SGVsbG8="));
        assert_eq!(decode(b"=?base64?SGVsbG8=").as_deref(), Ok("=?base64?SGVsbG8="));
        // Bad padding, bad characters.
        assert!(decode(b"=?base64?SGVsbG8?=").is_err());
        assert!(decode(b"=?base64?SGVs!!!bG8=?=").is_err());
        assert!(decode(b"=?base64?SG=sbG8=?=").is_err());
        assert!(decode("caf\u{e9}".as_bytes()).is_err());
    }

    #[test]
    fn header_and_body_must_agree() {
        let params = annotated(&json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "on": {"type": "boolean", "x-mcp-header": "On"}
        }}));
        let mut h = HeaderMap::new();
        h.insert("mcp-param-region", HeaderValue::from_static("=?base64?ZXUtMQ==?="));
        h.insert("mcp-param-n", HeaderValue::from_static("42.0"));
        h.insert("mcp-param-on", HeaderValue::from_static("true"));
        assert_eq!(check(&params, &h, Some(&json!({"region": "eu-1", "n": 42, "on": true}))), Ok(()));
        assert_eq!(
            check(&params, &h, Some(&json!({"region": "eu-2", "n": 42, "on": true}))),
            Err("header mismatch: Mcp-Param-Region is 'eu-1' but the body's arguments.region is \"eu-2\""
                .into())
        );
        h.remove("mcp-param-region");
        assert_eq!(
            check(&params, &h, Some(&json!({"region": "eu-1", "n": 42, "on": true}))),
            Err("header mismatch: the Mcp-Param-Region header is missing; the body's arguments.region is \"eu-1\"".into())
        );
        assert_eq!(
            check(&params, &h, Some(&json!({"n": 42}))),
            Err("header mismatch: Mcp-Param-On is 'true' but the body has no arguments.on".into())
        );
        // A null value is no value: no header expected.
        assert_eq!(check(&params, &HeaderMap::new(), Some(&json!({"region": null}))), Ok(()));
    }
}
