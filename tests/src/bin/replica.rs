//! One replica of a toolwire service, for the cluster tests (`tests/tests/cluster.rs`) and
//! the cluster bench (`bench/run.sh`): `toolwire::http::mcp_router` on a loopback port,
//! served with `axum::serve` and drained on SIGTERM with [`Drain`], the hook a program that
//! mounts the router itself uses.
//!
//! ```text
//! cargo run -p toolwire-tests --bin replica -- --name a --port 0 \
//!     [--legacy] [--request-state-key KEY] [--drain-grace SECONDS]
//! ```
//!
//! It prints `url http://127.0.0.1:P/mcp` as its one line on stdout, then serves until
//! SIGTERM or SIGINT, which drains it (new connections refused, requests in flight finished
//! within the grace period) and makes it exit 0 after printing `replica <name> served <n>,
//! cut off <m>` on stderr. Stateless (no session ids) unless `--legacy`. Auth is off: the
//! replicas sit behind a load balancer on loopback.
//!
//! Its tools (each but `whoami` counts as a call it served):
//!
//! - `echo(text)`: returns `text`;
//! - `slow(ms, text)`: sleeps `ms` milliseconds, then returns `text`;
//! - `whoami()`: returns `<name> <served>`, the replica's name and how many calls it served;
//! - `ask(question)`: asks the client for a name (one elicitation: in a 2026-07-28 call an
//!   `input_required` round, sealed with `--request-state-key` when given, so any replica with
//!   the same key can finish it), then returns `<name> answered on <replica>`.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use toolwire::context::AskError;
use toolwire::http::{Auth, Drain, HttpConfig, mcp_router};
use toolwire::server::Exposure;
use toolwire::{Context, Server, ServerOptions, tool, tools};

static NAME: OnceLock<String> = OnceLock::new();
static SERVED: AtomicU64 = AtomicU64::new(0);

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

struct Flags {
    port: u16,
    legacy: bool,
    request_state_key: Option<String>,
    drain_grace: Duration,
}

fn parse() -> Result<Flags, String> {
    let mut flags =
        Flags { port: 0, legacy: false, request_state_key: None, drain_grace: Duration::from_secs(10) };
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
    let mut options = ServerOptions::new("replica", "0.1.0");
    if let Some(key) = &flags.request_state_key {
        options = options.request_state_key(key);
    }
    let server = Server::new(tools![echo, slow, whoami, ask].expect("distinct tools"), options);
    let drain = Drain::new().grace(flags.drain_grace);
    let config = HttpConfig::new(Auth::None).stateless(!flags.legacy).drain(drain.clone());
    let app = mcp_router(server, Exposure::TrustedHost, config);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", flags.port)).await.unwrap_or_else(|e| {
        eprintln!("replica: cannot bind 127.0.0.1:{}: {e}", flags.port);
        std::process::exit(1);
    });
    let addr = listener.local_addr().expect("the bound address");
    println!("url http://{addr}/mcp");
    tokio::spawn(drain.clone().begin_on_signal());
    let serving = axum::serve(listener, app).with_graceful_shutdown(drain.begun());
    // axum returns once every connection closed, its last answer written; the grace bounds it.
    let cut_off = tokio::select! {
        served = serving => {
            if let Err(e) = served {
                eprintln!("replica {}: {e}", name());
                std::process::exit(1);
            }
            0
        }
        () = drain.expired() => drain.in_flight(),
    };
    eprintln!("replica {} served {}, cut off {cut_off}", name(), SERVED.load(Ordering::Acquire));
    std::process::exit(0);
}
