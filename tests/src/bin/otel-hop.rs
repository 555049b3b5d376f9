//! The middle hop of Python client -> toolwire -> Python server, for tests/tests/otel.rs: a
//! toolwire server over stdio whose tools are adopted from a Python server
//! (tests/peers/fixtures/py_otel_server.py, spawned over stdio), with
//! `toolwire::otel::ServerTelemetry` on the server and `ClientTelemetry` on the client, and
//! toolwire's exporter (`Otlp`) sending both sides' spans and metrics to the OTLP/HTTP
//! receiver at `OTEL_EXPORTER_OTLP_ENDPOINT`.
//!
//!     otel-hop PYTHON PY_OTEL_SERVER_SCRIPT          # serve over stdio
//!     otel-hop PYTHON PY_OTEL_SERVER_SCRIPT --http   # over HTTP on 127.0.0.1 (no auth): prints
//!                                                    # its URL, serves until stdin closes

use std::time::Duration;

use toolwire::client::{AdoptOptions, Client, ClientOptions, StdioServer};
use toolwire::otel::{ClientTelemetry, Otlp, ServerTelemetry};
use toolwire::stdio::StdioConfig;
use toolwire::{Server, ServerOptions};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (python, script) = (args.next().ok_or("no PYTHON")?, args.next().ok_or("no script")?);
    let endpoint = std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT")?;
    let otlp =
        Otlp::new("otel-hop").endpoint(&endpoint).metrics_interval(Duration::from_secs(3600)).install()?;

    let downstream = StdioServer::new(python).arg(script).arg(&endpoint);
    let client =
        Client::connect(downstream, ClientOptions::new("py").intercept(ClientTelemetry::new())).await?;
    let discovery = client.adopt(AdoptOptions::default().prefix("")).await?;
    let server = Server::builder(ServerOptions::new("otel-hop", "0.1.0"))
        .tools(discovery.registry()?)
        .intercept(ServerTelemetry::new())
        .build();
    if args.next().as_deref() == Some("--http") {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("http://{}/mcp", listener.local_addr()?);
        let config = toolwire::http::HttpConfig::new(toolwire::http::Auth::None);
        let serving = tokio::spawn(toolwire::http::serve(listener, server, config));
        tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink())).await??;
        serving.abort();
    } else {
        toolwire::stdio::serve(server, StdioConfig::default()).await?;
    }
    client.close().await;
    // Dropped here: every span and the metrics flushed to the receiver before exit.
    drop(otlp);
    Ok(())
}
