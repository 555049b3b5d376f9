//! Talking back to the client from a call (legacy sessions): the requests a session has
//! sent the client and is waiting on, the level the client set with `logging/setLevel`, the
//! roots cache, and [`CallTalk`], the [`Talkback`] one call's [`Context`](crate::Context) is
//! handed.
//!
//! A request goes out through the call's own sink (stdio's output; the SSE stream of the
//! POST that carried the call), under an id of ours (`toolwire-N`), and its answer comes back
//! as an inbound response that [`Asking::answer`] routes to the waiter. A request whose
//! waiter goes away unanswered (the timeout fired, the call was cancelled) is forgotten and
//! withdrawn with `notifications/cancelled`, so a late answer is ignored.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::oneshot;

use crate::context::{AskError, Asked, Roots, Talkback};
use crate::protocol::methods;
use crate::protocol::{ClientCapabilities, LoggingLevel, Outbound, RequestId};
use crate::sync::lock;

use super::sink::Sink;

/// How the client answered one of our requests: its result, or its error code and message.
pub(crate) type Answer = Result<Box<RawValue>, (Option<i64>, Option<String>)>;

/// The level a session logs at until the client sets one.
pub(crate) const DEFAULT_LOG_LEVEL: LoggingLevel = LoggingLevel::Info;

/// A session's requests to its client, its log level and its roots cache.
pub(crate) struct Asking {
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Answer>>>,
    next: AtomicU64,
    level: AtomicU8,
    roots: Mutex<Option<Arc<Roots>>>,
    roots_generation: AtomicU64,
    /// The session serves one request and is gone (stateless HTTP): nothing can answer it.
    one_shot: std::sync::atomic::AtomicBool,
}

/// Why a call in a one-shot session cannot ask the client anything.
pub(crate) const ONE_SHOT: &str = "this server serves HTTP statelessly (each request on a fresh session), so the client's answer would reach another session; nothing was sent";

impl Default for Asking {
    fn default() -> Self {
        Asking {
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            level: AtomicU8::new(DEFAULT_LOG_LEVEL.index()),
            roots: Mutex::new(None),
            roots_generation: AtomicU64::new(0),
            one_shot: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl Asking {
    /// A fresh id for a request of ours, registered as awaited.
    pub(crate) fn expect(&self, prefix: &str) -> (RequestId, oneshot::Receiver<Answer>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("{prefix}{n}"));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        (id, rx)
    }

    /// Stop waiting for `id`. Returns whether it was still awaited.
    pub(crate) fn forget(&self, id: &RequestId) -> bool {
        lock(&self.pending).remove(id).is_some()
    }

    /// Route an inbound response to whoever awaits it; `false` if no one does.
    pub(crate) fn answer(&self, id: Option<&RequestId>, outcome: Answer) -> bool {
        match id.and_then(|id| lock(&self.pending).remove(id)) {
            Some(tx) => {
                let _ = tx.send(outcome);
                true
            }
            None => false,
        }
    }

    /// This session serves one request only (stateless HTTP): its calls cannot ask.
    #[cfg(feature = "http")]
    pub(crate) fn set_one_shot(&self) {
        self.one_shot.store(true, Ordering::Relaxed);
    }

    /// Whether this session serves one request only.
    pub(crate) fn is_one_shot(&self) -> bool {
        self.one_shot.load(Ordering::Relaxed)
    }

    /// `logging/setLevel`.
    pub(crate) fn set_level(&self, level: LoggingLevel) {
        self.level.store(level.index(), Ordering::Relaxed);
    }

    /// The least severe level the client wants.
    pub(crate) fn level(&self) -> Option<LoggingLevel> {
        LoggingLevel::from_index(self.level.load(Ordering::Relaxed))
    }

    /// `notifications/roots/list_changed`: the cache is dropped.
    pub(crate) fn roots_changed(&self) {
        let mut roots = lock(&self.roots);
        self.roots_generation.fetch_add(1, Ordering::AcqRel);
        *roots = None;
    }
}

/// What one call in a legacy session talks back through.
pub(crate) struct CallTalk {
    pub(crate) asking: Arc<Asking>,
    pub(crate) sink: Arc<dyn Sink>,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) timeout: Duration,
}

impl Talkback for CallTalk {
    fn capabilities(&self) -> ClientCapabilities {
        self.capabilities
    }

    fn log_level(&self) -> Option<LoggingLevel> {
        self.asking.level()
    }

    fn notify(&self, method: &str, params: String) {
        super::sink::send_from_call(&self.sink, Outbound::notification(method, &params));
    }

    fn request(&self, method: &'static str, params: String) -> Asked {
        let (id, rx) = self.asking.expect("toolwire-");
        super::sink::send_from_call(&self.sink, Outbound::request_with(&id, method, &params));
        let mut pending =
            Withdraw { asking: self.asking.clone(), sink: self.sink.clone(), id: Some(id), method };
        let timeout = self.timeout;
        Box::pin(async move {
            let outcome = tokio::time::timeout(timeout, rx).await;
            match outcome {
                Err(_) => Err(AskError::TimedOut { what: method, timeout }),
                Ok(answered) => {
                    pending.disarm();
                    match answered {
                        Ok(Ok(result)) => Ok(result),
                        Ok(Err((code, message))) => Err(AskError::Refused {
                            what: method,
                            code,
                            message: message.unwrap_or_else(|| "(no message)".to_owned()),
                        }),
                        Err(_) => Err(AskError::Closed { what: method }),
                    }
                }
            }
        })
    }

    fn cached_roots(&self) -> Option<Arc<Roots>> {
        lock(&self.asking.roots).clone()
    }

    fn cache_roots(&self, generation: u64, roots: Arc<Roots>) {
        let mut cached = lock(&self.asking.roots);
        if self.asking.roots_generation.load(Ordering::Acquire) == generation {
            *cached = Some(roots);
        }
    }

    fn roots_generation(&self) -> u64 {
        self.asking.roots_generation.load(Ordering::Acquire)
    }
}

/// A request of ours still awaited: dropped armed (timed out, or the call's future was
/// dropped), it is forgotten and withdrawn with `notifications/cancelled`.
struct Withdraw {
    asking: Arc<Asking>,
    sink: Arc<dyn Sink>,
    id: Option<RequestId>,
    method: &'static str,
}

impl Withdraw {
    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if self.asking.forget(&id) {
            let mut params = String::from("{\"requestId\":");
            id.write_json(&mut params);
            params.push_str(",\"reason\":");
            crate::json::push_json_string(
                &mut params,
                &format!("the server stopped waiting for {}", self.method),
            );
            params.push('}');
            self.sink.send(Outbound::notification(methods::NOTIFICATIONS_CANCELLED, &params));
        }
    }
}
