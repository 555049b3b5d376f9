//! [`FakeServer`]: a remote MCP server scripted tool by tool, as a [`Transport`], for testing
//! code that adopts tools: what it does when a server answers, fails, hangs, dies, babbles or
//! refuses the credentials.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::client::{CloseFuture, Incoming, Link, Outgoing, StartFuture, Transport};
use crate::sync::lock;

/// What the fake server does with one call of a tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// A result of one text block.
    Text(String),
    /// A result of one text block with `isError: true` (the tool failed).
    ToolError(String),
    /// The whole `result` object, as given (structured content, images, anything).
    Result(Value),
    /// A JSON-RPC error answer.
    RpcError {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// No answer, ever: the caller's timeout or cancellation ends the call (and the fake
    /// receives `notifications/cancelled`).
    Hang,
    /// The server dies with the call in flight: this call, every other one waiting and every
    /// later request fail as they would when a real server's process exits.
    Die,
    /// Junk first (a line that is not JSON, an answer to a request never sent, a notification
    /// nobody knows, an empty batch, a message that is not an object, a log message without a
    /// level), then the reply it wraps.
    Babble(Box<Reply>),
    /// The exchange is answered with an HTTP status instead of a message: 401 or 403 are
    /// refused credentials.
    Status(u16),
}

impl Reply {
    /// A result of one text block.
    pub fn text(text: impl Into<String>) -> Reply {
        Reply::Text(text.into())
    }

    /// This reply, after junk (see [`Reply::Babble`]).
    pub fn babbling(self) -> Reply {
        Reply::Babble(Box::new(self))
    }
}

/// The calls a [`FakeServer`] received, in order: each tool's name and its arguments. Cheap to
/// clone; clones share the record.
#[derive(Debug, Clone, Default)]
pub struct FakeCalls(Arc<Mutex<Vec<(String, Value)>>>);

impl FakeCalls {
    /// Every call so far: the tool's name and the arguments as sent.
    pub fn all(&self) -> Vec<(String, Value)> {
        lock(&self.0).clone()
    }

    /// The names of the tools called so far, in order.
    pub fn names(&self) -> Vec<String> {
        lock(&self.0).iter().map(|(name, _)| name.clone()).collect()
    }
}

/// A scripted MCP server, as a [`Transport`]: `Client::connect(fake, options)`.
///
/// It speaks the legacy handshake (`initialize`, echoing the client's version; a 2026-07-28
/// `server/discover` is refused with -32601, as a legacy server refuses it), lists the tools
/// it was given, and answers each call with the next [`Reply`] scripted for that tool (the
/// last one again once the script runs out). A tool it lists but has no reply for answers
/// with a tool error saying so; one it does not list, with -32602.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use serde_json::json;
/// use toolwire::client::{AdoptOptions, Client, ClientOptions};
/// use toolwire::testing::{FakeServer, Reply};
///
/// let fake = FakeServer::new()
///     .tool("lookup", "Look a word up.", json!({"type": "object", "properties": {"word": {"type": "string"}}}))
///     .reply("lookup", Reply::text("a small dog"))
///     .reply("lookup", Reply::Hang);
/// let calls = fake.calls();
/// let client = Client::connect(fake, ClientOptions::new("dict")).await?;
/// let tools = client.adopt(AdoptOptions::default()).await?;
/// // ... the code under test uses `tools`; then:
/// assert_eq!(calls.names(), ["lookup"]);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct FakeServer {
    tools: Vec<Value>,
    replies: HashMap<String, VecDeque<Reply>>,
    refuse: Option<u16>,
    calls: FakeCalls,
}

impl FakeServer {
    /// A server with no tools, answering the handshake.
    pub fn new() -> FakeServer {
        FakeServer::default()
    }

    /// List a tool named `name` with a description and an input schema.
    pub fn tool(self, name: &str, description: &str, input_schema: Value) -> FakeServer {
        self.listed(json!({"name": name, "description": description, "inputSchema": input_schema}))
    }

    /// List `entry` as one `tools/list` entry, exactly as given (annotations, an output
    /// schema, icons, `_meta`, or something malformed to see it refused).
    pub fn listed(mut self, entry: Value) -> FakeServer {
        self.tools.push(entry);
        self
    }

    /// Answer the next call of `tool` (after the replies scripted before) with `reply`.
    pub fn reply(mut self, tool: &str, reply: Reply) -> FakeServer {
        self.replies.entry(tool.to_owned()).or_default().push_back(reply);
        self
    }

    /// Answer every request, the handshake included, with HTTP status `status` (401: the
    /// credentials are refused, so connecting fails).
    pub fn refuse(mut self, status: u16) -> FakeServer {
        self.refuse = Some(status);
        self
    }

    /// The record of the calls this server receives (keep it before connecting).
    pub fn calls(&self) -> FakeCalls {
        self.calls.clone()
    }

    /// The next reply for a call of `tool`; `None` for a tool it does not list.
    fn next_reply(&mut self, tool: &str) -> Option<Reply> {
        if !self.tools.iter().any(|t| t.get("name").and_then(Value::as_str) == Some(tool)) {
            return None;
        }
        let Some(script) = self.replies.get_mut(tool) else {
            return Some(Reply::ToolError(format!("fake server: no reply scripted for tool '{tool}'")));
        };
        Some(match script.len() {
            0 => Reply::ToolError(format!("fake server: no reply scripted for tool '{tool}'")),
            1 => script[0].clone(),
            _ => script.pop_front().expect("the script has replies"),
        })
    }

    /// Serve until the client is gone or the script says die.
    async fn serve(mut self, mut outgoing: Outgoing, incoming: Incoming) {
        while let Some(message) = outgoing.recv().await {
            let Ok(Value::Object(mut msg)) = serde_json::from_str::<Value>(message.json()) else { continue };
            let (Some(id), Some(method)) = (message.request_id(), message.method()) else { continue };
            let params = msg.remove("params").unwrap_or(Value::Null);
            if let Some(status) = self.refuse {
                incoming.http_status(id, status);
                continue;
            }
            let reply = match method {
                "initialize" => Reply::Result(json!({
                    "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "toolwire-fake", "version": env!("CARGO_PKG_VERSION")},
                })),
                "tools/list" => Reply::Result(json!({"tools": self.tools})),
                "ping" => Reply::Result(json!({})),
                "tools/call" => {
                    let name = params.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
                    lock(&self.calls.0).push((name.clone(), arguments));
                    self.next_reply(&name).unwrap_or_else(|| Reply::RpcError {
                        code: -32602,
                        message: format!("Unknown tool: {name}"),
                    })
                }
                other => Reply::RpcError { code: -32601, message: format!("Method not found: {other}") },
            };
            if !answer(&incoming, id, reply) {
                return;
            }
        }
    }
}

/// Act out `reply` to request `id`; `false` when the server is now dead.
fn answer(incoming: &Incoming, id: i64, reply: Reply) -> bool {
    let result = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    let text = match reply {
        Reply::Text(text) => result(json!({"content": [{"type": "text", "text": text}]})),
        Reply::ToolError(text) => {
            result(json!({"content": [{"type": "text", "text": text}], "isError": true}))
        }
        Reply::Result(value) => result(value),
        Reply::RpcError { code, message } => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
        }
        Reply::Hang => return true,
        Reply::Die => {
            incoming.closed("died (the fake server was scripted to)");
            return false;
        }
        Reply::Status(status) => {
            incoming.http_status(id, status);
            return true;
        }
        Reply::Babble(then) => {
            for junk in [
                "this is not JSON",
                r#"{"jsonrpc":"2.0","id":987654321,"result":{"content":[]}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/fake/babble","params":{"n":1}}"#,
                "[]",
                "42",
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"no level"}}"#,
            ] {
                incoming.deliver(junk);
            }
            return answer(incoming, id, *then);
        }
    };
    incoming.deliver(&text);
    true
}

/// The running fake: its task.
struct FakeLink(JoinHandle<()>);

impl Transport for FakeServer {
    fn start(self: Box<Self>, outgoing: Outgoing, incoming: Incoming) -> StartFuture {
        Box::pin(async move {
            let task = tokio::spawn(self.serve(outgoing, incoming));
            Ok(Box::new(FakeLink(task)) as Box<dyn Link>)
        })
    }
}

impl Link for FakeLink {
    fn close(&mut self) -> CloseFuture<'_> {
        self.0.abort();
        Box::pin(async {})
    }
}

impl Drop for FakeLink {
    fn drop(&mut self) {
        self.0.abort();
    }
}
