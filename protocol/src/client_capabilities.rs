//! [`ClientCapabilities`]: what a client said it can do (`capabilities` in `initialize`, or
//! `io.modelcontextprotocol/clientCapabilities` in a modern `_meta`), as far as a server
//! asking the client something needs to know.

use serde::Deserialize;
use serde_json::value::RawValue;

/// The client features a server may ask for in the middle of a call. Read leniently: a
/// member that is present and an object (even `{}`) declares the feature; anything else,
/// or malformed capabilities, declares nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// `elicitation` with form mode: `elicitation: {}` (before 2025-11-25 the only mode)
    /// or `elicitation: {"form": {}}`.
    pub elicitation_form: bool,
    /// `elicitation: {"url": {}}` (2025-11-25).
    pub elicitation_url: bool,
    /// `sampling`.
    pub sampling: bool,
    /// `sampling.tools` (2025-11-25): the client's model may be offered tools (`tools`,
    /// `toolChoice` in `sampling/createMessage`). A server must see it before sending tools.
    pub sampling_tools: bool,
    /// `roots`.
    pub roots: bool,
    /// `roots.listChanged`: the client sends `notifications/roots/list_changed`.
    pub roots_list_changed: bool,
    /// `extensions["io.modelcontextprotocol/tasks"]`: the client takes a task in place of a
    /// result (the tasks extension, SEP-2663; [`TASKS_EXTENSION`](crate::wire::TASKS_EXTENSION)).
    pub tasks: bool,
}

/// One client capability a request may need: what a tool declares with toolwire's
/// `ToolInfo::requires_client`, so that a client without it is refused up front (-32021)
/// instead of being asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ClientCapability {
    /// `elicitation` (form mode).
    Elicitation,
    /// `elicitation.url` (2025-11-25).
    ElicitationUrl,
    /// `sampling`.
    Sampling,
    /// `roots`.
    Roots,
}

impl ClientCapability {
    /// The capability as the spec names it: `elicitation`, `elicitation.url`, `sampling`,
    /// `roots`.
    pub fn name(self) -> &'static str {
        match self {
            ClientCapability::Elicitation => "elicitation",
            ClientCapability::ElicitationUrl => "elicitation.url",
            ClientCapability::Sampling => "sampling",
            ClientCapability::Roots => "roots",
        }
    }

    /// The capability as a `ClientCapabilities` object member, as JSON text:
    /// `"sampling":{}`, `"elicitation":{"url":{}}`.
    pub fn member_json(self) -> &'static str {
        match self {
            ClientCapability::Elicitation => r#""elicitation":{}"#,
            ClientCapability::ElicitationUrl => r#""elicitation":{"url":{}}"#,
            ClientCapability::Sampling => r#""sampling":{}"#,
            ClientCapability::Roots => r#""roots":{}"#,
        }
    }
}

impl ClientCapabilities {
    /// Whether the client declared `capability`.
    pub fn has(&self, capability: ClientCapability) -> bool {
        match capability {
            ClientCapability::Elicitation => self.elicitation_form,
            ClientCapability::ElicitationUrl => self.elicitation_url,
            ClientCapability::Sampling => self.sampling,
            ClientCapability::Roots => self.roots,
        }
    }
}

#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(default, borrow)]
    elicitation: Option<&'a RawValue>,
    #[serde(default, borrow)]
    sampling: Option<&'a RawValue>,
    #[serde(default, borrow)]
    roots: Option<&'a RawValue>,
    #[serde(default, borrow)]
    extensions: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Elicitation<'a> {
    #[serde(default, borrow)]
    form: Option<&'a RawValue>,
    #[serde(default, borrow)]
    url: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Sampling<'a> {
    #[serde(default, borrow)]
    tools: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Roots {
    #[serde(rename = "listChanged", default)]
    list_changed: Option<serde_json::Value>,
}

fn is_object(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().starts_with('{'))
}

impl ClientCapabilities {
    /// Read `capabilities` (raw JSON); `None` or anything unreadable declares nothing.
    pub fn read(raw: Option<&RawValue>) -> ClientCapabilities {
        let Some(wire) = raw.and_then(|r| serde_json::from_str::<Wire<'_>>(r.get()).ok()) else {
            return ClientCapabilities::default();
        };
        let mut caps = ClientCapabilities::default();
        if is_object(wire.elicitation) {
            let modes = wire.elicitation.and_then(|e| serde_json::from_str::<Elicitation<'_>>(e.get()).ok());
            let (form, url) = modes.map_or((false, false), |m| (is_object(m.form), is_object(m.url)));
            // No mode named is form mode, as it was before modes existed.
            caps.elicitation_form = form || !url;
            caps.elicitation_url = url;
        }
        caps.sampling = is_object(wire.sampling);
        caps.sampling_tools = caps.sampling
            && wire
                .sampling
                .and_then(|s| serde_json::from_str::<Sampling<'_>>(s.get()).ok())
                .is_some_and(|s| is_object(s.tools));
        if is_object(wire.roots) {
            caps.roots = true;
            caps.roots_list_changed = wire
                .roots
                .and_then(|r| serde_json::from_str::<Roots>(r.get()).ok())
                .and_then(|r| r.list_changed)
                .is_some_and(|v| v == serde_json::Value::Bool(true));
        }
        caps.tasks = wire
            .extensions
            .and_then(|e| serde_json::from_str::<std::collections::BTreeMap<&str, &RawValue>>(e.get()).ok())
            .is_some_and(|e| is_object(e.get(crate::wire::TASKS_EXTENSION).copied()));
        caps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> ClientCapabilities {
        ClientCapabilities::read(Some(&RawValue::from_string(text.to_owned()).unwrap()))
    }

    #[test]
    fn members_that_are_objects_declare_features() {
        assert_eq!(read("{}"), ClientCapabilities::default());
        assert_eq!(ClientCapabilities::read(None), ClientCapabilities::default());
        let all = read(
            r#"{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{"listChanged":true}}"#,
        );
        assert!(
            all.elicitation_form
                && all.elicitation_url
                && all.sampling
                && all.sampling_tools
                && all.roots
                && all.roots_list_changed
        );
        let legacy = read(r#"{"elicitation":{},"roots":{}}"#);
        assert!(
            legacy.elicitation_form && !legacy.elicitation_url && legacy.roots && !legacy.roots_list_changed
        );
        let url_only = read(r#"{"elicitation":{"url":{}}}"#);
        assert!(!url_only.elicitation_form && url_only.elicitation_url);
        assert_eq!(read(r#"{"sampling":true,"roots":null}"#), ClientCapabilities::default());
        let text_only = read(r#"{"sampling":{"context":{}}}"#);
        assert!(text_only.sampling && !text_only.sampling_tools);
        assert!(!read(r#"{"sampling":{"tools":true}}"#).sampling_tools);
        assert_eq!(read("[1]"), ClientCapabilities::default());
        assert!(read(r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#).tasks);
        assert!(!read(r#"{"extensions":{"io.modelcontextprotocol/tasks":true}}"#).tasks);
        assert!(!read(r#"{"extensions":{"x/tasks":{}}}"#).tasks);
        assert!(!read(r#"{"tasks":{}}"#).tasks);
    }
}
