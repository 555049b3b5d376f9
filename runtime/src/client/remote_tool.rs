//! [`RemoteTool`]: a server's tool as an ordinary [`Tool`], validated locally, bounded,
//! classified when it fails, and sealed as untrusted data when it succeeds (the server's
//! `structuredContent`, when it sent one, kept beside the sealed text).
//!
//! # Declarations from annotations
//!
//! Annotations are the server's hints. With `trust_annotations` (the default) they are read
//! conservatively; without it every tool is the last row.
//!
//! | the server says | `side_effecting` | delivery | approval under `destructive` |
//! | --- | --- | --- | --- |
//! | `readOnlyHint: true` | false | at least once (re-run freely) | none |
//! | `idempotentHint: true` | true | at least once | required |
//! | nothing, or anything else | true | at most once (never re-run) | required |
//!
//! `approval = none` never requires approval; `approval = always` always does.
//!
//! A successful result is held to the tool's `outputSchema`, when the server advertised one:
//! no structured content, or structured content the schema refuses, is
//! [`ToolError::OutputMismatch`](crate::tool::ToolError::OutputMismatch), naming the place and
//! the rule (`at '/count': must be an integer`) and never the server's value. An `isError`
//! result needs none.
//!
//! A tool whose input schema marks parameters with `x-mcp-header` (2026-07-28, SEP-2243)
//! has each call carry `Mcp-Param-{Name}: <value>` per such argument present and not
//! `null` (strings as they are, or `=?base64?…?=` when not plain visible ASCII or with
//! whitespace at either end; integers in decimal; `true`/`false`). Only over HTTP: other
//! transports ignore them ([`Message::headers`](super::Message::headers)). A tool whose
//! declarations break the spec's rules is not adopted at all
//! ([`RejectReason::ParamHeaders`](super::RejectReason::ParamHeaders)).
//!
//! A call cut off after it was sent (the server died, the connection dropped) is
//! [`RemoteError::Unavailable`], retryable, under at-least-once delivery, and
//! [`RemoteError::OutcomeUnknown`], not retryable, under at-most-once: it may have run.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use serde_json::value::RawValue;

use super::conn::ProgressFn;
use super::connection::{CallOptions, Client};
use super::normalise::{envelope, failed, truncate};
use super::options::DeliveryGuarantee;
use super::schema::{Checked, compile, compile_output, output_problem, validate};
use super::wire::{ListedTool, ToolHints};
use crate::args::{ArgumentProblem, ToolArgumentError};
use crate::context::{Context, Progress};
use crate::protocol::param_headers::{HeaderParam, mirror};
use crate::schema::Schema;
use crate::tool::{Declarations, RemoteError, Tool, ToolError, ToolFuture, ToolInfo, ToolOutput};

/// A tool adopted from a remote server.
pub struct RemoteTool {
    client: Client,
    remote_name: String,
    info: ToolInfo,
    delivery: DeliveryGuarantee,
    hints: ToolHints,
    checked: Checked,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
    /// The output schema's validator, compiled on the first result that needs it.
    output_validator: OnceLock<Result<jsonschema::Validator, String>>,
    max_result_bytes: usize,
    timeout: Option<Duration>,
    /// The parameters mirrored as `Mcp-Param-*` headers on each call.
    param_headers: Vec<HeaderParam>,
}

impl std::fmt::Debug for RemoteTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTool")
            .field("name", &self.info.name())
            .field("server", &self.client.name())
            .field("remote_name", &self.remote_name)
            .field("delivery", &self.delivery)
            .finish_non_exhaustive()
    }
}

/// What adoption decided for one tool: its declarations and delivery, its timeout and
/// its result bound (see `adopt.rs`, which reads them from the `AdoptOptions`).
pub(crate) struct Terms {
    pub(crate) declarations: Declarations,
    pub(crate) delivery: DeliveryGuarantee,
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_result_bytes: usize,
    pub(crate) max_description_bytes: usize,
    /// Its `x-mcp-header` parameters, checked at adoption.
    pub(crate) param_headers: Vec<HeaderParam>,
}

impl RemoteTool {
    /// Build the adopted tool named `name` (already prefixed and sanitised).
    pub(crate) fn new(
        client: Client,
        name: String,
        listed: &ListedTool,
        checked: Checked,
        terms: Terms,
    ) -> Self {
        let Terms {
            declarations: decl,
            delivery,
            timeout,
            max_result_bytes,
            max_description_bytes,
            param_headers,
        } = terms;
        let description = truncate(&listed.description, max_description_bytes);
        let mut info = ToolInfo::new(name, description, Schema::from_value(checked.advertised.clone()))
            .with_declarations(decl);
        if let Some(title) = &listed.title {
            info = info.with_title(title.clone());
        }
        if let Some(out) = listed.output_schema.as_ref().filter(|s| s.is_object()) {
            info = info.with_output_schema(Schema::from_value(out.clone()));
        }
        RemoteTool {
            client,
            remote_name: listed.name.clone(),
            info,
            delivery,
            hints: listed.hints,
            checked,
            validator: OnceLock::new(),
            output_validator: OnceLock::new(),
            max_result_bytes,
            timeout,
            param_headers,
        }
    }

    /// The tool's name on the server.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The server's configured name.
    pub fn server(&self) -> &str {
        self.client.name()
    }

    /// What may happen to an interrupted call.
    pub fn delivery(&self) -> DeliveryGuarantee {
        self.delivery
    }

    /// The server's annotations, as sent (untrusted).
    pub fn hints(&self) -> ToolHints {
        self.hints
    }

    /// The client this tool calls through.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Whether the validator has been compiled (it is, on the first call).
    pub fn validator_compiled(&self) -> bool {
        self.validator.get().is_some()
    }

    async fn run(&self, arguments: &RawValue, ctx: &Context) -> Result<ToolOutput, ToolError> {
        self.run_with_meta(arguments, ctx, None).await
    }

    /// [`run`](Self::run) with the request's `_meta` (the hub's run id and idempotency key).
    pub(crate) async fn run_with_meta(
        &self,
        arguments: &RawValue,
        ctx: &Context,
        meta: Option<serde_json::Map<String, Value>>,
    ) -> Result<ToolOutput, ToolError> {
        let name = self.info.name();
        let server = self.client.name();
        if ctx.is_cancelled() {
            return Err(ToolError::CancelledBeforeDispatch { tool: name.to_owned() });
        }
        let args: Value = serde_json::from_str(arguments.get()).map_err(|_| {
            ToolError::Arguments(ToolArgumentError {
                tool: name.to_owned(),
                problem: ArgumentProblem::NotAnObject { got: "malformed JSON".into() },
            })
        })?;
        let validator = self.validator.get_or_init(|| compile(&self.checked)).as_ref().map_err(|reason| {
            ToolError::failed(
                name,
                format_args!("its input schema from server '{server}' does not compile: {reason}"),
            )
        })?;
        validate(validator, &self.checked.advertised, name, &args)?;

        // The precedence in the module docs of `client`: the adoption's timeout, else the
        // client's; a sooner `Context` deadline wins over either.
        let bound = self.timeout.unwrap_or(self.client.inner.options.request_timeout);
        let remaining = ctx.deadline().map(|d| d.saturating_duration_since(Instant::now()));
        let timeout = Some(remaining.map_or(bound, |r| r.min(bound)));
        let progress = ctx.reports_progress().then(|| {
            let ctx = ctx.clone();
            Arc::new(move |p: Progress| ctx.report_progress(p.progress, p.total, p.message.as_deref()))
                as ProgressFn
        });
        let mut opts = CallOptions::new()
            .timeout_opt(timeout)
            .cancel(ctx.cancellation().clone())
            .delivery(self.delivery)
            .headers(mirror(&self.param_headers, &args));
        if let Some(progress) = progress {
            opts = opts.progress(progress);
        }
        if let Some(meta) = meta {
            opts = opts.meta(meta);
        }
        let result =
            self.client.call_tool(&self.remote_name, args, opts).await.map_err(|e| renamed(e, name))?;
        if result.is_error {
            return Err(failed(server, name, &self.remote_name, &result, self.max_result_bytes).into());
        }
        let sealed = envelope(server, name, &result, self.max_result_bytes);
        self.check_output(result.structured.as_ref())?;
        let mut output = ToolOutput::text(sealed);
        // The server's structured result stays structured (its JSON is also in the sealed
        // text, for a model that reads only text).
        output.structured = result.structured;
        Ok(output)
    }

    /// Hold a successful result to the output schema the server advertised, as the Python
    /// and TypeScript clients and rmcp do: a tool with one must return structured content
    /// that it accepts. The error names the place and the rule, never the server's value.
    fn check_output(&self, structured: Option<&Value>) -> Result<(), ToolError> {
        let Some(schema) = self.info.output_schema() else { return Ok(()) };
        let mismatch =
            |problem: String| ToolError::OutputMismatch { tool: self.info.name().to_owned(), problem };
        let Some(structured) = structured else {
            return Err(mismatch("it returned no structured content".to_owned()));
        };
        let validator = self.output_validator.get_or_init(|| compile_output(schema.value()));
        let validator = validator.as_ref().map_err(|reason| {
            mismatch(format!(
                "the outputSchema from server '{}' does not compile: {reason}",
                self.client.name()
            ))
        })?;
        match output_problem(validator, structured) {
            None => Ok(()),
            Some(problem) => Err(mismatch(problem)),
        }
    }

    /// Call the tool with `arguments` (a JSON object) and no [`Context`]: no deadline beyond
    /// the timeouts (the precedence is in the [`client`](super) module docs), no
    /// cancellation, no progress. Read the sealed text with
    /// [`UntrustedText::from_output`](super::UntrustedText::from_output).
    pub async fn invoke(&self, arguments: Value) -> Result<ToolOutput, ToolError> {
        let raw = serde_json::value::to_raw_value(&arguments)
            .map_err(|e| ToolError::failed(self.info.name(), e))?;
        self.run(&raw, &Context::new()).await
    }
}

/// The same error, naming the tool as the model knows it.
fn renamed(e: ToolError, name: &str) -> ToolError {
    let tool = name.to_owned();
    match e {
        ToolError::Remote(RemoteError::TimedOut { server, timeout, .. }) => {
            RemoteError::TimedOut { tool, server, timeout }.into()
        }
        ToolError::Remote(RemoteError::Unavailable { server, reason, .. }) => {
            RemoteError::Unavailable { tool, server, reason }.into()
        }
        ToolError::Remote(RemoteError::Refused { server, code, .. }) => {
            RemoteError::Refused { tool, server, code }.into()
        }
        ToolError::Remote(RemoteError::TasksRequired { server, fix, .. }) => {
            RemoteError::TasksRequired { tool, server, fix }.into()
        }
        // A task that ran and failed: its report sealed again under the model's name.
        ToolError::Remote(RemoteError::Failed { server, report, .. }) => RemoteError::Failed {
            envelope: super::normalise::seal(&server, &tool, &report),
            tool,
            server,
            report,
        }
        .into(),
        ToolError::Remote(RemoteError::Unauthorized { server, status, .. }) => {
            RemoteError::Unauthorized { tool, server, status }.into()
        }
        ToolError::Remote(RemoteError::AuthorizationRequired { server, reason, .. }) => {
            RemoteError::AuthorizationRequired { tool, server, reason }.into()
        }
        ToolError::Remote(RemoteError::AuthorizationFailed { server, reason, .. }) => {
            RemoteError::AuthorizationFailed { tool, server, reason }.into()
        }
        ToolError::Remote(RemoteError::HttpStatus { server, status, .. }) => {
            RemoteError::HttpStatus { tool, server, status }.into()
        }
        ToolError::Remote(RemoteError::OutcomeUnknown { server, reason, .. }) => {
            RemoteError::OutcomeUnknown { tool, server, reason }.into()
        }
        ToolError::Remote(RemoteError::Input { server, problem, .. }) => {
            RemoteError::Input { tool, server, problem }.into()
        }
        ToolError::CancelledBeforeDispatch { .. } => ToolError::CancelledBeforeDispatch { tool },
        ToolError::CancelledWhileRunning { .. } => ToolError::CancelledWhileRunning { tool },
        ToolError::Failed { message, .. } => ToolError::Failed { tool, message },
        ToolError::Internal { detail, .. } => ToolError::Internal { tool, detail },
        other => other,
    }
}

impl Tool for RemoteTool {
    fn info(&self) -> &ToolInfo {
        &self.info
    }

    fn call<'a>(&'a self, arguments: &'a RawValue, ctx: &'a Context) -> ToolFuture<'a> {
        Box::pin(self.run(arguments, ctx))
    }
}
