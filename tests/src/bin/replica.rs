//! One replica of a toolwire service, for the cluster tests (`tests/tests/cluster.rs`) and
//! the cluster bench (`bench/run.sh`): `toolwire::http::serve` (toolwire's own listener) on
//! a loopback port, drained on SIGTERM with [`Drain`]; with `--redis`, its four shared
//! stores on one `toolwire::redis::Redis` connection, and `/readyz` checking the session
//! store by itself.
//!
//! ```text
//! cargo run -p toolwire-tests --bin replica -- --name a --port 0 \
//!     [--legacy] [--request-state-key KEY] [--drain-grace SECONDS] [--redis URL] [--example-tools] [--live]
//!     [--event-store-bytes N] [--event-store-streams N]
//! ```
//!
//! It prints `url http://127.0.0.1:P/mcp` as its one line on stdout, then serves until
//! SIGTERM or SIGINT, which drains it (new connections refused, requests in flight finished
//! within the grace period) and makes it exit 0 after printing `replica <name> served <n>,
//! cut off <m>` on stderr. Stateless (no session ids) unless `--legacy`. Auth is off: the
//! replicas sit behind a load balancer on loopback. With `--redis URL` the replicas share
//! legacy sessions, SSE events and notifications through that Redis (`toolwire::redis`, keys
//! under `toolwire-cluster`), and `/readyz` answers 503 while the session store is down.
//! Without it, SSE events are kept in a `MemoryEventStore`: `--event-store-bytes` and
//! `--event-store-streams` set its bounds (the defaults otherwise).
//!
//! Its tools (each but `whoami`, `touch`, `steps` and `change` counts as a call it served):
//!
//! - `echo(text)`: returns `text`;
//! - `slow(ms, text)`: sleeps `ms` milliseconds, then returns `text`;
//! - `level()`: returns `<replica> logs debug: <true|false>`, the session's log level as this
//!   replica sees it;
//! - `whoami()`: returns `<name> <served>`, the replica's name and how many calls it served;
//! - `ask(question)`: asks the client for a name (one elicitation: in a 2026-07-28 call an
//!   `input_required` round, sealed with `--request-state-key` when given, so any replica with
//!   the same key can finish it), then returns `<name> answered on <replica>`;
//! - `touch(uri)`: `Server::notify_resource_updated(uri)` on this replica (the fan-out
//!   carries it to the others); returns `<replica> told <n>`, `n` the subscribers sent to
//!   at once from here;
//! - `steps(count, gap_ms)`: logs `{"step": i, "replica": <name>}` at info `count` times,
//!   `gap_ms` apart, then returns `<count> steps on <replica>`;
//! - `change()`, with `--live` (the server built `live()`): adds the tool `extra` to this
//!   replica's tools, or removes it when it is there, so each call is one change of the tool
//!   list (its `notifications/tools/list_changed` raised here, and carried to the others by
//!   the fan-out); returns `<replica> added extra` or `<replica> removed extra`. Without
//!   `--live` it returns the refusal's text.
//!
//! - `job(ms, confirm, label)`: a task when the client declares the tasks extension (its
//!   status message says `0: running on <replica>`), asks `go` first when `confirm`, then
//!   works `ms` milliseconds and returns `job <label> done on <replica>`. Tasks are kept in the
//!   shared Redis with `--redis` (else in this replica's memory), leased for 1.5 s, their
//!   inboxes read every 100 ms.
//!
//! Its resources, for subscriptions: `cluster://watched` and `cluster://other` (text).
//!
//! With `--example-tools` it serves the example server's tools instead
//! (`toolwire_examples::example_tools`, as `toolwire-example` 0.1.0: the contract of
//! `tests/peers/clients/contract.json`) and no resources, for the Python SDK's richer run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use toolwire::context::AskError;
use toolwire::http::{
    Auth, DEFAULT_EVENT_STORE_BYTES, DEFAULT_EVENT_STORE_STREAMS, DEFAULT_EVENTS_PER_STREAM, Drain,
    HttpConfig, MemoryEventStore,
};
use toolwire::protocol::LoggingLevel;
use toolwire::redis::Redis;
use toolwire::{Context, Server, ServerOptions, resource, resources, tool, tools};

/// The Redis key prefix every replica shares.
const PREFIX: &str = "toolwire-cluster";
/// How long a replica's lease on a task it runs lasts: 1.5 s.
const TASK_LEASE: Duration = Duration::from_millis(1500);

static NAME: OnceLock<String> = OnceLock::new();
static SERVED: AtomicU64 = AtomicU64::new(0);
/// The server, for `touch`.
static SERVER: OnceLock<Server> = OnceLock::new();

fn name() -> &'static str {
    NAME.get().map_or("replica", String::as_str)
}

fn served() -> u64 {
    SERVED.fetch_add(1, Ordering::AcqRel) + 1
}

/// Return the text.
#[tool(read_only)]
fn echo(
    /// The text to return.
    text: String,
) -> String {
    served();
    text
}

/// Sleep, then return the text.
#[tool(read_only)]
async fn slow(
    /// How long to sleep, in milliseconds.
    ms: u64,
    /// The text to return.
    text: String,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    served();
    text
}

/// This replica's name and how many calls it served.
#[tool(read_only)]
fn whoami() -> String {
    format!("{} {}", name(), SERVED.load(Ordering::Acquire))
}

/// Whether this session logs at debug, as this replica sees it (the level a legacy session's
/// `logging/setLevel` set is session state: through a shared store, every replica sees it).
#[tool(read_only)]
fn level(ctx: &Context) -> String {
    served();
    format!("{} logs debug: {}", name(), ctx.logs(LoggingLevel::Debug))
}

/// A name the client is asked for.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Person {
    /// The name.
    name: String,
}

/// Ask the client for a name, then say which replica got the answer.
#[tool(read_only)]
async fn ask(
    ctx: &Context,
    /// The question.
    question: String,
) -> Result<String, AskError> {
    let person: Person = ctx.elicit(&question).await?;
    served();
    Ok(format!("{} answered on {}", person.name, name()))
}

/// Tell the subscribers of `uri` (on every replica) that it changed, raising it here.
/// (Async: the Redis fan-out's publish needs the runtime, which a sync tool's thread lacks.)
/// A yes or no, as `job` asks for it.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Go {
    go: bool,
}

/// A long-running job, a task when the client takes one: says where it runs (as progress,
/// the task's status message `0: running on <replica>`), asks `go` when `confirm`, then
/// works `ms` milliseconds and returns `job <label> done on <replica>`.
#[tool(read_only, task = "optional")]
async fn job(
    ctx: &Context,
    /// How long to work, in milliseconds.
    ms: u64,
    /// Ask the client whether to go on first.
    confirm: bool,
    /// What to call it.
    label: String,
) -> Result<String, AskError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    ctx.report_progress(0.0, None, Some(&format!("running on {}", name())));
    if confirm {
        let answer: Go = ctx.elicit_as("go", &format!("Run job {label}?")).await?;
        if !answer.go {
            return Ok(format!("job {label} declined on {}", name()));
        }
    }
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(format!("job {label} done on {}", name()))
}

#[tool(read_only)]
async fn touch(
    /// The resource URI.
    uri: String,
) -> String {
    let told = SERVER.get().map_or(0, |s| s.notify_resource_updated(&uri));
    format!("{} told {told}", name())
}

/// Log `count` steps at info, `gap_ms` apart, then answer.
#[tool(read_only)]
async fn steps(
    ctx: &Context,
    /// How many steps.
    count: u32,
    /// Milliseconds before each step.
    gap_ms: u64,
) -> String {
    for step in 1..=count {
        tokio::time::sleep(Duration::from_millis(gap_ms)).await;
        ctx.log(LoggingLevel::Info, serde_json::json!({"step": step, "replica": name()}));
    }
    format!("{count} steps on {}", name())
}

/// Add the tool `extra` to this replica's tools, or remove it when it is there.
#[tool(side_effecting)]
fn change() -> String {
    let Some(server) = SERVER.get() else { return "not serving yet".to_owned() };
    match server.remove_tool("extra") {
        Ok(true) => format!("{} removed extra", name()),
        Ok(false) => match server.add_tool(extra {}) {
            Ok(()) => format!("{} added extra", name()),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    }
}

/// A tool that comes and goes (`change`).
#[tool(read_only)]
fn extra() -> &'static str {
    "extra"
}

/// A resource a cluster test subscribes to.
#[resource(uri = "cluster://watched", name = "watched", mime_type = "text/plain")]
fn watched() -> &'static str {
    "watched"
}

/// A resource a cluster test does not subscribe to.
#[resource(uri = "cluster://other", name = "other", mime_type = "text/plain")]
fn other() -> &'static str {
    "other"
}

struct Flags {
    port: u16,
    legacy: bool,
    request_state_key: Option<String>,
    drain_grace: Duration,
    redis: Option<String>,
    example_tools: bool,
    live: bool,
    event_store_bytes: Option<usize>,
    event_store_streams: Option<usize>,
}

fn parse() -> Result<Flags, String> {
    let mut flags = Flags {
        port: 0,
        legacy: false,
        request_state_key: None,
        drain_grace: Duration::from_secs(10),
        redis: None,
        example_tools: false,
        live: false,
        event_store_bytes: None,
        event_store_streams: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("flag '{arg}' needs a value"));
        match arg.as_str() {
            "--name" => {
                let _ = NAME.set(value()?);
            }
            "--port" => {
                flags.port = value()?.parse().map_err(|_| "--port: expected a port number".to_owned())?
            }
            "--legacy" => flags.legacy = true,
            "--example-tools" => flags.example_tools = true,
            "--live" => flags.live = true,
            "--event-store-bytes" => {
                let n = value()?.parse().map_err(|_| "--event-store-bytes: expected a number".to_owned())?;
                flags.event_store_bytes = Some(n);
            }
            "--event-store-streams" => {
                let n =
                    value()?.parse().map_err(|_| "--event-store-streams: expected a number".to_owned())?;
                flags.event_store_streams = Some(n);
            }
            "--redis" => flags.redis = Some(value()?),
            "--request-state-key" => flags.request_state_key = Some(value()?),
            "--drain-grace" => {
                let secs: f64 = value()?.parse().map_err(|_| "--drain-grace: expected seconds".to_owned())?;
                flags.drain_grace = Duration::from_secs_f64(secs);
            }
            other => return Err(format!("unknown flag '{other}'")),
        }
    }
    Ok(flags)
}

#[tokio::main]
async fn main() {
    let flags = parse().unwrap_or_else(|e| {
        eprintln!("replica: {e}");
        std::process::exit(2);
    });
    let server_name = if flags.example_tools { "toolwire-example" } else { "replica" };
    let mut options = ServerOptions::new(server_name, "0.1.0");
    if let Some(key) = &flags.request_state_key {
        options = options.request_state_key(key);
    }
    // Tasks: a short lease and poll interval, so that a killed replica's task reads as failed,
    // and an answer left on another replica is taken, within a test's patience.
    options = options.task_lease(TASK_LEASE).task_poll_interval(Duration::from_millis(100));
    let mut server = if flags.example_tools {
        let registry = toolwire_examples::example_tools::registry().expect("distinct example tools");
        Server::builder(options).tools(registry)
    } else {
        Server::builder(options)
            .tools(tools![echo, slow, level, whoami, ask, touch, steps, change, job].expect("distinct tools"))
            .resources(resources![watched, other].expect("distinct URIs"))
    };
    if flags.live {
        server = server.live();
    }
    let drain = Drain::new().grace(flags.drain_grace);
    let mut config = HttpConfig::new(Auth::None).stateless(!flags.legacy).drain(drain.clone());
    if flags.event_store_bytes.is_some() || flags.event_store_streams.is_some() {
        let bytes = flags.event_store_bytes.unwrap_or(DEFAULT_EVENT_STORE_BYTES);
        let streams = flags.event_store_streams.unwrap_or(DEFAULT_EVENT_STORE_STREAMS);
        let store = MemoryEventStore::with_limits(DEFAULT_EVENTS_PER_STREAM, bytes).max_streams(streams);
        config = config.event_store(Arc::new(store));
    }
    if let Some(url) = &flags.redis {
        let fail = |e: toolwire::redis::RedisError| -> ! {
            eprintln!("replica: redis {url}: {e}");
            std::process::exit(1);
        };
        // One connection for the three; `/readyz` checks the session store by itself.
        let redis = Redis::open(url, PREFIX).unwrap_or_else(|e| fail(e));
        config =
            config.session_store(Arc::new(redis.session_store())).event_store(Arc::new(redis.event_store()));
        server = server.fanout(Arc::new(redis.fanout())).task_store(Arc::new(redis.task_store()));
    }
    let server = server.build();
    let _ = SERVER.set(server.clone());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", flags.port)).await.unwrap_or_else(|e| {
        eprintln!("replica: cannot bind 127.0.0.1:{}: {e}", flags.port);
        std::process::exit(1);
    });
    let addr = listener.local_addr().expect("the bound address");
    println!("url http://{addr}/mcp");
    tokio::spawn(drain.clone().begin_on_signal());
    // toolwire's own listener: it returns once the drain began and finished (every
    // connection closed, its last answer written, or the grace spent).
    toolwire::http::serve(listener, server, config).await;
    let cut_off = drain.in_flight();
    eprintln!("replica {} served {}, cut off {cut_off}", name(), SERVED.load(Ordering::Acquire));
    std::process::exit(0);
}
