//! [`ApprovalServer`]: a permission-prompt tool. Claude Code's `--permission-prompt-tool`
//! names it; the CLI calls it with `{"tool_name", "input", "tool_use_id"}` instead of
//! prompting a terminal, and it answers with exactly one text block holding
//! `{"behavior":"allow","updatedInput":{…}}` or `{"behavior":"deny","message":"…"}` (never
//! `structuredContent`: the CLI rejects that with "Expected a single text block param").
//!
//! The decision table, in order:
//!
//! | the prompt | verdict | [`DecisionSource`] |
//! | --- | --- | --- |
//! | malformed (no `tool_name`, no `input`) | deny | `Error` |
//! | [`Autonomy::Ungated`] | allow, original input | `Autonomy` |
//! | tool on `auto_allow` and `auto_allow_when` (if set) returns true | allow, original input | `AutoAllow` |
//! | the asker allows | allow, its input or the original | `Asker` |
//! | the asker denies | deny with its message | `Asker` |
//! | no answer within the timeout | deny, naming the deadline | `Timeout` |
//! | the asker fails or panics | deny, naming the failure | `Error` |
//!
//! It never fails open and never raises: an error out of the tool would reach the CLI as a
//! broken permission system rather than a denial, leaving the model free to retry a call
//! nobody approved.
//!
//! A prompt the CLI withdraws (`notifications/cancelled`) drops the call: the asker's task
//! is aborted, nothing is answered and nothing is recorded, because nothing was decided.

use std::collections::BTreeSet;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::asker::{Answer, ApprovalRequest, Asker};
use super::decision::{ApprovalDecision, DecisionSink, DecisionSource};
use crate::context::Context;
use crate::principal::Principal;
#[cfg(feature = "http")]
use crate::registry::ToolRegistry;
use crate::schema::Schema;
#[cfg(feature = "http")]
use crate::server::ServerOptions;
#[cfg(feature = "http")]
use crate::spec::{McpServerSpec, SpecError, SpecOptions, serve_registry};
use crate::sync::lock;
use crate::tool::{Declarations, Tool, ToolFuture, ToolInfo, ToolOutput};

/// The permission-prompt tool's default name.
pub const DEFAULT_APPROVAL_TOOL_NAME: &str = "approve";

/// A server name for [`ApprovalServer`]'s `serve` (feature `http`) when you have no better one; the CLI then
/// names the tool `mcp__toolwire_approvals__approve`.
pub const DEFAULT_APPROVAL_SERVER_NAME: &str = "toolwire_approvals";

/// The timeout an [`ApprovalServer`] puts on its asker unless told otherwise.
pub const DEFAULT_ASKER_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether the run's autonomy tier gates calls at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Autonomy {
    /// Every prompt goes through `auto_allow` and then the asker (the default).
    #[default]
    Gated,
    /// The tier does not gate: every prompt is allowed without asking, and recorded with
    /// [`DecisionSource::Autonomy`], so it never reads afterwards as a person's yes.
    Ungated,
}

type Predicate = Arc<dyn Fn(&str, &Value) -> bool + Send + Sync>;

/// A permission-prompt tool backed by an [`Asker`].
///
/// Cheap to clone: clones share the asker, the settings and the decision record, so you
/// can serve one clone and read [`decisions`](ApprovalServer::decisions) from another.
///
/// ```
/// use std::time::Duration;
/// use toolwire::approvals::{Answer, ApprovalServer, asker_fn};
///
/// let approvals = ApprovalServer::builder(asker_fn(|_| async { Ok(Answer::deny("not today")) }))
///     .auto_allow(["Read", "Grep"])
///     .auto_allow_when(|_tool, input| !input["file_path"].as_str().unwrap_or("").starts_with("/etc/"))
///     .timeout(Some(Duration::from_secs(120)))
///     .build();
/// assert_eq!(approvals.tool_name(), "approve");
///
/// // Served over loopback HTTP (feature `http`):
/// # #[cfg(feature = "http")] {
/// let spec = approvals.serve("approvals").unwrap();
/// assert_eq!(approvals.permission_prompt_tool(&spec), "mcp__approvals__approve");
/// let args = approvals.claude_cli_args(&spec);
/// assert_eq!(args[args.len() - 2..], ["--permission-prompt-tool", "mcp__approvals__approve"]);
/// # }
/// ```
#[derive(Clone)]
pub struct ApprovalServer {
    inner: Arc<Inner>,
}

struct Inner {
    info: ToolInfo,
    asker: Arc<dyn Asker>,
    auto_allow: BTreeSet<String>,
    auto_allow_when: Option<Predicate>,
    timeout: Option<Duration>,
    autonomy: Autonomy,
    sink: Option<DecisionSink>,
    decisions: Mutex<Vec<ApprovalDecision>>,
}

impl fmt::Debug for ApprovalServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalServer")
            .field("tool_name", &self.inner.info.name())
            .field("auto_allow", &self.inner.auto_allow)
            .field("auto_allow_when", &self.inner.auto_allow_when.is_some())
            .field("timeout", &self.inner.timeout)
            .field("autonomy", &self.inner.autonomy)
            .field("decisions", &self.lock().len())
            .finish()
    }
}

/// Builds an [`ApprovalServer`]; start with [`ApprovalServer::builder`].
pub struct ApprovalServerBuilder {
    tool_name: String,
    asker: Arc<dyn Asker>,
    auto_allow: BTreeSet<String>,
    auto_allow_when: Option<Predicate>,
    timeout: Option<Duration>,
    autonomy: Autonomy,
    sink: Option<DecisionSink>,
}

impl fmt::Debug for ApprovalServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalServerBuilder").field("tool_name", &self.tool_name).finish_non_exhaustive()
    }
}

impl ApprovalServerBuilder {
    /// The tool's name (default [`DEFAULT_APPROVAL_TOOL_NAME`], `approve`). It must match
    /// MCP's tool-name grammar, or serving it fails.
    pub fn tool_name(mut self, name: impl Into<String>) -> Self {
        self.tool_name = name.into();
        self
    }

    /// Tools approved without asking, matched on the name the CLI sends (`Read`,
    /// `mcp__engine__run_check`). Arguments are not consulted: `["Read"]` means reading
    /// *anything* is fine, `~/.ssh/id_rsa` included; narrow it with
    /// [`auto_allow_when`](Self::auto_allow_when). Adds to any names given before.
    pub fn auto_allow<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.auto_allow.extend(names.into_iter().map(Into::into));
        self
    }

    /// A filter on `auto_allow`, called with the tool name and input. It can only subtract:
    /// the gate is "on `auto_allow` *and* the predicate is true", so a predicate returning
    /// true for a tool not on `auto_allow` never lets it through. A predicate that returns
    /// false, or panics, sends the prompt on to the asker: a bug in the filter costs a
    /// prompt, not an approval.
    pub fn auto_allow_when<F>(mut self, predicate: F) -> Self
    where
        F: Fn(&str, &Value) -> bool + Send + Sync + 'static,
    {
        self.auto_allow_when = Some(Arc::new(predicate));
        self
    }

    /// How long the asker may take (default [`DEFAULT_ASKER_TIMEOUT`], 60 s). The
    /// server enforces it; an asker is never trusted to. When it fires the prompt is
    /// denied ([`DecisionSource::Timeout`]) and the asker's future is dropped. `None` waits
    /// forever: right for an interactive UI, wrong for a queue worker.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether the run's tier gates calls (default [`Autonomy::Gated`]).
    pub fn autonomy(mut self, autonomy: Autonomy) -> Self {
        self.autonomy = autonomy;
        self
    }

    /// Also hand each decision to `sink` as it is made (after the in-memory record).
    pub fn on_decision<F>(mut self, sink: F) -> Self
    where
        F: Fn(&ApprovalDecision) + Send + Sync + 'static,
    {
        self.sink = Some(Arc::new(sink));
        self
    }

    /// Finish.
    pub fn build(self) -> ApprovalServer {
        let info = ToolInfo::new(
            self.tool_name,
            "Answer an agent CLI's permission prompt: may the named tool run with this input?",
            input_schema().clone(),
        )
        .with_title("Approve a tool call")
        .with_declarations(Declarations::read_only());
        ApprovalServer {
            inner: Arc::new(Inner {
                info,
                asker: self.asker,
                auto_allow: self.auto_allow,
                auto_allow_when: self.auto_allow_when,
                timeout: self.timeout,
                autonomy: self.autonomy,
                sink: self.sink,
                decisions: Mutex::new(Vec::new()),
            }),
        }
    }
}

/// The schema of what the CLI sends: `tool_name` and `input` required, `tool_use_id`
/// optional. Extra members are tolerated, so a CLI that adds one still gets an answer.
fn input_schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        Schema::from_value(serde_json::json!({
            "type": "object",
            "properties": {
                "tool_name": {"type": "string", "description": "The tool the agent wants to run."},
                "input": {"type": "object", "description": "The arguments it wants to run it with."},
                "tool_use_id": {"type": "string", "description": "The CLI's id for this tool use."}
            },
            "required": ["tool_name", "input"]
        }))
    })
}

/// What the CLI sends. `input` is kept as its raw bytes, so an allow echoes it verbatim.
#[derive(Deserialize)]
pub(super) struct Prompt {
    pub(super) tool_name: String,
    pub(super) input: Box<RawValue>,
    #[serde(default)]
    pub(super) tool_use_id: Option<String>,
}

/// A verdict before it is recorded.
pub(super) struct Verdict {
    pub(super) allowed: bool,
    /// For an allow, the `updatedInput` JSON text; for a deny, the message.
    pub(super) payload: String,
    pub(super) reason: String,
    pub(super) source: DecisionSource,
    pub(super) asked: bool,
}

impl Verdict {
    fn allow(input: String, reason: String, source: DecisionSource, asked: bool) -> Verdict {
        Verdict { allowed: true, payload: input, reason, source, asked }
    }

    fn deny(message: String, source: DecisionSource, asked: bool) -> Verdict {
        Verdict { allowed: false, payload: message.clone(), reason: message, source, asked }
    }

    /// The one text block the CLI reads.
    fn answer_text(&self) -> String {
        if self.allowed {
            format!("{{\"behavior\":\"allow\",\"updatedInput\":{}}}", self.payload)
        } else {
            let message = Value::String(self.payload.clone());
            format!("{{\"behavior\":\"deny\",\"message\":{message}}}")
        }
    }
}

/// Aborts the asker's task when the call is dropped (the CLI cancelled the prompt).
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl ApprovalServer {
    /// A server asking `asker`, with the defaults: tool `approve`, nothing auto-allowed, a
    /// 60 s timeout, gated.
    pub fn new(asker: impl Asker) -> ApprovalServer {
        ApprovalServer::builder(asker).build()
    }

    /// Start building a server that asks `asker`.
    pub fn builder(asker: impl Asker) -> ApprovalServerBuilder {
        ApprovalServer::builder_shared(Arc::new(asker))
    }

    /// Start building a server that asks a shared `asker`.
    pub fn builder_shared(asker: Arc<dyn Asker>) -> ApprovalServerBuilder {
        ApprovalServerBuilder {
            tool_name: DEFAULT_APPROVAL_TOOL_NAME.to_owned(),
            asker,
            auto_allow: BTreeSet::new(),
            auto_allow_when: None,
            timeout: Some(DEFAULT_ASKER_TIMEOUT),
            autonomy: Autonomy::Gated,
            sink: None,
        }
    }

    /// The tool's name (`approve` unless configured).
    pub fn tool_name(&self) -> &str {
        self.inner.info.name()
    }

    /// The tools approved without asking, sorted.
    pub fn auto_allowed(&self) -> impl ExactSizeIterator<Item = &str> {
        self.inner.auto_allow.iter().map(String::as_str)
    }

    /// The asker's timeout (`None`: forever).
    pub fn timeout(&self) -> Option<Duration> {
        self.inner.timeout
    }

    /// Every decision so far, in the order they were made.
    pub fn decisions(&self) -> Vec<ApprovalDecision> {
        self.lock().clone()
    }

    /// How many prompts have been answered.
    pub fn prompts_seen(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ApprovalDecision>> {
        lock(&self.inner.decisions)
    }

    /// Serve this tool over loopback HTTP as the MCP server `server_name`, with a
    /// generated bearer token and no server deadline (the asker's timeout is this server's
    /// own). Start the returned spec, then give the CLI
    /// [`claude_cli_args`](Self::claude_cli_args). Its `serverInfo.version` is toolwire's:
    /// this permission-prompt server is toolwire's own, not the host's.
    #[cfg(feature = "http")]
    pub fn serve(&self, server_name: &str) -> Result<McpServerSpec, SpecError> {
        self.serve_with(ServerOptions::new(server_name, env!("CARGO_PKG_VERSION")), SpecOptions::http())
    }

    /// [`serve`](Self::serve) as the server `server` names (and under its limits), served
    /// as `spec` says.
    #[cfg(feature = "http")]
    pub fn serve_with(&self, server: ServerOptions, spec: SpecOptions) -> Result<McpServerSpec, SpecError> {
        let mut registry = ToolRegistry::new();
        registry.register(self.clone())?;
        serve_registry(crate::server::Server::new(registry, server), spec)
    }

    /// The name the CLI addresses this tool by when `spec` serves it:
    /// `mcp__<server>__<tool>`, the value of `--permission-prompt-tool`.
    #[cfg(feature = "http")]
    pub fn permission_prompt_tool(&self, spec: &McpServerSpec) -> String {
        spec.mcp_names().qualified(self.tool_name()).map(str::to_owned).unwrap_or_else(|| {
            format!("mcp__{}__{}", spec.name(), crate::registry::sanitise_tool_name(self.tool_name()))
        })
    }

    /// The Claude Code arguments for a spec serving this tool: the spec's
    /// `--mcp-config <path> --strict-mcp-config`, then `--setting-sources=`, then
    /// `--permission-prompt-tool mcp__<server>__<tool>`. Add other specs' config paths
    /// after `--mcp-config` (it takes a list) to give the session tools.
    ///
    /// `--setting-sources=` (no user, project or local settings) is part of the approval
    /// guarantee: a `permissions.allow` rule in any of them would otherwise settle a call
    /// before the prompt tool could see it. It is one argument, not `--setting-sources ""`,
    /// for the same reason as [`McpServerSpec::claude_cli_args`]'s `--tools=`. Login and
    /// API-key authentication are not settings, and are untouched.
    #[cfg(feature = "http")]
    pub fn claude_cli_args(&self, spec: &McpServerSpec) -> Vec<String> {
        let mut args = spec.claude_cli_args(true);
        args.push("--setting-sources=".to_owned());
        args.push("--permission-prompt-tool".to_owned());
        args.push(self.permission_prompt_tool(spec));
        args
    }

    /// Settle one prompt (never fails), record it, and return the text the CLI reads.
    async fn answer(&self, arguments: &RawValue, ctx: &Context) -> String {
        let (verdict, tool_name, tool_use_id, input) = match serde_json::from_str::<Prompt>(arguments.get()) {
            Ok(prompt) => {
                let input: Value = serde_json::from_str(prompt.input.get()).unwrap_or(Value::Null);
                let verdict =
                    self.verdict(&prompt, &input, client_of(ctx), Arc::new(ctx.principal().clone())).await;
                (verdict, prompt.tool_name, prompt.tool_use_id, input)
            }
            Err(e) => {
                let raw: Value = serde_json::from_str(arguments.get()).unwrap_or(Value::Null);
                let tool_name = raw["tool_name"].as_str().unwrap_or_default().to_owned();
                let message = format!(
                    "the permission prompt was malformed ({e}); it needs `tool_name` (a string) and `input`, so the call was denied"
                );
                let verdict = Verdict::deny(message, DecisionSource::Error, false);
                let tool_use_id = raw["tool_use_id"].as_str().map(str::to_owned);
                (verdict, tool_name, tool_use_id, raw["input"].clone())
            }
        };
        let text = verdict.answer_text();
        self.record(ApprovalDecision {
            tool_name,
            tool_use_id,
            allowed: verdict.allowed,
            reason: verdict.reason,
            source: verdict.source,
            asked: verdict.asked,
            input,
        });
        text
    }

    /// The decision table (module header) for `prompt`, asked by `principal` through
    /// `client`.
    pub(super) async fn verdict(
        &self,
        prompt: &Prompt,
        input: &Value,
        client: Option<String>,
        principal: Arc<Principal>,
    ) -> Verdict {
        let inner = &self.inner;
        let tool = prompt.tool_name.as_str();
        let original = || prompt.input.get().to_owned();

        // An ungated tier allows without asking, and says so.
        if inner.autonomy == Autonomy::Ungated {
            let reason = "the run's autonomy tier does not gate calls".to_owned();
            return Verdict::allow(original(), reason, DecisionSource::Autonomy, false);
        }

        // auto_allow_when can only subtract from auto_allow: it is consulted only for a
        // tool already on the list, and a panic counts as "no".
        if inner.auto_allow.contains(tool) {
            let passes = match &inner.auto_allow_when {
                None => true,
                Some(predicate) => catch_unwind(AssertUnwindSafe(|| predicate(tool, input))).unwrap_or(false),
            };
            if passes {
                let reason = format!("'{tool}' is on auto_allow");
                return Verdict::allow(original(), reason, DecisionSource::AutoAllow, false);
            }
        }

        // The asker runs in its own task, so a panic is contained and the timeout can drop
        // it; the guard aborts it if this call is itself dropped.
        let request = ApprovalRequest {
            tool_name: tool.to_owned(),
            input: input.clone(),
            tool_use_id: prompt.tool_use_id.clone(),
            client,
            principal,
        };
        let asker = Arc::clone(&inner.asker);
        let mut task = tokio::spawn(async move { asker.ask(request).await });
        let _guard = AbortOnDrop(task.abort_handle());
        let joined = match inner.timeout {
            Some(limit) => match tokio::time::timeout(limit, &mut task).await {
                Ok(joined) => joined,
                Err(_) => {
                    let message = format!(
                        "nobody answered the approval prompt for '{tool}' within {}s, so it was denied (timed out, not refused)",
                        crate::tool::fmt_secs(limit)
                    );
                    return Verdict::deny(message, DecisionSource::Timeout, true);
                }
            },
            None => (&mut task).await,
        };
        match joined {
            Ok(Ok(Answer::Allow { updated_input })) => {
                let payload = match updated_input {
                    Some(edited) => edited.to_string(),
                    None => original(),
                };
                Verdict::allow(payload, "allowed by the asker".to_owned(), DecisionSource::Asker, true)
            }
            Ok(Ok(Answer::Deny { message })) => {
                let message =
                    if message.trim().is_empty() { format!("'{tool}' was denied") } else { message };
                Verdict::deny(message, DecisionSource::Asker, true)
            }
            Ok(Err(e)) => {
                let message = format!("the approval asker failed ({e}), so '{tool}' was denied");
                Verdict::deny(message, DecisionSource::Error, true)
            }
            Err(join) => {
                let message = if join.is_panic() {
                    let payload = join.into_panic();
                    let text = payload
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a non-string payload".to_owned());
                    format!("the approval asker panicked ({text}), so '{tool}' was denied")
                } else {
                    format!("the approval asker was stopped before it answered, so '{tool}' was denied")
                };
                Verdict::deny(message, DecisionSource::Error, true)
            }
        }
    }

    /// Append to the record first, then tell the sink (contained if it panics).
    pub(super) fn record(&self, decision: ApprovalDecision) {
        self.lock().push(decision.clone());
        if let Some(sink) = &self.inner.sink
            && catch_unwind(AssertUnwindSafe(|| sink(&decision))).is_err()
        {
            tracing::warn!(tool = %decision.tool_name, "the approval decision sink panicked");
        }
    }
}

/// The MCP client that sent the call, as it named itself (`claude-code 2.1.332`).
fn client_of(ctx: &Context) -> Option<String> {
    client_label(ctx.peer().name.as_deref(), ctx.peer().version.as_deref())
}

/// A client's self-reported name and version as an [`ApprovalRequest`]'s `client` reads
/// them: `name version`, or the name alone; `None` without a name (a version alone names
/// nothing).
pub(super) fn client_label(name: Option<&str>, version: Option<&str>) -> Option<String> {
    name.map(|name| match version {
        Some(version) => format!("{name} {version}"),
        None => name.to_owned(),
    })
}

impl Tool for ApprovalServer {
    fn info(&self) -> &ToolInfo {
        &self.inner.info
    }

    fn call<'a>(&'a self, arguments: &'a RawValue, ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(async move { Ok(ToolOutput::text(self.answer(arguments, ctx).await)) })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    use serde_json::json;

    use super::*;
    use crate::approvals::asker::{AskerError, asker_fn};
    use crate::tool::Content;

    /// An asker that counts its calls and answers with `answer`.
    fn counting(
        answer: impl Fn(&ApprovalRequest) -> Result<Answer, AskerError> + Send + Sync + 'static,
    ) -> (Arc<AtomicUsize>, impl Asker) {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&calls);
        let answer = Arc::new(answer);
        let asker = asker_fn(move |request| {
            seen.fetch_add(1, Ordering::SeqCst);
            let answer = Arc::clone(&answer);
            async move { answer(&request) }
        });
        (calls, asker)
    }

    /// The seed's reviewer: `/etc` is out of scope.
    fn reviewer(request: &ApprovalRequest) -> Result<Answer, AskerError> {
        let path = request.input["file_path"].as_str().unwrap_or_default();
        Ok(if path.starts_with("/etc/") { Answer::deny("/etc is out of scope") } else { Answer::allow() })
    }

    /// Call the tool as a server would, and return its one text block.
    async fn prompt(server: &ApprovalServer, args: Value) -> String {
        let out = server.call_json(args, &Context::new()).await.expect("the approval tool never fails");
        assert_eq!(out.structured, None, "never structuredContent: the CLI rejects it");
        match out.content.as_slice() {
            [Content::Text { text }] => text.clone(),
            other => panic!("expected exactly one text block, got {other:?}"),
        }
    }

    fn ask(tool: &str, input: Value) -> Value {
        json!({"tool_name": tool, "input": input, "tool_use_id": format!("toolu_{tool}")})
    }

    fn sources(server: &ApprovalServer) -> Vec<(String, bool, DecisionSource, bool)> {
        server.decisions().into_iter().map(|d| (d.tool_name, d.allowed, d.source, d.asked)).collect()
    }

    #[tokio::test]
    async fn the_seeds_three_prompts_answer_and_record_as_it_shows() {
        let (calls, asker) = counting(reviewer);
        let server = ApprovalServer::builder(asker).auto_allow(["Read"]).build();
        assert_eq!(
            prompt(&server, ask("Read", json!({"file_path": "/etc/passwd"}))).await,
            r#"{"behavior":"allow","updatedInput":{"file_path":"/etc/passwd"}}"#
        );
        assert_eq!(
            prompt(&server, ask("Write", json!({"file_path": "/etc/passwd"}))).await,
            r#"{"behavior":"deny","message":"/etc is out of scope"}"#
        );
        assert_eq!(
            prompt(&server, ask("Write", json!({"file_path": "out.txt"}))).await,
            r#"{"behavior":"allow","updatedInput":{"file_path":"out.txt"}}"#
        );
        assert_eq!(calls.load(Ordering::SeqCst), 2, "the auto-allowed Read never reached the asker");
        assert_eq!(server.prompts_seen(), 3);
        assert_eq!(
            sources(&server),
            [
                ("Read".to_owned(), true, DecisionSource::AutoAllow, false),
                ("Write".to_owned(), false, DecisionSource::Asker, true),
                ("Write".to_owned(), true, DecisionSource::Asker, true),
            ]
        );
        let d = &server.decisions()[1];
        assert_eq!(d.tool_use_id.as_deref(), Some("toolu_Write"));
        assert_eq!(d.reason, "/etc is out of scope");
        assert_eq!(d.input, json!({"file_path": "/etc/passwd"}));
        assert_eq!(server.decisions()[0].reason, "'Read' is on auto_allow");
    }

    #[tokio::test]
    async fn an_allow_echoes_the_input_bytes_verbatim() {
        let server = ApprovalServer::builder(asker_fn(|_| async { Ok(Answer::allow()) })).build();
        let raw = RawValue::from_string(
            r#"{"tool_name":"Bash","input":{"z":1,"a":[true,null],"command":"ls -la"},"tool_use_id":"t1"}"#
                .into(),
        )
        .unwrap();
        let out = server.call(&raw, &Context::new()).await.unwrap();
        assert_eq!(
            out.content,
            [Content::text(
                r#"{"behavior":"allow","updatedInput":{"z":1,"a":[true,null],"command":"ls -la"}}"#
            )]
        );
    }

    #[tokio::test]
    async fn an_asker_can_allow_with_an_edited_input() {
        let server = ApprovalServer::builder(asker_fn(|_| async {
            Ok(Answer::allow_with(json!({"target": "staging"})))
        }))
        .build();
        let text = prompt(&server, ask("deploy", json!({"target": "prod"}))).await;
        assert_eq!(text, r#"{"behavior":"allow","updatedInput":{"target":"staging"}}"#);
        assert_eq!(sources(&server), [("deploy".to_owned(), true, DecisionSource::Asker, true)]);
    }

    #[tokio::test]
    async fn auto_allow_when_can_only_subtract() {
        let (calls, asker) = counting(|_| Ok(Answer::deny("asked")));
        let server = ApprovalServer::builder(asker)
            .auto_allow(["Read"])
            .auto_allow_when(|tool, input| {
                // True for everything outside /etc, including tools not on auto_allow.
                tool.is_empty() || !input["file_path"].as_str().unwrap_or("").starts_with("/etc/")
            })
            .build();
        let read_ok = prompt(&server, ask("Read", json!({"file_path": "README.md"}))).await;
        assert!(read_ok.starts_with(r#"{"behavior":"allow""#), "{read_ok}");
        let read_etc = prompt(&server, ask("Read", json!({"file_path": "/etc/passwd"}))).await;
        assert_eq!(read_etc, r#"{"behavior":"deny","message":"asked"}"#, "the filter sent it to the asker");
        let write = prompt(&server, ask("Write", json!({"file_path": "README.md"}))).await;
        assert_eq!(write, r#"{"behavior":"deny","message":"asked"}"#, "a true predicate is never a way in");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(
            sources(&server),
            [
                ("Read".to_owned(), true, DecisionSource::AutoAllow, false),
                ("Read".to_owned(), false, DecisionSource::Asker, true),
                ("Write".to_owned(), false, DecisionSource::Asker, true),
            ]
        );
    }

    #[tokio::test]
    async fn a_panicking_predicate_falls_through_to_the_asker() {
        let (calls, asker) = counting(|_| Ok(Answer::deny("the reviewer said no")));
        let server = ApprovalServer::builder(asker)
            .auto_allow(["Read"])
            .auto_allow_when(|_, _| panic!("bug in the filter"))
            .build();
        let text = prompt(&server, ask("Read", json!({"file_path": "x"}))).await;
        assert_eq!(text, r#"{"behavior":"deny","message":"the reviewer said no"}"#);
        assert_eq!(calls.load(Ordering::SeqCst), 1, "a bug in the filter costs a prompt, not an approval");
        assert_eq!(sources(&server), [("Read".to_owned(), false, DecisionSource::Asker, true)]);
    }

    /// Sets its flag when dropped: proves the timed-out asker's future was dropped.
    struct Dropped(Arc<AtomicUsize>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// An asker that never answers, and a count of its futures dropped so far.
    fn never_answers() -> (impl Asker, Arc<AtomicUsize>) {
        let dropped = Arc::new(AtomicUsize::new(0));
        let flag = Arc::clone(&dropped);
        let asker = asker_fn(move |_| {
            let guard = Dropped(Arc::clone(&flag));
            async move {
                let _guard = guard;
                std::future::pending::<Result<Answer, AskerError>>().await
            }
        });
        (asker, dropped)
    }

    /// Wait (at most 10 s) until a never-answering asker's future has been dropped.
    async fn wait_until_dropped(dropped: &AtomicUsize, failure: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while dropped.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline, "{failure}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn the_server_enforces_its_own_timeout_and_denies() {
        let (asker, dropped) = never_answers();
        let server = ApprovalServer::builder(asker).timeout(Some(Duration::from_millis(50))).build();
        let text = prompt(&server, ask("Write", json!({}))).await;
        assert_eq!(
            text,
            r#"{"behavior":"deny","message":"nobody answered the approval prompt for 'Write' within 0.05s, so it was denied (timed out, not refused)"}"#
        );
        assert_eq!(sources(&server), [("Write".to_owned(), false, DecisionSource::Timeout, true)]);
        wait_until_dropped(&dropped, "the asker's future was not dropped after the timeout").await;
    }

    #[tokio::test]
    async fn a_withdrawn_prompt_aborts_the_asker_and_records_nothing() {
        let (asker, dropped) = never_answers();
        let server = ApprovalServer::builder(asker).timeout(None).build();
        let ctx = Context::new();
        // The caller gives up (as the dispatcher does on notifications/cancelled): the call
        // future is dropped before the asker answers.
        let call = server.call_json(ask("Write", json!({})), &ctx);
        assert!(tokio::time::timeout(Duration::from_millis(50), call).await.is_err());
        wait_until_dropped(&dropped, "the asker's task was not aborted").await;
        assert_eq!(server.prompts_seen(), 0, "nothing was decided, so nothing is recorded");
    }

    #[tokio::test]
    async fn an_asker_error_or_panic_is_a_deny_from_error() {
        let failing = ApprovalServer::new(asker_fn(|_| async {
            Err::<Answer, AskerError>("the queue is down".into())
        }));
        assert_eq!(
            prompt(&failing, ask("Write", json!({}))).await,
            r#"{"behavior":"deny","message":"the approval asker failed (the queue is down), so 'Write' was denied"}"#
        );
        assert_eq!(sources(&failing), [("Write".to_owned(), false, DecisionSource::Error, true)]);

        let panicking = ApprovalServer::new(asker_fn(|request: ApprovalRequest| async move {
            if request.tool_name == "Write" {
                panic!("the reviewer UI crashed");
            }
            Ok(Answer::allow())
        }));
        assert_eq!(
            prompt(&panicking, ask("Write", json!({}))).await,
            r#"{"behavior":"deny","message":"the approval asker panicked (the reviewer UI crashed), so 'Write' was denied"}"#
        );
        assert_eq!(sources(&panicking), [("Write".to_owned(), false, DecisionSource::Error, true)]);
        // The server keeps answering after a panic.
        assert!(prompt(&panicking, ask("Read", json!({}))).await.starts_with(r#"{"behavior":"allow""#));
    }

    #[tokio::test]
    async fn a_malformed_prompt_is_denied_without_asking() {
        let (calls, asker) = counting(|_| Ok(Answer::allow()));
        let server = ApprovalServer::builder(asker).auto_allow(["Read"]).build();
        for args in [json!({"input": {}}), json!({"tool_name": "Read"}), json!({"tool_name": 3, "input": {}})]
        {
            let text = prompt(&server, args.clone()).await;
            let answer: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(answer["behavior"], "deny", "{args} -> {text}");
            assert!(answer["message"].as_str().unwrap().starts_with("the permission prompt was malformed ("));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert!(
            server.decisions().iter().all(|d| !d.allowed && d.source == DecisionSource::Error && !d.asked)
        );
        assert_eq!(server.decisions()[1].tool_name, "Read");
    }

    #[tokio::test]
    async fn an_ungated_tier_allows_without_asking_and_says_so() {
        let (calls, asker) = counting(|_| Ok(Answer::deny("no")));
        let server = ApprovalServer::builder(asker).autonomy(Autonomy::Ungated).build();
        let text = prompt(&server, ask("Bash", json!({"command": "ls"}))).await;
        assert_eq!(text, r#"{"behavior":"allow","updatedInput":{"command":"ls"}}"#);
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert_eq!(sources(&server), [("Bash".to_owned(), true, DecisionSource::Autonomy, false)]);
    }

    #[tokio::test]
    async fn the_sink_sees_each_decision_after_it_is_recorded_and_cannot_break_it() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = Arc::clone(&seen);
        let server = ApprovalServer::builder(asker_fn(|_| async { Ok(Answer::allow()) }))
            .on_decision(move |d| {
                sink_seen.lock().unwrap().push((d.tool_name.clone(), d.source));
                if d.tool_name == "boom" {
                    panic!("the audit log is full");
                }
            })
            .build();
        let boom = prompt(&server, ask("boom", json!({}))).await;
        assert!(boom.starts_with(r#"{"behavior":"allow""#));
        prompt(&server, ask("Edit", json!({}))).await;
        assert_eq!(
            *seen.lock().unwrap(),
            [("boom".to_owned(), DecisionSource::Asker), ("Edit".to_owned(), DecisionSource::Asker)]
        );
        assert_eq!(server.prompts_seen(), 2, "a panicking sink loses no record");
    }

    #[test]
    fn the_tool_advertises_what_the_cli_sends() {
        let server = ApprovalServer::new(asker_fn(|_| async { Ok(Answer::allow()) }));
        assert_eq!(server.tool_name(), "approve");
        assert_eq!(server.timeout(), Some(DEFAULT_ASKER_TIMEOUT));
        let schema = server.info().input_schema().value().clone();
        assert_eq!(schema["required"], json!(["tool_name", "input"]));
        assert_eq!(schema["properties"]["tool_use_id"]["type"], "string");
        assert_eq!(schema["properties"]["input"]["type"], "object");
        assert!(server.info().annotations().read_only_hint);
        let renamed = ApprovalServer::builder(asker_fn(|_| async { Ok(Answer::allow()) }))
            .tool_name("permission_prompt")
            .build();
        assert_eq!(renamed.info().name(), "permission_prompt");
    }

    #[cfg(feature = "http")]
    #[test]
    fn serving_names_the_permission_prompt_tool() {
        let server =
            ApprovalServer::builder(asker_fn(|_| async { Ok(Answer::allow()) })).tool_name("ok.go").build();
        let spec = server.serve("approvals").unwrap();
        assert_eq!(spec.tool_names(), ["mcp__approvals__ok_go"]);
        assert_eq!(server.permission_prompt_tool(&spec), "mcp__approvals__ok_go");
        let args = server.claude_cli_args(&spec);
        assert_eq!(
            args,
            [
                "--mcp-config".to_owned(),
                spec.config_path().display().to_string(),
                "--strict-mcp-config".to_owned(),
                "--setting-sources=".to_owned(),
                "--permission-prompt-tool".to_owned(),
                "mcp__approvals__ok_go".to_owned(),
            ]
        );
        assert!(matches!(server.serve("bad name"), Err(SpecError::Names(_))));
    }

    #[test]
    fn sources_have_their_wire_spelling() {
        let all = [
            DecisionSource::Asker,
            DecisionSource::AutoAllow,
            DecisionSource::Autonomy,
            DecisionSource::Timeout,
            DecisionSource::Error,
        ];
        let spelt: Vec<String> =
            all.iter().map(|s| serde_json::to_value(s).unwrap().as_str().unwrap().to_owned()).collect();
        assert_eq!(spelt, ["asker", "auto_allow", "autonomy", "timeout", "error"]);
        assert!(all.iter().zip(&spelt).all(|(s, w)| s.to_string() == *w));
    }
}
