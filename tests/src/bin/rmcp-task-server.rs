//! A task server built on rmcp 3.11 (the official Rust SDK), for tests/tests/tasks_rmcp.rs:
//! toolwire's client drives tasks of the tasks extension (`io.modelcontextprotocol/tasks`,
//! SEP-2663, protocol 2026-07-28) that a peer's server runs, not only toolwire's own.
//!
//! It serves rmcp's streamable HTTP on 127.0.0.1 (an ephemeral port), prints its MCP URL as
//! one line on stdout, and serves until its stdin closes. Its tools, each run as a task with
//! rmcp's `TaskManager` when the client declared the extension (and refused with rmcp's
//! "missing required client capability" error otherwise):
//!
//! - `slow` sleeps `seconds` (default 1) and returns `slow done after {seconds}s`;
//! - `failing` ends its task `failed` with a JSON-RPC error (internal error, a message);
//! - `broken` completes its task with a tool execution error (`isError: true`);
//! - `waiter` waits 60 s unless cancelled; on `tasks/cancel` it writes
//!   `rmcp-task-server: task {id} cancelled` to stderr and ends `cancelled`.
//!
//! Every `tasks/cancel` it receives is written to stderr too (`rmcp-task-server: tasks/cancel
//! {id}`), so a test reads what the server saw, not what the client believes it sent.

use std::future::IntoFuture;
use std::io::{Read, Write};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ContentBlock, CreateTaskResult, GetTaskParams, GetTaskResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// The poll interval the server suggests to clients, in milliseconds (rmcp's default is 1 s;
/// shorter keeps the tests quick and proves the client reads it).
const POLL_INTERVAL_MS: u64 = 100;

/// The server: its tasks live in one `TaskManager` shared by every request (2026-07-28 is
/// served statelessly, one handler per request).
#[derive(Clone)]
struct TaskServer {
    tasks: TaskManager,
}

/// A tool with an object schema of `properties`.
fn tool(name: &'static str, description: &'static str, properties: Value) -> Tool {
    let schema = json!({"type": "object", "properties": properties});
    let Value::Object(schema) = schema else { unreachable!("an object literal") };
    Tool::new(name, description, schema)
}

/// The tools this server lists.
fn tools() -> Vec<Tool> {
    vec![
        tool("slow", "Sleeps `seconds` (default 1), then says so", json!({"seconds": {"type": "number"}})),
        tool("failing", "Fails its task with a JSON-RPC error", json!({})),
        tool("broken", "Completes its task with a tool execution error", json!({})),
        tool("waiter", "Waits a minute unless cancelled", json!({})),
    ]
}

/// Options of every task: the short poll interval.
fn options() -> TaskOptions {
    TaskOptions::new().with_poll_interval_ms(POLL_INTERVAL_MS)
}

/// One line to stderr, flushed at once (the test reads it while the server runs).
fn note(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "rmcp-task-server: {line}");
    let _ = err.flush();
}

impl ServerHandler for TaskServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build())
            .with_server_info(Implementation::new("rmcp-task-server", "0.1.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult { tools: tools(), ..Default::default() })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !cx.client_capabilities().is_some_and(|caps| caps.supports_tasks()) {
            return Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ));
        }
        let args: JsonObject = request.arguments.clone().unwrap_or_default();
        let task = match request.name.as_ref() {
            "slow" => {
                let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(1.0);
                self.tasks.spawn(options(), move |ctx| {
                    Box::pin(async move {
                        tokio::select! {
                            () = ctx.cancelled() => Err(TaskExit::Cancelled),
                            () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {
                                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                                    "slow done after {seconds}s"
                                ))]))
                            }
                        }
                    })
                })
            }
            "failing" => self.tasks.spawn(options(), |_ctx| {
                Box::pin(async {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    Err(TaskExit::Error(ErrorData::internal_error("the disk is full", None)))
                })
            }),
            "broken" => self.tasks.spawn(options(), |_ctx| {
                Box::pin(async {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    Ok(CallToolResult::error(vec![ContentBlock::text("broken: no input file")]))
                })
            }),
            "waiter" => self.tasks.spawn(options(), |ctx| {
                Box::pin(async move {
                    tokio::select! {
                        () = ctx.cancelled() => {
                            note(&format!("task {} cancelled", ctx.task_id()));
                            Err(TaskExit::Cancelled)
                        }
                        () = tokio::time::sleep(Duration::from_secs(60)) => {
                            Ok(CallToolResult::success(vec![ContentBlock::text("waited a minute")]))
                        }
                    }
                })
            }),
            other => return Err(ErrorData::invalid_params(format!("unknown tool: {other}"), None)),
        };
        note(&format!("task {} started for {}", task.task_id, request.name));
        Ok(CreateTaskResult::new(task).into())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        note(&format!("tasks/cancel {}", request.task_id));
        self.tasks.cancel_task(&request.task_id)
    }
}

#[tokio::main]
async fn main() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    let server = TaskServer { tasks: TaskManager::new() };
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    println!("http://{addr}/mcp");
    let _ = std::io::stdout().flush();
    // Serve until stdin closes (the test drops its end, or dies).
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        let _ = tx.send(());
    });
    tokio::select! {
        served = axum::serve(listener, router).into_future() => served.expect("serve"),
        _ = rx => {}
    }
}
