//! [`RunPolicy`]: refuse a tool set that combines private-data access, untrusted-content
//! ingestion and egress in one run (the lethal trifecta) unless a human gate is present.
//!
//! The check reads declarations (`caps`), so it runs on your side, before you start the
//! CLI: nothing on the wire enforces it, and `serve_registry` serves a trifecta happily if
//! asked to. What the wire does guarantee is that the tags survive the crossing: a served
//! tool's `caps` travel in `_meta` under [`META_KEY`](crate::META_KEY), and
//! [`ToolCaps::from_meta`] reads them back.

use std::sync::Arc;

use serde_json::Value;

use crate::registry::ToolRegistry;
#[cfg(feature = "http")]
use crate::spec::McpServerSpec;
use crate::tool::{META_KEY, Tool};

/// The capability tag of a tool that reads private data.
pub const CAP_PRIVATE_DATA: &str = "private_data";
/// The capability tag of a tool that ingests untrusted content.
pub const CAP_UNTRUSTED_CONTENT: &str = "untrusted_content";
/// The capability tag of a tool that sends data out.
pub const CAP_EGRESS: &str = "egress";

/// Why [`RunPolicy`] refuses a trifecta, verbatim.
pub const LETHAL_TRIFECTA_REASON: &str = "lethal trifecta: this tool set combines private-data access, untrusted-content ingestion, and egress in one run — require a human gate or split the run";

/// One member of a run's tool set, as the policy sees it: a name and its capability tags.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolCaps {
    /// The tool's name (or, for a whole served spec, the server's).
    pub name: String,
    /// Its capability tags.
    pub caps: Vec<String>,
}

impl ToolCaps {
    /// A name and its tags.
    pub fn new<I, S>(name: impl Into<String>, caps: I) -> ToolCaps
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ToolCaps { name: name.into(), caps: caps.into_iter().map(Into::into).collect() }
    }

    /// A tool's declared caps (local, `#[tool]`, or adopted).
    pub fn of_tool(tool: &dyn Tool) -> ToolCaps {
        let info = tool.info();
        ToolCaps::new(info.name(), info.declarations().caps.iter().cloned())
    }

    /// A served spec as one member: its name, and the union of its tools' caps. The
    /// legs then name the server, since a spec keeps only the union; check its registry
    /// to name the tools.
    #[cfg(feature = "http")]
    pub fn of_spec(spec: &McpServerSpec) -> ToolCaps {
        ToolCaps::new(spec.name(), spec.caps().iter().cloned())
    }

    /// A listed tool's caps from its `_meta` (`{"toolwire": {"caps": [...]}}`), as a
    /// toolwire server advertises them; a tool without them declares none.
    pub fn from_meta(name: impl Into<String>, meta: &Value) -> ToolCaps {
        let caps = meta[META_KEY]["caps"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        ToolCaps { name: name.into(), caps }
    }
}

/// The tools contributing each leg of the trifecta, sorted and unique.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrifectaLegs {
    /// Tools tagged `private_data`.
    pub private_data: Vec<String>,
    /// Tools tagged `untrusted_content`.
    pub untrusted_content: Vec<String>,
    /// Tools tagged `egress`.
    pub egress: Vec<String>,
}

impl TrifectaLegs {
    /// Whether all three legs are present.
    pub fn is_complete(&self) -> bool {
        !self.private_data.is_empty() && !self.untrusted_content.is_empty() && !self.egress.is_empty()
    }
}

/// What [`RunPolicy`] decided about a tool set.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyVerdict {
    /// Whether the run may go ahead.
    pub allowed: bool,
    /// Why it may not ([`LETHAL_TRIFECTA_REASON`]); `None` when allowed.
    pub reason: Option<&'static str>,
    /// The tools contributing each leg, whatever the verdict.
    pub legs: TrifectaLegs,
    /// Whether the trifecta was present and allowed only because a human gate is.
    pub gated: bool,
}

/// Refuses a tool set combining `private_data`, `untrusted_content` and `egress` unless a
/// human gate is present.
///
/// ```
/// use toolwire::approvals::{LETHAL_TRIFECTA_REASON, RunPolicy, ToolCaps};
///
/// let set = [
///     ToolCaps::new("read_record", ["private_data"]),
///     ToolCaps::new("fetch_page", ["untrusted_content"]),
///     ToolCaps::new("notify", ["egress"]),
/// ];
/// let verdict = RunPolicy::new().check(set.clone());
/// assert!(!verdict.allowed);
/// assert_eq!(verdict.reason, Some(LETHAL_TRIFECTA_REASON));
/// assert_eq!(verdict.legs.egress, ["notify"]);
/// assert!(RunPolicy::new().with_human_gate(true).check(set).allowed);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunPolicy {
    human_gate: bool,
}

impl RunPolicy {
    /// A policy with no human gate.
    pub fn new() -> RunPolicy {
        RunPolicy::default()
    }

    /// Say whether a human gate is present (an [`ApprovalServer`](super::ApprovalServer)
    /// asking a person about these tools, say).
    pub fn with_human_gate(mut self, present: bool) -> RunPolicy {
        self.human_gate = present;
        self
    }

    /// Whether this policy counts a human gate as present.
    pub fn human_gate(&self) -> bool {
        self.human_gate
    }

    /// Check a tool set given as names and caps.
    pub fn check<I>(&self, members: I) -> PolicyVerdict
    where
        I: IntoIterator<Item = ToolCaps>,
    {
        let mut legs = TrifectaLegs::default();
        for member in members {
            for cap in &member.caps {
                let leg = match cap.as_str() {
                    CAP_PRIVATE_DATA => &mut legs.private_data,
                    CAP_UNTRUSTED_CONTENT => &mut legs.untrusted_content,
                    CAP_EGRESS => &mut legs.egress,
                    _ => continue,
                };
                leg.push(member.name.clone());
            }
        }
        for leg in [&mut legs.private_data, &mut legs.untrusted_content, &mut legs.egress] {
            leg.sort();
            leg.dedup();
        }
        let trifecta = legs.is_complete();
        let allowed = !trifecta || self.human_gate;
        PolicyVerdict {
            allowed,
            reason: (!allowed).then_some(LETHAL_TRIFECTA_REASON),
            legs,
            gated: trifecta && self.human_gate,
        }
    }

    /// Check tools (local, `#[tool]`, or adopted).
    pub fn check_tools<'a, I>(&self, tools: I) -> PolicyVerdict
    where
        I: IntoIterator<Item = &'a Arc<dyn Tool>>,
    {
        self.check(tools.into_iter().map(|t| ToolCaps::of_tool(t.as_ref())))
    }

    /// Check a registry's tools.
    pub fn check_registry(&self, registry: &ToolRegistry) -> PolicyVerdict {
        self.check_tools(registry.iter())
    }

    /// Check the served specs of one run together (each contributes its caps' union; the
    /// legs name the servers).
    #[cfg(feature = "http")]
    pub fn check_specs<'a, I>(&self, specs: I) -> PolicyVerdict
    where
        I: IntoIterator<Item = &'a McpServerSpec>,
    {
        self.check(specs.into_iter().map(ToolCaps::of_spec))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use serde_json::value::RawValue;

    use super::*;
    use crate::context::Context;
    use crate::schema::Schema;
    #[cfg(feature = "http")]
    use crate::server::{Server, ServerOptions};
    #[cfg(feature = "http")]
    use crate::spec::{SpecOptions, serve_registry};
    use crate::tool::{Declarations, ToolFuture, ToolInfo, ToolOutput};

    struct Tagged(ToolInfo);

    impl Tool for Tagged {
        fn info(&self) -> &ToolInfo {
            &self.0
        }

        fn call<'a>(&'a self, _args: &'a RawValue, _ctx: &'a Context) -> ToolFuture<'a> {
            Box::pin(async { Ok(ToolOutput::text("ok")) })
        }
    }

    fn tagged(name: &'static str, caps: &[&str]) -> Arc<dyn Tool> {
        let d = Declarations::read_only().with_caps(caps.iter().copied());
        Arc::new(Tagged(ToolInfo::new(name, "A tagged tool.", Schema::empty_object()).with_declarations(d)))
    }

    fn trifecta() -> ToolRegistry {
        ToolRegistry::from_tools([
            tagged("read_record", &["private_data"]),
            tagged("fetch_page", &["untrusted_content"]),
            tagged("notify", &["egress"]),
            tagged("browse", &["untrusted_content", "egress"]),
            tagged("lint", &[]),
        ])
        .unwrap()
    }

    #[test]
    fn the_trifecta_is_refused_with_the_seeds_reason_and_names_each_leg() {
        let verdict = RunPolicy::new().check_registry(&trifecta());
        assert!(!verdict.allowed);
        assert!(!verdict.gated);
        assert_eq!(
            verdict.reason,
            Some(
                "lethal trifecta: this tool set combines private-data access, untrusted-content ingestion, and egress in one run — require a human gate or split the run"
            )
        );
        assert_eq!(
            verdict.legs,
            TrifectaLegs {
                private_data: vec!["read_record".into()],
                untrusted_content: vec!["browse".into(), "fetch_page".into()],
                egress: vec!["browse".into(), "notify".into()],
            }
        );
    }

    #[test]
    fn a_human_gate_lets_it_through_and_says_it_was_needed() {
        let verdict = RunPolicy::new().with_human_gate(true).check_registry(&trifecta());
        assert!(verdict.allowed && verdict.gated);
        assert_eq!(verdict.reason, None);
        assert!(verdict.legs.is_complete());
    }

    #[test]
    fn any_two_legs_are_allowed() {
        for drop in ["private_data", "untrusted_content", "egress"] {
            let set = [
                ToolCaps::new("a", ["private_data"]),
                ToolCaps::new("b", ["untrusted_content"]),
                ToolCaps::new("c", ["egress"]),
            ]
            .map(|mut t| {
                t.caps.retain(|c| c != drop);
                t
            });
            let verdict = RunPolicy::new().check(set);
            assert!(
                verdict.allowed && !verdict.gated && verdict.reason.is_none(),
                "without {drop}: {verdict:?}"
            );
        }
        assert!(RunPolicy::new().check([]).allowed);
    }

    #[cfg(feature = "http")]
    #[test]
    fn served_declarations_are_checked_too() {
        // A served spec keeps the union of its tools' caps: the legs name the servers.
        let mut private = ToolRegistry::new();
        private.insert(tagged("read_record", &["private_data"])).unwrap();
        let mut web = ToolRegistry::new();
        web.insert(tagged("fetch_page", &["untrusted_content"])).unwrap();
        web.insert(tagged("notify", &["egress"])).unwrap();
        let a =
            serve_registry(Server::new(private, ServerOptions::new("records", "1.0.0")), SpecOptions::http())
                .unwrap();
        let b = serve_registry(Server::new(web, ServerOptions::new("web", "1.0.0")), SpecOptions::http())
            .unwrap();
        let verdict = RunPolicy::new().check_specs([&a, &b]);
        assert_eq!(verdict.reason, Some(LETHAL_TRIFECTA_REASON));
        assert_eq!(verdict.legs.private_data, ["records"]);
        assert_eq!(verdict.legs.egress, ["web"]);
        assert!(RunPolicy::new().check_specs([&b]).allowed);
    }

    #[test]
    fn listed_tools_caps_are_read_from_meta() {
        // A listed tool's `_meta`, as a toolwire server advertises it.
        let listed =
            ToolCaps::from_meta("notify", &json!({"toolwire": {"caps": ["egress"], "side_effecting": true}}));
        assert_eq!(listed, ToolCaps::new("notify", ["egress"]));
        assert_eq!(ToolCaps::from_meta("x", &json!({})).caps, Vec::<String>::new());
    }
}
