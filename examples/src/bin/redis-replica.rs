//! One replica of a service behind a load balancer, on toolwire's own listener: legacy
//! sessions, resumable streams and notifications shared through one Redis connection,
//! `/healthz` and `/readyz` (which checks the session store by itself), and a drain on
//! SIGTERM. It needs nothing but toolwire (feature `redis`) and tokio.
//!
//! ```text
//! MCP_TOKEN=<a long random secret> cargo run -p toolwire-examples --bin redis-replica -- \
//!     --redis redis://127.0.0.1:6379/ --port 7001
//! ```
//!
//! Every replica is given the same `MCP_TOKEN` (the bearer token clients send) and the same
//! Redis; any of them then serves any session. It prints its endpoint URL, then serves until
//! SIGTERM/SIGINT or stdin closes, drains, and exits 0. `tests/tests/serving_examples.rs`
//! runs two of them against a real Redis.

use std::io::Read as _;
use std::sync::Arc;

use toolwire::http::{Auth, Drain, HttpConfig, Refusal, ResourceServer};
use toolwire::principal::Principal;
use toolwire::redis::Redis;
use toolwire::{Server, ServerOptions, tool, tools};

/// Echo the text back, saying which replica answered.
#[tool(read_only)]
fn echo(text: String) -> String {
    format!("{text} (from replica {})", std::process::id())
}

/// `--name value` from the command line.
fn flag(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = flag("--redis").ok_or("usage: redis-replica --redis <URL> [--port P]")?;
    let port: u16 = flag("--port").map_or(Ok(0), |p| p.parse())?;
    let secret = std::env::var("MCP_TOKEN").map_err(|_| "set MCP_TOKEN, the bearer token clients send")?;

    // One connection for the three stores; the fan-out is the server's, the stores HTTP's.
    let redis = Redis::open(&url, "mcp-replicas")?;
    let server = Server::builder(ServerOptions::new("replicated", env!("CARGO_PKG_VERSION")))
        .tools(tools![echo]?)
        .fanout(Arc::new(redis.fanout()))
        .build();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let resource = format!("http://{}/mcp", listener.local_addr()?);
    let verify = move |token: &str| match token == secret {
        true => Ok(Principal::new("client")),
        false => Err(Refusal::InvalidToken("not this service's token".into())),
    };
    let drain = Drain::new();
    let config = HttpConfig::new(Auth::resource_server(ResourceServer::new(resource.clone(), verify)))
        .session_store(Arc::new(redis.session_store()))
        .event_store(Arc::new(redis.event_store()))
        .drain(drain.clone());
    println!("{resource}");

    let end = drain.clone();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        end.begin();
    });
    tokio::spawn(drain.clone().begin_on_signal());
    toolwire::http::serve(listener, server, config).await;
    eprintln!("drained; {} requests cut off", drain.in_flight());
    Ok(())
}
