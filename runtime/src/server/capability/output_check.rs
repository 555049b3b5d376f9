//! The output check: a hand-written tool's structured content is validated against the
//! `outputSchema` it advertises before the result leaves, as the Python and TypeScript SDKs'
//! servers do. A mismatch, or no structured content while advertising a schema, is a tool
//! error naming the field ([`ToolError::OutputMismatch`]).
//!
//! Only tools whose [`ToolInfo::output_checked`] is true come here: `#[tool]` tools return
//! their schema's own type, so their calls never pay for it. The validator is compiled on a
//! tool's first checked call and kept. The check needs the `output-check` feature (on by
//! default); without it, hand-written tools' output leaves unchecked.

#[cfg(feature = "output-check")]
use std::sync::OnceLock;

use crate::tool::{ToolError, ToolInfo, ToolOutput};

/// One tool's compiled output validator.
#[derive(Default)]
pub(crate) struct OutputCheck {
    #[cfg(feature = "output-check")]
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl OutputCheck {
    /// Check `output` against `info`'s output schema.
    #[cfg(feature = "output-check")]
    pub(crate) fn check(&self, info: &ToolInfo, output: &ToolOutput) -> Result<(), ToolError> {
        let Some(schema) = info.output_schema() else { return Ok(()) };
        let mismatch = |problem: String| ToolError::OutputMismatch { tool: info.name().to_owned(), problem };
        let Some(structured) = &output.structured else {
            return Err(mismatch("it returned no structured content".to_owned()));
        };
        let validator = self
            .validator
            .get_or_init(|| jsonschema::validator_for(schema.value()).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| mismatch(format!("the outputSchema itself does not compile: {e}")))?;
        match validator.iter_errors(structured).next() {
            None => Ok(()),
            Some(e) => {
                let path = e.instance_path().as_str().to_owned();
                let at = if path.is_empty() { "at the top level".to_owned() } else { format!("at {path}") };
                Err(mismatch(format!("{at}: {e}")))
            }
        }
    }

    /// Without the `output-check` feature there is no validator: the output leaves as it is.
    #[cfg(not(feature = "output-check"))]
    pub(crate) fn check(&self, info: &ToolInfo, output: &ToolOutput) -> Result<(), ToolError> {
        let _ = (info, output);
        Ok(())
    }
}

#[cfg(all(test, feature = "output-check"))]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::Schema;

    fn info() -> ToolInfo {
        ToolInfo::new("stats", "Stats.", Schema::empty_object()).with_output_schema(Schema::from_value(json!({
            "type": "object",
            "properties": {"count": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}}},
            "required": ["count"],
        })))
    }

    #[test]
    fn a_mismatch_names_the_field() {
        let check = OutputCheck::default();
        let info = info();
        assert_eq!(check.check(&info, &ToolOutput::structured(json!({"count": 3, "items": ["a"]}))), Ok(()));
        assert_eq!(
            check.check(&info, &ToolOutput::structured(json!({"count": "3"}))).unwrap_err().to_string(),
            r#"tool 'stats' returned output that does not match its outputSchema: at /count: "3" is not of type "integer""#
        );
        assert_eq!(
            check
                .check(&info, &ToolOutput::structured(json!({"count": 1, "items": [1]})))
                .unwrap_err()
                .to_string(),
            r#"tool 'stats' returned output that does not match its outputSchema: at /items/0: 1 is not of type "string""#
        );
        assert_eq!(
            check.check(&info, &ToolOutput::structured(json!({}))).unwrap_err().to_string(),
            r#"tool 'stats' returned output that does not match its outputSchema: at the top level: "count" is a required property"#
        );
        assert_eq!(
            check.check(&info, &ToolOutput::text("3")).unwrap_err().to_string(),
            "tool 'stats' returned output that does not match its outputSchema: it returned no structured content"
        );
    }
}
