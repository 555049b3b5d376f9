//! The prompts capability: `prompts/list` from a pre-serialised [`Listing`], and
//! `prompts/get` through the one request path.
//!
//! | what happened | the answer |
//! | --- | --- |
//! | an unknown prompt | -32602 `unknown prompt 'x'; available prompts: ['a', 'b']` |
//! | arguments rejected (missing, unexpected, not a string, not one of an enum's values) | -32602, the [`PromptArgumentError`](crate::prompt::PromptArgumentError) message, worded as a tool's |
//! | the prompt returned `Err(e)` | -32603 `prompt 'x' failed: <e>` |
//! | the prompt panicked | -32603 `prompt 'x' failed: panicked: <message>`; the server serves on |
//! | the host cancelled | -32603 `the run was cancelled; prompt 'x' was not run` (or `while prompt 'x' was running`) |
//! | the server's deadline fired | -32603 `prompt 'x' did not return within 0.05s and was abandoned` |
//! | the client sent `notifications/cancelled` | no response at all |
//! | a 2026-07-28 get asks the client something it has no answer for | `resultType: "input_required"` with the asks and a sealed `requestState` (module `rounds`); a bad state on the retry is -32602; past `max_input_rounds`, -32603 `prompt 'x' failed: still asked the client for input after 8 rounds …` |

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::args::{PyList, PyStr};
use crate::context::Context;
use crate::prompt::{
    GetPromptResult, Icon, Prompt, PromptArguments, PromptError, PromptInfo, PromptRegistry,
};
use crate::protocol::lifecycle::{ListChangedCapability, ServerCapabilities};
use crate::protocol::meta::ModernResult;
use crate::protocol::methods;
use crate::protocol::prompts::GetPromptParams;
use crate::protocol::{RpcError, code};
use crate::tool::fmt_secs;

use super::listing::{Listed, Listing};
use super::swap::Swap;
use crate::server::access::caller::Caller;
use crate::server::access::policy::{Gate, Views, mask};
use crate::server::dispatch::era::{decode_params, method_not_found};
use crate::server::dispatch::sink::Reply;
use crate::server::dispatch::state::SessionInner;
use crate::server::run::request::{Handler, Started, Stop};
use crate::server::run::rounds::{Retry, Round, RoundCall};

/// What a server serving prompts holds: the current [`PromptSet`] (fixed, or swapped whole
/// when a live server's prompts change), and what a rebuilt listing needs.
pub(crate) struct Prompts {
    pub(crate) set: Swap<PromptSet>,
    page_size: usize,
    modern_meta: Box<RawValue>,
    ttl: std::time::Duration,
}

/// The prompts served at one moment: the registry, its names and its listing.
pub(crate) struct PromptSet {
    pub(crate) registry: PromptRegistry,
    names: Vec<String>,
    listing: Listing,
    /// The listings of the subsets some principals may see (module `policy`).
    views: Views<Listing>,
}

impl Prompts {
    /// Serialise `registry`'s listing into pages of `page_size` (see [`Listing::build`]);
    /// replaceable while serving when `live`.
    pub(crate) fn new(
        registry: PromptRegistry,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: std::time::Duration,
        live: bool,
    ) -> Prompts {
        let set = PromptSet::new(registry, page_size, modern_meta, ttl, None);
        Prompts { set: Swap::new(set, live), page_size, modern_meta: modern_meta.to_owned(), ttl }
    }

    /// The set serving `registry` from now on, replacing `old`.
    pub(crate) fn next(&self, registry: PromptRegistry, old: &PromptSet) -> PromptSet {
        PromptSet::new(registry, self.page_size, &self.modern_meta, self.ttl, Some(old))
    }

    /// `prompts`, with `listChanged` when the server is live (see
    /// [`ServerBuilder::live`](crate::server::ServerBuilder::live)); otherwise the set is fixed while
    /// serving.
    pub(crate) fn advertise(&self, capabilities: &mut ServerCapabilities) {
        capabilities.prompts = Some(ListChangedCapability { list_changed: self.set.is_live() });
    }
}

impl PromptSet {
    fn new(
        registry: PromptRegistry,
        page_size: usize,
        modern_meta: &RawValue,
        ttl: std::time::Duration,
        old: Option<&PromptSet>,
    ) -> PromptSet {
        let mut listing = Listing::build(registry.iter().map(|p| p.info()), page_size, modern_meta, ttl);
        if let Some(old) = old {
            listing = listing.replacing(&old.listing);
        }
        let names = registry.names().map(str::to_owned).collect();
        PromptSet { registry, names, listing, views: Views::default() }
    }

    /// -32602 for a prompt this server does not have, or that `gate` hides (the same bytes:
    /// the available prompts are the ones the caller may see).
    pub(crate) fn unknown(&self, name: &str, doing: &str, gate: &Gate) -> RpcError {
        let visible: std::borrow::Cow<'_, [String]> = match gate.open() {
            true => std::borrow::Cow::Borrowed(&self.names),
            false => self.names.iter().filter(|n| gate.prompt(n)).cloned().collect(),
        };
        RpcError::invalid_params(format!(
            "{doing}unknown prompt {}; available prompts: {}",
            PyStr(name),
            PyList(&visible)
        ))
    }
}

/// Answer one request for a `prompts/` method.
pub(crate) fn request(
    session: &SessionInner,
    prompts: &Prompts,
    reply: Reply,
    method: &str,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    match method {
        methods::PROMPTS_LIST => {
            let set = prompts.set.load();
            // The page is borrowed (from the caller's view, held here, or the whole listing):
            // it is copied once, into the response envelope.
            let view = view(session, prompts, &set, caller);
            match view.as_deref().unwrap_or(&set.listing).answer(session, method, params) {
                Ok(page) => reply.result(page),
                Err(error) => reply.error(error),
            }
        }
        methods::PROMPTS_GET => get(session, &prompts.set.load(), reply, params, caller),
        other => reply.error(method_not_found(other)),
    }
}

/// The listing of the prompts the session's caller may see, when a policy hides some of
/// them (module `policy`); `None` when it sees them all.
fn view(
    session: &SessionInner,
    served: &Prompts,
    prompts: &PromptSet,
    caller: Caller<'_>,
) -> Option<Arc<Listing>> {
    let access = session.shared.access.as_ref();
    if caller.sees_everything(access) {
        return None;
    }
    let gate = caller.gate(access);
    let mask = mask(prompts.registry.iter(), |x| gate.prompt(&x.info().name))?;
    Some(prompts.views.get(mask, || {
        let visible = prompts.registry.iter().map(|x| x.info()).filter(|i| gate.prompt(&i.name));
        Listing::build(visible, served.page_size, &served.modern_meta, served.ttl)
    }))
}

fn get(
    session: &SessionInner,
    prompts: &PromptSet,
    reply: Reply,
    params: Option<&RawValue>,
    caller: Caller<'_>,
) {
    let p: GetPromptParams<'_> = match decode_params(methods::PROMPTS_GET, params) {
        Ok(p) => p,
        Err(e) => return reply.error(e),
    };
    let (peer, modern) = match session.served(p.meta.as_ref()).and_then(|s| s.peer()) {
        Ok(served) => served,
        Err(e) => return reply.error(e),
    };
    let gate = caller.gate(session.shared.access.as_ref());
    let Some(prompt) = prompts.registry.get(&p.name).filter(|_| gate.open() || gate.prompt(&p.name)).cloned()
    else {
        return reply.error(prompts.unknown(&p.name, "", &gate));
    };
    let args = match prompt.info().check(p.arguments.as_ref()) {
        Ok(args) => args,
        Err(e) => return reply.error(RpcError::invalid_params(e.to_string())),
    };
    // A modern get runs in `input_required` rounds (module `rounds`).
    let round = match modern {
        true => {
            let arguments =
                p.arguments.clone().unwrap_or_else(|| serde_json::Value::Object(Default::default()));
            let retry = Retry { input_responses: p.input_responses, request_state: p.request_state };
            let round = Round::for_request(p.meta.as_ref(), reply.route().sink());
            match RoundCall::begin(
                &session.shared.options,
                methods::PROMPTS_GET,
                &p.name,
                arguments,
                retry,
                round,
            ) {
                Ok(round) => Some(round),
                Err(e) => return reply.error(e),
            }
        }
        false => None,
    };
    session.run(reply, p.meta.as_ref(), peer, modern, PromptGet { prompt, args, round }, caller);
}

/// One `prompts/get`: the prompt and its checked arguments.
struct PromptGet {
    prompt: Arc<dyn Prompt>,
    args: PromptArguments,
    /// A modern get's round.
    round: Option<RoundCall>,
}

impl Handler for PromptGet {
    type Output = Result<GetPromptResult, PromptError>;

    fn start<'a>(&'a self, ctx: &'a Context) -> Started<'a, Self::Output> {
        self.prompt.get(&self.args, ctx)
    }

    fn round(&self) -> Option<&RoundCall> {
        self.round.as_ref()
    }

    fn over_rounds(&self, limit: String, _modern: &RawValue) -> Result<String, RpcError> {
        let name = PyStr(&self.prompt.info().name);
        Err(RpcError::new(code::INTERNAL_ERROR, format!("prompt {name} failed: {limit}")))
    }

    fn finish(
        &self,
        outcome: Result<Self::Output, Stop>,
        modern: Option<&RawValue>,
    ) -> Result<String, RpcError> {
        let name = PyStr(&self.prompt.info().name);
        let result = match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(PromptError::Arguments(e))) => return Err(RpcError::invalid_params(e.to_string())),
            Ok(Err(e)) => return Err(RpcError::new(code::INTERNAL_ERROR, e.to_string())),
            Err(stop) => {
                let message = match stop {
                    Stop::CancelledBeforeDispatch => {
                        format!("the run was cancelled; prompt {name} was not run")
                    }
                    Stop::CancelledWhileRunning => {
                        format!("the run was cancelled while prompt {name} was running")
                    }
                    Stop::DeadlineExceeded(d) => {
                        format!("prompt {name} did not return within {}s and was abandoned", fmt_secs(d))
                    }
                    Stop::Panicked(message) => format!("prompt {name} failed: panicked: {message}"),
                };
                return Err(RpcError::new(code::INTERNAL_ERROR, message));
            }
        };
        let body = match modern {
            None => serde_json::to_string(&result),
            Some(meta) => serde_json::to_string(&ModernResult::complete(meta, &result)),
        };
        body.map_err(|e| {
            RpcError::new(
                code::INTERNAL_ERROR,
                format!("internal error: the messages of prompt {name} could not be serialised: {e}"),
            )
        })
    }
}

impl Listed for PromptInfo {
    const KEY: &'static str = "prompts";

    fn name(&self) -> &str {
        &self.name
    }

    fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(&WirePrompt {
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            arguments: self
                .arguments
                .iter()
                .map(|a| WireArgument {
                    name: &a.name,
                    title: a.title.as_deref(),
                    description: a.description.as_deref(),
                    required: a.required,
                })
                .collect(),
            icons: &self.icons,
        })
    }
}

/// One prompt as `prompts/list` lists it.
#[derive(Serialize)]
struct WirePrompt<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    arguments: Vec<WireArgument<'a>>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    icons: &'a [Icon],
}

#[derive(Serialize)]
struct WireArgument<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    required: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::PromptArgumentInfo;

    #[test]
    fn a_prompt_lists_its_arguments_and_icons() {
        let info = PromptInfo::new("review")
            .with_title("Review")
            .with_description("Review code.")
            .with_icon(Icon::new("https://example.com/r.png").with_mime_type("image/png"))
            .with_argument(PromptArgumentInfo::new("code", true).with_description("The code."))
            .with_argument(PromptArgumentInfo::new("language", false).with_values(["rust"]));
        assert_eq!(
            info.to_json().unwrap(),
            r#"{"name":"review","title":"Review","description":"Review code.","arguments":[{"name":"code","description":"The code.","required":true},{"name":"language","required":false}],"icons":[{"src":"https://example.com/r.png","mimeType":"image/png"}]}"#
        );
    }
}
