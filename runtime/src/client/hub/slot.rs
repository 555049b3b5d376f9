//! One declared server's slot in the hub, and its lifecycle: connecting (once, bounded),
//! the supervisor that watches the connection, healing with backoff, closing.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, broadcast, watch};

use super::declare::{ConnectMode, Declaration};
use super::health::{Health, HubEvent};
use super::options::HubOptions;
use crate::client::{AdoptOptions, Client, Discovery, ServerTransport};
use crate::race::{Either, first};

/// A connected server: its client and its adopted tools.
#[derive(Clone)]
pub(super) struct Live {
    pub(super) client: Client,
    pub(super) discovery: Arc<Discovery>,
}

/// One declared server.
pub(super) struct Slot {
    pub(super) decl: Declaration,
    pub(super) mode: ConnectMode,
    pub(super) prefix: String,
    pub(super) health: watch::Sender<Health>,
    pub(super) live: Mutex<Option<Live>>,
    /// The last tools adopted, kept while the server heals, fails or is closed, so that
    /// its names stay its own (no other server's tool takes them meanwhile).
    pub(super) known: Mutex<Option<Arc<Discovery>>>,
    pub(super) connecting: tokio::sync::Mutex<()>,
    pub(super) trouble: Notify,
    pub(super) retry_at: Mutex<Option<Instant>>,
    pub(super) failures: AtomicU32,
    pub(super) closed: AtomicBool,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Slot {
    pub(super) fn current(&self) -> Option<Live> {
        lock(&self.live).clone()
    }

    pub(super) fn name(&self) -> &str {
        &self.decl.name
    }
}

pub(super) struct Inner {
    pub(super) slots: Vec<Arc<Slot>>,
    pub(super) options: HubOptions,
    pub(super) events: broadcast::Sender<HubEvent>,
}

impl Inner {
    pub(super) fn emit(&self, event: HubEvent) {
        let _ = self.events.send(event);
    }

    pub(super) fn set(&self, slot: &Slot, health: Health) {
        slot.health.send_replace(health);
    }
}

pub(super) async fn close_slot(inner: &Inner, slot: &Slot) {
    if slot.closed.swap(true, Ordering::SeqCst) {
        return;
    }
    slot.trouble.notify_one();
    let _guard = slot.connecting.lock().await;
    let live = lock(&slot.live).take();
    if let Some(live) = live {
        live.client.close().await;
    }
    inner.emit(HubEvent::Closed { server: slot.name().to_owned() });
    inner.set(slot, Health::Closed);
}

/// The transport as declared, with `UV_CACHE_DIR` under the project for `uvx`/`uv`.
pub(crate) fn prepare(decl: &Declaration, project_root: &Path) -> ServerTransport {
    match &decl.transport {
        ServerTransport::Stdio(s) => {
            let launcher =
                s.command.file_name().and_then(|n| n.to_str()).is_some_and(|n| n == "uvx" || n == "uv");
            if launcher && !s.env.contains_key("UV_CACHE_DIR") {
                let cache = project_root.join(".uv_cache");
                return ServerTransport::Stdio(s.clone().env("UV_CACHE_DIR", cache.display().to_string()));
            }
            decl.transport.clone()
        }
        other => other.clone(),
    }
}

/// One attempt: connect and adopt, bounded.
pub(super) async fn connect_once(inner: &Inner, slot: &Slot) -> Result<Live, String> {
    let decl = &slot.decl;
    let mut options = (inner.options.client)(&decl.name);
    if let Some(t) = decl.start_timeout {
        options = options.request_timeout(t);
    }
    // initialize and tools/list each have the request timeout; this bounds the rest.
    let bound = options.request_timeout.saturating_mul(3);
    let mut adopt = AdoptOptions::new();
    if let Some(allow) = &decl.allow {
        adopt = adopt.allow(allow.iter().cloned());
    }
    if let Some(n) = decl.max_tools {
        adopt = adopt.max_tools(n);
    }
    if let Some(n) = decl.max_result_bytes {
        adopt = adopt.max_result_bytes(n);
    }
    if let Some(t) = decl.timeout {
        adopt = adopt.timeout(t);
    }
    adopt = adopt.prefix(slot.prefix.clone());
    let transport = prepare(decl, &inner.options.project_root);
    let attempt = async {
        let client = Client::connect(transport, options).await.map_err(|e| e.to_string())?;
        match client.adopt(adopt).await {
            Ok(discovery) => Ok(Live { client, discovery: Arc::new(discovery) }),
            Err(e) => {
                client.close().await;
                Err(e.to_string())
            }
        }
    };
    match tokio::time::timeout(bound, attempt).await {
        Ok(result) => result,
        Err(_) => Err(format!(
            "server '{}' did not finish starting within {}s",
            decl.name,
            crate::tool::fmt_secs(bound)
        )),
    }
}

/// The live connection of `slot`, connecting it when it may be; else why not.
pub(super) async fn ensure(inner: &Inner, slot: &Slot) -> Result<Live, String> {
    let name = slot.name();
    if let Some(reason) = unusable(slot) {
        return Err(reason);
    }
    let _guard = slot.connecting.lock().await;
    if let Some(reason) = unusable(slot) {
        return Err(reason);
    }
    if let Some(live) = slot.current() {
        return Ok(live);
    }
    inner.emit(HubEvent::Connecting { server: name.to_owned() });
    inner.set(slot, Health::Connecting);
    match connect_once(inner, slot).await {
        Ok(live) => {
            ready(inner, slot, live.clone());
            Ok(live)
        }
        Err(reason) => {
            let failures = slot.failures.fetch_add(1, Ordering::SeqCst) + 1;
            *lock(&slot.retry_at) = Some(Instant::now() + inner.options.backoff.delay(failures));
            inner.emit(HubEvent::Failed { server: name.to_owned(), reason: reason.clone() });
            inner.set(slot, Health::Failed { reason: reason.clone() });
            Err(reason)
        }
    }
}

/// Why `slot` cannot be used now, without waiting; `None` when it is connected or may be.
fn unusable(slot: &Slot) -> Option<String> {
    let name = slot.name();
    if slot.closed.load(Ordering::SeqCst) {
        return Some(format!("server '{name}' is closed"));
    }
    if let Some(live) = slot.current() {
        return live.client.closed_reason().map(|reason| {
            slot.trouble.notify_one();
            format!("server '{name}' {reason}")
        });
    }
    match &*slot.health.borrow() {
        Health::Disabled => Some(format!("server '{name}' is disabled")),
        Health::Degraded { reason, .. } => {
            Some(format!("server '{name}' lost its connection ({reason}) and is being reconnected"))
        }
        Health::Failed { reason } if lock(&slot.retry_at).is_some_and(|at| Instant::now() < at) => {
            Some(reason.clone())
        }
        _ => None,
    }
}

fn ready(inner: &Inner, slot: &Slot, live: Live) {
    let event = HubEvent::Connected {
        server: slot.name().to_owned(),
        pid: live.client.pid(),
        tools: live.discovery.tools().len(),
    };
    *lock(&slot.known) = Some(live.discovery.clone());
    *lock(&slot.live) = Some(live);
    slot.failures.store(0, Ordering::SeqCst);
    *lock(&slot.retry_at) = None;
    inner.emit(event);
    inner.set(slot, Health::Ready);
}

/// Watch one server: a closed connection (checked every `check_every`), or a ping that
/// fails after a failed call or every `ping_every`, starts healing.
pub(super) async fn supervise(hub: Weak<Inner>, slot: Arc<Slot>) {
    let mut pinged = Instant::now();
    loop {
        let (every, ping_every) = match hub.upgrade() {
            Some(inner) => (inner.options.check_every, inner.options.ping_every),
            None => return,
        };
        let mut probe =
            matches!(first(slot.trouble.notified(), tokio::time::sleep(every)).await, Either::Left(()));
        if ping_every.is_some_and(|p| pinged.elapsed() >= p) {
            probe = true;
        }
        if probe {
            pinged = Instant::now();
        }
        let Some(inner) = hub.upgrade() else { return };
        if slot.closed.load(Ordering::SeqCst) {
            return;
        }
        let Some(live) = slot.current() else { continue };
        let lost = match live.client.closed_reason() {
            Some(reason) => Some(reason),
            None if probe => {
                let bound = inner.options.check_every.max(Duration::from_secs(2));
                match tokio::time::timeout(bound, live.client.ping()).await {
                    Ok(Ok(())) => None,
                    Ok(Err(e)) => Some(reason_of(&e.to_string(), slot.name())),
                    Err(_) => Some(format!("did not answer a ping within {}s", crate::tool::fmt_secs(bound))),
                }
            }
            None => None,
        };
        if let Some(reason) = lost {
            heal(&inner, &slot, live, reason).await;
        }
    }
}

/// A client error's message without its leading "server 'name' ".
fn reason_of(message: &str, name: &str) -> String {
    message.strip_prefix(&format!("server '{name}' ")).unwrap_or(message).to_owned()
}

pub(super) async fn heal(inner: &Inner, slot: &Slot, lost: Live, reason: String) {
    let name = slot.name().to_owned();
    {
        let _guard = slot.connecting.lock().await;
        if slot.closed.load(Ordering::SeqCst) {
            return;
        }
        *lock(&slot.live) = None;
        // Each event goes out before the state it leads to, so that a watcher woken by
        // the state finds the event already sent.
        inner.emit(HubEvent::Disconnected { server: name.clone(), reason: reason.clone() });
        inner.set(slot, Health::Degraded { reason: reason.clone(), attempt: 0 });
    }
    // Shutting the old one down must not hold up healing (an HTTP DELETE to a dead host).
    tokio::spawn(async move { lost.client.close().await });
    let backoff = inner.options.backoff;
    let mut last = reason.clone();
    for attempt in 1..=backoff.attempts {
        let delay = backoff.delay(attempt);
        inner.emit(HubEvent::Reconnecting { server: name.clone(), attempt, delay });
        inner.set(slot, Health::Degraded { reason: reason.clone(), attempt });
        tokio::time::sleep(delay).await;
        let _guard = slot.connecting.lock().await;
        if slot.closed.load(Ordering::SeqCst) {
            return;
        }
        match connect_once(inner, slot).await {
            Ok(live) => {
                ready(inner, slot, live);
                return;
            }
            Err(e) => last = e,
        }
    }
    let _guard = slot.connecting.lock().await;
    if slot.closed.load(Ordering::SeqCst) {
        return;
    }
    let reason = format!("server '{name}' could not be reconnected in {} attempts: {last}", backoff.attempts);
    slot.failures.store(backoff.attempts, Ordering::SeqCst);
    *lock(&slot.retry_at) = Some(Instant::now() + backoff.max);
    inner.emit(HubEvent::Failed { server: name, reason: reason.clone() });
    inner.set(slot, Health::Failed { reason });
}
