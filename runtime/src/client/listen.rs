//! 2026-07-28 `subscriptions/listen`: on a modern connection the client keeps one listen
//! open, asking for what it needs, and delivers what arrives through the paths the legacy
//! era uses (the tool and resource caches dropped, [`ClientOptions::on_list_changed`],
//! each [`Client::subscribe`] callback).
//!
//! - The filter asks for `toolsListChanged`, `resourcesListChanged` and
//!   `promptsListChanged` when the server declared `listChanged` for that list, and for
//!   `resourceSubscriptions`: the URIs the application subscribed to. With nothing to ask
//!   for, no listen is open.
//! - A change of subscriptions cancels the open listen (on HTTP its stream is closed, on
//!   stdio `notifications/cancelled` is sent) and opens one with the new filter;
//!   [`Client::subscribe`] waits for that listen's acknowledgment and fails with
//!   [`ClientError::NotSubscribed`] when the server left the URI out of it.
//! - The server's graceful closure (a `{"resultType":"complete"}` answer to the listen)
//!   and a stream that drops are both followed by a fresh listen: at once after a closure,
//!   after 200 ms, 400 ms, ... after a drop. [`RELISTENS`] ends in a row without a stream
//!   that lived [`STABLE`] end it for good (logged at `warn`); so does a JSON-RPC error
//!   (a server that does not serve listens) or the connection closing.
//!
//! [`ClientOptions::on_list_changed`]: super::ClientOptions::on_list_changed
//! [`ClientError::NotSubscribed`]: super::ClientError::NotSubscribed

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::conn::{Conn, Failure, RequestOpts};
use crate::protocol::methods;
use crate::race::{Either, first};
use crate::sync::lock;

/// How many listens may end in a row, none of them lasting [`STABLE`], before the client
/// stops listening.
pub(crate) const RELISTENS: u32 = 6;
/// How long a listen must have lived to count as healthy (the budget is then refilled).
pub(crate) const STABLE: Duration = Duration::from_secs(2);
/// The first wait after a dropped stream; doubled for each drop in a row.
const BACKOFF: Duration = Duration::from_millis(200);

/// Which lists the server said it announces changes of (`capabilities.*.listChanged`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Lists {
    tools: bool,
    resources: bool,
    prompts: bool,
}

impl Lists {
    /// Read from the server's capabilities object.
    pub(crate) fn from_capabilities(caps: &Value) -> Lists {
        let on =
            |k: &str| caps.get(k).and_then(|c| c.get("listChanged")).and_then(Value::as_bool) == Some(true);
        Lists { tools: on("tools"), resources: on("resources"), prompts: on("prompts") }
    }
}

/// The client's listen: a task keeping one `subscriptions/listen` open. Dropped with the
/// client; the task ends with it.
pub(crate) struct Listener {
    conn: Weak<Conn>,
    lists: Lists,
    /// Cancels the listen now open, so the task opens one with the current filter.
    current: Arc<Mutex<CancellationToken>>,
    /// Wakes the task when it sleeps with nothing to ask for.
    wake: Arc<Notify>,
    /// The task, and a token cancelled when it ends.
    task: Mutex<(JoinHandle<()>, CancellationToken)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        lock(&self.task).0.abort();
        lock(&self.current).cancel();
    }
}

impl Listener {
    /// Start listening on `conn` (a modern connection) for what `lists` allows and the
    /// subscriptions ask for.
    pub(crate) fn start(conn: &Arc<Conn>, lists: Lists) -> Listener {
        let current = Arc::new(Mutex::new(CancellationToken::new()));
        let wake = Arc::new(Notify::new());
        let conn = Arc::downgrade(conn);
        let task = spawn(&conn, lists, &current, &wake);
        Listener { conn, lists, current, wake, task: Mutex::new(task) }
    }

    /// Reopen the listen with the current subscriptions (starting the task again if it had
    /// stopped). Returns the lowest id the new listen can have, and a token cancelled if
    /// the task stops, for [`acknowledged`](Self::acknowledged).
    pub(crate) fn refresh(&self) -> (i64, CancellationToken) {
        let floor = self.conn.upgrade().map_or(0, |c| c.next_request_id());
        let mut task = lock(&self.task);
        if task.0.is_finished() {
            *task = spawn(&self.conn, self.lists, &self.current, &self.wake);
        } else {
            lock(&self.current).cancel();
            self.wake.notify_one();
        }
        (floor, task.1.clone())
    }

    /// Wait up to `timeout` for the acknowledgment of a listen with id at least `floor`;
    /// its filter, or `None` when none came (or the task stopped first).
    pub(crate) async fn acknowledged(
        &self,
        (floor, stopped): (i64, CancellationToken),
        timeout: Duration,
    ) -> Option<Value> {
        let conn = self.conn.upgrade()?;
        let mut acks = conn.acks.subscribe();
        drop(conn);
        let wait = acks.wait_for(|ack| ack.as_ref().is_some_and(|(id, _)| *id >= floor));
        let wait = async {
            match wait.await {
                Ok(ack) => ack.as_ref().map(|(_, filter)| filter.clone()),
                Err(_) => None,
            }
        };
        match first(tokio::time::timeout(timeout, wait), stopped.cancelled()).await {
            Either::Left(Ok(filter)) => filter,
            _ => None,
        }
    }
}

/// Spawn the listen loop; its handle and the token cancelled when it ends.
fn spawn(
    conn: &Weak<Conn>,
    lists: Lists,
    current: &Arc<Mutex<CancellationToken>>,
    wake: &Arc<Notify>,
) -> (JoinHandle<()>, CancellationToken) {
    let stopped = CancellationToken::new();
    let guard = stopped.clone().drop_guard();
    let (conn, current, wake) = (Weak::clone(conn), Arc::clone(current), Arc::clone(wake));
    let task = tokio::spawn(async move {
        let _guard = guard;
        run(conn, lists, current, wake).await;
    });
    (task, stopped)
}

/// The filter to ask for: the announced lists and the subscribed URIs; `None` when that
/// is nothing.
fn filter(conn: &Conn, lists: Lists) -> Option<Value> {
    let mut f = serde_json::Map::new();
    for (on, key) in [
        (lists.tools, "toolsListChanged"),
        (lists.resources, "resourcesListChanged"),
        (lists.prompts, "promptsListChanged"),
    ] {
        if on {
            f.insert(key.into(), true.into());
        }
    }
    let mut uris: Vec<String> = lock(&conn.subscriptions).keys().cloned().collect();
    uris.sort();
    if !uris.is_empty() {
        f.insert("resourceSubscriptions".into(), uris.into());
    }
    (!f.is_empty()).then_some(Value::Object(f))
}

/// The listen loop (see the module doc).
async fn run(conn: Weak<Conn>, lists: Lists, current: Arc<Mutex<CancellationToken>>, wake: Arc<Notify>) {
    let mut budget = RELISTENS;
    let mut drops = 0u32;
    loop {
        let Some(c) = conn.upgrade() else { return };
        if c.closed_reason().is_some() {
            return;
        }
        let Some(notifications) = filter(&c, lists) else {
            drop(c);
            wake.notified().await;
            continue;
        };
        let cancel = CancellationToken::new();
        *lock(&current) = cancel.clone();
        let id = Arc::new(AtomicI64::new(0));
        let opts =
            RequestOpts { cancel: Some(cancel), id_out: Some(Arc::clone(&id)), ..RequestOpts::default() };
        let started = tokio::time::Instant::now();
        let request =
            c.request(methods::SUBSCRIPTIONS_LISTEN, Some(json!({ "notifications": notifications })), opts);
        let outcome = request.await;
        if started.elapsed() >= STABLE {
            budget = RELISTENS;
            drops = 0;
        }
        let id = id.load(Ordering::SeqCst);
        let delay = match outcome {
            // A change of subscriptions: listen again at once, with the new filter.
            Err(Failure::Cancelled | Failure::CancelledBeforeSend) => continue,
            Ok(result) => {
                let kind = result.get("resultType").and_then(Value::as_str).unwrap_or("complete");
                tracing::debug!(server = %c.server, id, result_type = kind, "the server closed a listen");
                drops = 0;
                Duration::ZERO
            }
            Err(Failure::Rpc { code, .. }) => {
                return tracing::info!(server = %c.server, code, "the server refused subscriptions/listen; not listening");
            }
            Err(Failure::Http(status)) => {
                return tracing::info!(server = %c.server, status, "the server refused subscriptions/listen; not listening");
            }
            Err(failure) => {
                if c.closed_reason().is_some() {
                    return;
                }
                tracing::debug!(server = %c.server, id, ?failure, "a listen's stream dropped");
                drops += 1;
                BACKOFF * 2u32.saturating_pow(drops - 1)
            }
        };
        budget -= 1;
        if budget == 0 {
            return tracing::warn!(
                server = %c.server,
                "stopped listening: {RELISTENS} listens in a row ended within {}s",
                STABLE.as_secs()
            );
        }
        drop(c);
        tokio::time::sleep(delay).await;
    }
}
