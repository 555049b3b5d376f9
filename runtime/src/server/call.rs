//! Running one `tools/call`: the error contract, made concrete.
//!
//! | what happened | the result (`isError: true` unless noted) |
//! | --- | --- |
//! | arguments rejected | the `ToolArgumentError` message verbatim |
//! | the tool returned `Err(e)` | `tool 'x' failed: <e>` |
//! | the tool panicked | `tool 'x' failed: panicked: <message>`; the server serves on |
//! | the host cancelled before dispatch | `the run was cancelled; 'x' was not run` |
//! | the host cancelled mid-call | `the run was cancelled while 'x' was running` |
//! | the server's deadline fired | `tool 'x' did not return within 0.05s and was abandoned` |
//! | the client sent `notifications/cancelled` | the future is dropped; no response at all |
//!
//! (An unknown tool never gets here: it is JSON-RPC -32602, answered before dispatch.)
//!
//! The deadline clock starts when the call is dispatched, after it got its in-flight slot.

use std::cell::Cell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::context::{Context, PeerInfo, Progress};
use crate::protocol::notifications::progress_params;
use crate::protocol::tools::call_result_json;
use crate::protocol::{Outbound, RpcError, code};
use crate::tool::{Tool, ToolError, ToolOutput};

use super::Shared;
use super::sink::{Reply, Sink};

thread_local! {
    /// Set while a transport's own thread dispatches (see [`polling_inline`]).
    static POLL_INLINE: Cell<bool> = const { Cell::new(false) };
}

/// Run `dispatch` (which calls [`Session::handle`](super::Session::handle)) with each tool
/// call it starts polled once right here, before it is spawned: a call that completes on its
/// first poll (an async tool that does not wait) is answered without waking the runtime.
///
/// Only for a transport thread inside a current-thread runtime (the check is in the
/// dispatch), where the runtime thread would otherwise be woken for every call; on a
/// multi-threaded runtime every call is spawned, so compute-heavy calls still spread over
/// the workers.
pub(crate) fn polling_inline<R>(dispatch: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            POLL_INLINE.with(|p| p.set(self.0));
        }
    }
    let _reset = Reset(POLL_INLINE.with(|p| p.replace(true)));
    dispatch()
}

/// Whether calls dispatched on this thread are polled inline first.
pub(crate) fn polls_inline() -> bool {
    POLL_INLINE.with(Cell::get)
}

/// Everything a call's task owns.
pub(crate) struct CallJob {
    pub(crate) shared: Arc<Shared>,
    pub(crate) tool: Arc<dyn Tool>,
    /// The arguments, the bytes as received.
    pub(crate) args: Box<RawValue>,
    pub(crate) peer: PeerInfo,
    /// Cancelled when the client cancels the request; a child of the host's token.
    pub(crate) cancel: CancellationToken,
    pub(crate) progress: Option<Arc<ProgressChannel>>,
    pub(crate) modern: bool,
    pub(crate) reply: Reply,
}

impl CallJob {
    /// Run the call and answer it.
    pub(crate) async fn run(self) {
        let CallJob { shared, tool, args, peer, cancel, progress, modern, reply } = self;
        let host = shared.options.cancellation.as_ref();
        let outcome = execute(
            &*tool,
            &args,
            peer,
            cancel,
            progress.clone(),
            host,
            shared.options.deadline,
            &shared.permits,
        )
        .await;
        // Progress stops with the call: nothing after the response.
        if let Some(p) = &progress {
            p.close();
        }
        match call_result_json(&outcome) {
            Ok(body) => {
                let body = if modern { shared.modern_body(&body) } else { body };
                reply.result(&body);
            }
            Err(e) => reply.error(RpcError::new(
                code::INTERNAL_ERROR,
                format!(
                    "internal error: the result of tool '{}' could not be serialised: {e}",
                    tool.info().name()
                ),
            )),
        }
    }
}

/// Run `tool` under the server's rules: wait for a slot, honour the host's cancellation
/// before and during the call, enforce the deadline, and turn a panic into a tool error.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn execute(
    tool: &dyn Tool,
    args: &RawValue,
    peer: PeerInfo,
    cancel: CancellationToken,
    progress: Option<Arc<ProgressChannel>>,
    host: Option<&CancellationToken>,
    deadline: Option<Duration>,
    permits: &Semaphore,
) -> Result<ToolOutput, ToolError> {
    let name = tool.info().name();
    let not_run = || ToolError::CancelledBeforeDispatch { tool: name.to_owned() };
    let permit = match host {
        Some(h) => tokio::select! {
            biased;
            _ = h.cancelled() => return Err(not_run()),
            p = permits.acquire() => p,
        },
        None => permits.acquire().await,
    };
    // The semaphore is never closed; if it were, nothing could run.
    let _permit = permit.map_err(|_| not_run())?;
    if host.is_some_and(CancellationToken::is_cancelled) {
        return Err(not_run());
    }

    let mut ctx = Context::builder().cancellation(cancel).peer(peer);
    if let Some(d) = deadline {
        ctx = ctx.deadline(Instant::now().checked_add(d));
    }
    if let Some(channel) = progress {
        ctx = ctx.progress(Arc::new(move |p: Progress| channel.emit(&p)));
    }
    let ctx = ctx.build();

    let body = async {
        let run = crate::tool::run_async(name, tool.call(args, &ctx));
        match deadline {
            Some(d) => match tokio::time::timeout(d, run).await {
                Ok(r) => r.and_then(|r| r),
                Err(_) => Err(ToolError::DeadlineExceeded { tool: name.to_owned(), deadline: d }),
            },
            None => run.await.and_then(|r| r),
        }
    };
    match host {
        Some(h) => tokio::select! {
            biased;
            _ = h.cancelled() => Err(ToolError::CancelledWhileRunning { tool: name.to_owned() }),
            r = body => r,
        },
        None => body.await,
    }
}

/// Where one request's progress goes: `notifications/progress` under its token, until the
/// call completes.
pub(crate) struct ProgressChannel {
    sink: Arc<dyn Sink>,
    token: Box<RawValue>,
    open: Mutex<bool>,
}

impl ProgressChannel {
    /// A channel for `token` on `sink`.
    pub(crate) fn new(sink: Arc<dyn Sink>, token: Box<RawValue>) -> Arc<ProgressChannel> {
        Arc::new(ProgressChannel { sink, token, open: Mutex::new(true) })
    }

    /// Send one report, unless the call has completed. [`Context`] has already dropped
    /// reports that do not increase.
    fn emit(&self, p: &Progress) {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if *open {
            self.sink
                .send(Outbound::notification("notifications/progress", &progress_params(&self.token, p)));
        }
    }

    /// The call completed: later reports (from a task the tool left behind) are dropped.
    fn close(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = false;
    }
}
