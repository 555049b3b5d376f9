//! The completions capability: `completion/complete`, for a prompt's argument
//! (`ref/prompt`) or a resource template's variable (`ref/resource`), run through the one
//! request path (a completer is user code, sync or async).
//!
//! The table ([`CompletionTable`]) knows every target that can be completed and its
//! argument names, and holds the completers ([`Completers`]). Prompts fill it from the
//! prompt registry; resource templates add themselves through [`CompletionTable::add`]
//! (the seam the resources capability uses: its template URI, its variable names, its
//! completers keyed by [`CompletionRef::ResourceTemplate`]).
//!
//! | what happened | the answer |
//! | --- | --- |
//! | a known argument | its completer's values, cut to 100, with `total` and `hasMore` |
//! | a known argument with no completer | no values |
//! | an unknown prompt or template, or one the caller may not see ([`Access`](crate::server::Access)) | -32602 `completion for unknown prompt 'x'; available prompts: [..]`, the same bytes either way (the list names only what the caller may see) |
//! | an argument the target does not take | -32602 `prompt 'x' has no argument 'y'. Accepted arguments: [..]` |
//! | the completer panicked | -32603 `completion of argument 'y' of prompt 'x' failed: panicked: <message>` |

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::args::{PyList, PyStr};
use crate::complete::{Complete, Completers, Completion, CompletionRef, CompletionRequest};
use crate::context::Context;
use crate::prompt::PromptRegistry;
use crate::protocol::lifecycle::{EmptyCapability, ServerCapabilities};
use crate::protocol::meta::{MetaParams, ModernResult};
use crate::protocol::methods;
use crate::protocol::wire::{CompleteParams, CompleteResult, CompletionReference};
use crate::protocol::{RpcError, code};

use crate::server::access::caller::Caller;
use crate::server::access::policy::Gate;
use crate::server::dispatch::era::decode_params;
use crate::server::dispatch::sink::Reply;
use crate::server::dispatch::state::SessionInner;
use crate::server::run::request::{Handler, Started, Stop};

/// Every completable target with its argument names, and the completers.
#[derive(Default)]
pub(crate) struct CompletionTable {
    targets: BTreeMap<CompletionRef, Vec<String>>,
    completers: Completers,
}

impl CompletionTable {
    /// Every prompt of `registry`: its arguments, and its completers.
    pub(crate) fn add_prompts(&mut self, registry: &PromptRegistry) {
        for prompt in registry.iter() {
            let info = prompt.info();
            let mut names: Vec<String> = info.arguments.iter().map(|a| a.name.clone()).collect();
            names.sort();
            self.targets.insert(CompletionRef::Prompt(info.name.clone()), names);
        }
        self.completers.extend(registry.completers());
    }

    /// One target (a resource template, say) taking `arguments`, completed by `completers`
    /// (keyed by this same target).
    #[allow(dead_code, reason = "the seam the resources capability wires its templates to")]
    pub(crate) fn add(&mut self, target: CompletionRef, mut arguments: Vec<String>, completers: Completers) {
        arguments.sort();
        self.targets.insert(target, arguments);
        self.completers.extend(completers);
    }

    /// Whether anything completes: only then is `completions` declared.
    pub(crate) fn completes(&self) -> bool {
        !self.completers.is_empty()
    }

    /// `completions: {}`.
    pub(crate) fn advertise(&self, capabilities: &mut ServerCapabilities) {
        capabilities.completions = Some(EmptyCapability {});
    }

    fn names(&self, prompts: bool, gate: &Gate) -> Vec<String> {
        self.targets
            .keys()
            .filter(|t| visible(t, gate))
            .filter_map(|t| match t {
                CompletionRef::Prompt(n) if prompts => Some(n.clone()),
                CompletionRef::ResourceTemplate(u) if !prompts => Some(u.clone()),
                _ => None,
            })
            .collect()
    }
}

/// Whether the caller may see `target` (a prompt by name, a template by its URI template).
fn visible(target: &CompletionRef, gate: &Gate) -> bool {
    gate.open()
        || match target {
            CompletionRef::Prompt(n) => gate.prompt(n),
            CompletionRef::ResourceTemplate(u) => gate.resource(u),
        }
}

/// Answer one `completion/complete`.
pub(crate) fn request(
    session: &SessionInner,
    table: &CompletionTable,
    reply: Reply,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    let meta: MetaParams<'_> = match decode_params(methods::COMPLETION_COMPLETE, params) {
        Ok(p) => p,
        Err(e) => return reply.error(e),
    };
    let p: CompleteParams = match decode_params(methods::COMPLETION_COMPLETE, params) {
        Ok(p) => p,
        Err(e) => return reply.error(e),
    };
    let (peer, modern) = match session.served(meta.meta.as_ref()).and_then(|s| s.peer()) {
        Ok(served) => served,
        Err(e) => return reply.error(e),
    };
    let target = match p.reference {
        CompletionReference::Prompt { name } => CompletionRef::Prompt(name),
        CompletionReference::Resource { uri } => CompletionRef::ResourceTemplate(uri),
        // `#[non_exhaustive]`: a reference type this build does not know.
        #[allow(unreachable_patterns)]
        _ => return reply.error(RpcError::invalid_params("completion for an unknown kind of reference")),
    };
    // A target the caller may not see is answered as one that does not exist.
    let gate = caller.gate(session.shared.access.as_ref());
    let Some(arguments) = table.targets.get(&target).filter(|_| visible(&target, &gate)) else {
        let (what, known) = match &target {
            CompletionRef::Prompt(n) => {
                (format!("prompt {}; available prompts", PyStr(n)), table.names(true, &gate))
            }
            CompletionRef::ResourceTemplate(u) => {
                (format!("resource template {}; available templates", PyStr(u)), table.names(false, &gate))
            }
        };
        return reply
            .error(RpcError::invalid_params(format!("completion for unknown {what}: {}", PyList(&known))));
    };
    let argument = p.argument.name;
    if !arguments.contains(&argument) {
        return reply.error(RpcError::invalid_params(format!(
            "{} has no argument {}. Accepted arguments: {}",
            described(&target),
            PyStr(&argument),
            PyList(arguments)
        )));
    }
    let completer = table.completers.get(&target, &argument).cloned();
    let mut request = CompletionRequest::new(argument, p.argument.value);
    request.context = p.context.map(|c| c.arguments).unwrap_or_default();
    let call = CompleteCall { target, completer, request };
    session.run(reply, meta.meta.as_ref(), peer, modern, call, caller);
}

fn described(target: &CompletionRef) -> String {
    match target {
        CompletionRef::Prompt(n) => format!("prompt {}", PyStr(n)),
        CompletionRef::ResourceTemplate(u) => format!("resource template {}", PyStr(u)),
    }
}

/// One completion: the completer (none: no values) and its request.
struct CompleteCall {
    target: CompletionRef,
    completer: Option<Arc<dyn Complete>>,
    request: CompletionRequest,
}

impl Handler for CompleteCall {
    type Output = Completion;

    fn start<'a>(&'a self, _ctx: &'a Context) -> Started<'a, Completion> {
        match &self.completer {
            Some(c) => c.complete(self.request.clone()),
            None => Box::pin(std::future::ready(Completion::empty())),
        }
    }

    fn finish(
        &self,
        outcome: Result<Completion, Stop>,
        modern: Option<&RawValue>,
    ) -> Result<String, RpcError> {
        let what = format!(
            "completion of argument {} of {}",
            PyStr(&self.request.argument),
            described(&self.target)
        );
        let mut found = outcome.map_err(|stop| {
            let message = match stop {
                Stop::CancelledBeforeDispatch => format!("the run was cancelled; {what} was not run"),
                Stop::CancelledWhileRunning => format!("the run was cancelled during {what}"),
                Stop::DeadlineExceeded(d) => {
                    format!("{what} did not return within {:?} and was abandoned", d)
                }
                Stop::Panicked(message) => format!("{what} failed: panicked: {message}"),
            };
            RpcError::new(code::INTERNAL_ERROR, message)
        })?;
        found.truncate();
        let result = CompleteResult::new(found.values, found.total, found.has_more);
        let body = match modern {
            None => serde_json::to_string(&result),
            Some(meta) => serde_json::to_string(&ModernResult::complete(meta, &result)),
        };
        body.map_err(|e| RpcError::new(code::INTERNAL_ERROR, format!("internal error: {what}: {e}")))
    }
}
