//! `tools/list` and `tools/call`: their params, the advertised tool object, and the call
//! result.

use std::borrow::Cow;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::meta::RequestMeta;
use crate::tool::{Annotations, Content, Declarations, META_KEY, ToolError, ToolInfo, ToolOutput};

/// `tools/list` params.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ListToolsParams<'a> {
    /// The opaque cursor from a previous page.
    #[serde(default, borrow)]
    pub(crate) cursor: Option<Cow<'a, str>>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub(crate) meta: Option<RequestMeta<'a>>,
}

/// `tools/call` params.
#[derive(Debug, Deserialize)]
pub(crate) struct CallToolParams<'a> {
    /// The tool to call.
    #[serde(borrow)]
    pub(crate) name: Cow<'a, str>,
    /// The arguments, raw, exactly as received. `null` is read as absent.
    #[serde(default, borrow)]
    pub(crate) arguments: Option<&'a RawValue>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    pub(crate) meta: Option<RequestMeta<'a>>,
}

/// One tool as `tools/list` advertises it. The schemas are the tool's canonical bytes,
/// embedded verbatim.
#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    description: &'a str,
    #[serde(rename = "inputSchema")]
    input_schema: &'a RawValue,
    #[serde(rename = "outputSchema", skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a RawValue>,
    annotations: Annotations,
    #[serde(rename = "_meta")]
    meta: ToolMeta<'a>,
}

/// `{"toolwire": <declarations>}`, keyed by [`META_KEY`].
struct ToolMeta<'a>(&'a Declarations);

impl Serialize for ToolMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(META_KEY, self.0)?;
        map.end()
    }
}

/// The advertised JSON object for one tool.
pub(crate) fn tool_json(info: &ToolInfo) -> Result<String, serde_json::Error> {
    serde_json::to_string(&WireTool {
        name: info.name(),
        title: info.title(),
        description: info.description(),
        input_schema: info.input_schema().as_raw(),
        output_schema: info.output_schema().map(|s| s.as_raw()),
        annotations: info.annotations(),
        meta: ToolMeta(info.declarations()),
    })
}

/// A `tools/call` result body, without the modern `_meta`/`resultType` members.
#[derive(Serialize)]
struct CallToolResult<'a> {
    content: &'a [Content],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured: Option<&'a RawValue>,
    #[serde(rename = "isError")]
    is_error: bool,
}

/// The result body for a call's outcome. A [`ToolError`] is a tool error, never a protocol
/// error: `isError: true` and one text block holding the error's `Display`.
///
/// Structured content is written in canonical form (RFC 8785), so its bytes do not depend on
/// which `serde_json` map features the build unified.
pub(crate) fn call_result_json(outcome: &Result<ToolOutput, ToolError>) -> Result<String, serde_json::Error> {
    match outcome {
        Ok(output) => {
            let structured = match &output.structured {
                Some(value) => Some(RawValue::from_string(crate::schema::canonical_json(value))?),
                None => None,
            };
            serde_json::to_string(&CallToolResult {
                content: &output.content,
                structured: structured.as_deref(),
                is_error: false,
            })
        }
        Err(error) => serde_json::to_string(&CallToolResult {
            content: &[Content::text(error.to_string())],
            structured: None,
            is_error: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;
    use serde_json::json;

    #[test]
    fn a_tool_advertises_its_bytes_annotations_and_declarations() {
        let info = ToolInfo::new("deploy", "Deploy it.", Schema::empty_object()).with_declarations(
            Declarations { requires_approval: true, ..Declarations::default() }.with_caps(["egress"]),
        );
        assert_eq!(
            tool_json(&info).unwrap(),
            r#"{"name":"deploy","description":"Deploy it.","inputSchema":{"additionalProperties":false,"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false},"_meta":{"toolwire":{"side_effecting":true,"requires_approval":true,"caps":["egress"]}}}"#
        );
    }

    #[test]
    fn results_and_tool_errors() {
        let ok = ToolOutput::structured(json!({"sum": 5, "a": [1.0]}));
        assert_eq!(
            call_result_json(&Ok(ok)).unwrap(),
            r#"{"content":[{"type":"text","text":"{\"a\":[1],\"sum\":5}"}],"structuredContent":{"a":[1],"sum":5},"isError":false}"#
        );
        let err = ToolError::failed("fail", "boom");
        assert_eq!(
            call_result_json(&Err(err)).unwrap(),
            r#"{"content":[{"type":"text","text":"tool 'fail' failed: boom"}],"isError":true}"#
        );
    }

    #[test]
    fn call_params_keep_the_argument_bytes() {
        let p: CallToolParams<'_> =
            serde_json::from_str(r#"{"name":"echo","arguments":{ "text" : "hi" }}"#).unwrap();
        assert_eq!(p.name, "echo");
        assert_eq!(p.arguments.unwrap().get(), r#"{ "text" : "hi" }"#);
        let p: CallToolParams<'_> = serde_json::from_str(r#"{"name":"echo","arguments":null}"#).unwrap();
        assert!(p.arguments.is_none());
    }
}
