//! A server that sees every request: an interceptor that refuses `deploy`, answers `canned`
//! itself and counts every request it watched, and a tool (`whoami`) that reads the request
//! it came in (headers, session, request id, `_meta`, the client's name). Served over stdio
//! by the `intercepted` binary and over HTTP in process by `tests/tests/intercept.rs`, where
//! the Python SDK drives both.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolwire::context::CallRequest;
use toolwire::registry::ToolRegistry;
use toolwire::server::{Intercepted, Outcome, Ruling, Server, Watch};
use toolwire::{ServerOptions, tool, tools};

/// Say what the request this call came in carried: the `x-tenant` header, the session's
/// id, the request's id, `_meta` and the client's name, as a JSON object.
#[tool(read_only)]
pub fn whoami(request: CallRequest<'_>) -> String {
    let tenant = request.headers.and_then(|h| h.get("x-tenant")).and_then(|v| v.to_str().ok());
    let meta: Option<serde_json::Value> = request.meta.and_then(|m| serde_json::from_str(m.get()).ok());
    json!({
        "tenant": tenant,
        "session_id": request.session_id,
        "request_id": request.id.map(ToString::to_string),
        "meta": meta,
        "client_name": request.client_name,
    })
    .to_string()
}

/// Deploy to `target` (the interceptor never lets it run).
#[tool(side_effecting)]
pub fn deploy(target: String) -> String {
    format!("deployed to {target}")
}

/// Say hello (served as usual; the interceptor only watches it).
#[tool(read_only)]
pub fn hello(name: String) -> String {
    format!("hello, {name}")
}

/// What the interceptor saw: how many requests ended, and how many of them as errors.
#[derive(Debug, Default)]
pub struct Seen {
    /// Requests whose outcome the watch was told.
    pub finished: AtomicUsize,
    /// Of those, the ones answered with a JSON-RPC error or a tool error.
    pub failed: AtomicUsize,
}

struct Counting(Arc<Seen>);

impl Watch for Counting {
    fn finished(self: Box<Self>, outcome: Outcome<'_>) {
        self.0.finished.fetch_add(1, Ordering::SeqCst);
        if matches!(outcome, Outcome::Error(_)) || outcome.is_tool_error() {
            self.0.failed.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The interceptor: `deploy` is refused, `canned` answered here (it is not a tool), every
/// other request watched.
pub fn interceptor(seen: Arc<Seen>) -> impl Fn(&Intercepted<'_>) -> Ruling + Send + Sync + 'static {
    move |request: &Intercepted<'_>| match (request.method(), request.name()) {
        ("tools/call", Some("deploy")) => Ruling::refuse("deploys are frozen until Monday"),
        ("tools/call", Some("canned")) => Ruling::answer(&json!({
            "content": [{"type": "text", "text": format!("answered by the interceptor for {}", request.client_name().unwrap_or("someone"))}],
            "isError": false,
        })),
        _ => Ruling::watch(Counting(seen.clone())),
    }
}

/// The tools.
pub fn registry() -> ToolRegistry {
    tools![whoami, deploy, hello].expect("the demo tools have unique names")
}

/// The same tools with no interceptor: `whoami` reads its request all the same (a `tools/call`
/// is then read in one pass, the path a server with no interceptor takes).
pub fn plain_server() -> Server {
    Server::builder(ServerOptions::new("toolwire-plain", env!("CARGO_PKG_VERSION"))).tools(registry()).build()
}

/// The server, its interceptor counting into `seen`.
pub fn server(seen: Arc<Seen>) -> Server {
    Server::builder(ServerOptions::new("toolwire-intercepted", env!("CARGO_PKG_VERSION")))
        .tools(registry())
        .intercept(interceptor(seen))
        .build()
}
