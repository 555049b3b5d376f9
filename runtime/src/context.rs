//! [`Context`], what a call is handed besides its arguments: the host's cancellation, the
//! server's deadline, a progress reporter, and who is calling.
//!
//! A tool asks for it by taking a `ctx: &Context` parameter; `#[tool]` injects it and never
//! advertises it as an argument.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::state::{State, StateMap};

/// Re-exported so tools can name the cancellation token type without a direct dependency.
pub use tokio_util::sync::CancellationToken;

/// One progress report, as a tool makes it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// How far along; each report must exceed the last.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// A human-readable note.
    pub message: Option<String>,
}

/// Where progress reports go. The server installs one when the request carried a
/// `progressToken`; otherwise reports are dropped.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Who is on the other end of the call, as the transport learned it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerInfo {
    /// The client's self-reported name (`clientInfo.name`).
    pub name: Option<String>,
    /// The client's self-reported version.
    pub version: Option<String>,
    /// The negotiated MCP protocol version.
    pub protocol_version: Option<String>,
}

/// What a call is handed besides its arguments.
///
/// Cheap to clone: clones share the same cancellation and progress state.
#[derive(Clone, Default)]
pub struct Context {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancel: CancellationToken,
    deadline: Option<Instant>,
    progress: Option<ProgressSink>,
    last_progress: Mutex<Option<f64>>,
    peer: PeerInfo,
    states: Option<Arc<StateMap>>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("cancelled", &self.is_cancelled())
            .field("deadline", &self.inner.deadline)
            .field("reports_progress", &self.inner.progress.is_some())
            .field("peer", &self.inner.peer)
            .finish()
    }
}

impl Context {
    /// A context with no cancellation, no deadline and nowhere to send progress: what a
    /// direct call from your own code or a test wants.
    pub fn new() -> Self {
        Context::default()
    }

    /// Start building a context (servers and hosts use this).
    pub fn builder() -> ContextBuilder {
        ContextBuilder::default()
    }

    /// The host's cancellation for the run this call belongs to.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Whether the host has cancelled the run.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Resolves when the host cancels the run; a long tool can `select!` on it to stop early.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await
    }

    /// When the server will abandon the call, if it set a deadline.
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.deadline
    }

    /// Who is calling.
    pub fn peer(&self) -> &PeerInfo {
        &self.inner.peer
    }

    /// The registry's state value of type `T`, if it holds one (see [`State`]).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.states.as_ref()?.get::<T>()
    }

    /// Whether progress reports go anywhere (the request carried a `progressToken`).
    pub fn reports_progress(&self) -> bool {
        self.inner.progress.is_some()
    }

    /// Report progress. Values must strictly increase; a report that does not exceed the
    /// last one is dropped, so a client never sees progress go backwards. Without a
    /// `progressToken` on the request this does nothing.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(sink) = &self.inner.progress else { return };
        if !progress.is_finite() {
            return;
        }
        {
            let mut last = self.inner.last_progress.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|l| progress <= l) {
                return;
            }
            *last = Some(progress);
        }
        sink(Progress { progress, total, message: message.map(str::to_owned) });
    }
}

/// Builds a [`Context`].
#[derive(Default)]
pub struct ContextBuilder {
    inner: Inner,
}

impl fmt::Debug for ContextBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextBuilder").finish_non_exhaustive()
    }
}

impl ContextBuilder {
    /// The host's cancellation token for the run.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.inner.cancel = token;
        self
    }

    /// The instant the server abandons the call.
    pub fn deadline(mut self, deadline: Option<Instant>) -> Self {
        self.inner.deadline = deadline;
        self
    }

    /// Where progress reports go.
    pub fn progress(mut self, sink: ProgressSink) -> Self {
        self.inner.progress = Some(sink);
        self
    }

    /// Who is calling.
    pub fn peer(mut self, peer: PeerInfo) -> Self {
        self.inner.peer = peer;
        self
    }

    /// The state values the call's tools may take (a registry's; see [`State`]).
    pub fn states(mut self, states: Arc<StateMap>) -> Self {
        self.inner.states = Some(states);
        self
    }

    /// Finish.
    pub fn build(self) -> Context {
        Context { inner: Arc::new(self.inner) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_strictly_increasing_and_dropped_without_a_sink() {
        Context::new().report_progress(1.0, None, None);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = seen.clone();
        let ctx = Context::builder()
            .progress(Arc::new(move |p: Progress| sink_seen.lock().unwrap().push(p.progress)))
            .build();
        for v in [1.0, 1.0, 0.5, 2.0, f64::NAN, 3.0] {
            ctx.report_progress(v, Some(3.0), None);
        }
        assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
    }
}
