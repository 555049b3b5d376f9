//! The soak run's stdio server: `echo`, `panic` and `sleep` tools, with a per-call deadline
//! (`--deadline-ms`, default 5), served by `serve_stdio` on a current-thread runtime
//! (what `serve_registry!` builds). With `SOAK_METRICS=<path>` it rewrites that file every
//! 50 ms with the runtime's `alive_tasks=<n>` (tokio's stable runtime metrics), which the
//! soak driver reads at each checkpoint.
//!
//! With `--http` (feature `http`) it serves the same tools over loopback streamable HTTP
//! instead: `toolwire::serve_registry` with its defaults (127.0.0.1, an ephemeral port, a
//! generated bearer token, legacy sessions), started on the same current-thread runtime. It
//! prints `url <url>`, `authorization <header value>` and `ready` on stdout, and serves
//! until its stdin closes (then it stops the server and exits 0).

use std::time::Duration;

/// Echo the text back.
#[toolwire::tool(read_only)]
async fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Panic with the message (the server answers `isError` and serves on).
#[toolwire::tool(read_only)]
async fn panic(
    /// What the panic says.
    message: String,
) -> String {
    std::panic::panic_any(message)
}

/// Sleep for `ms` milliseconds.
#[toolwire::tool(read_only)]
async fn sleep(
    /// How long.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut deadline_ms = 5;
    let mut http = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--deadline-ms" => {
                deadline_ms = args.next().and_then(|v| v.parse().ok()).expect("--deadline-ms N")
            }
            "--http" => http = true,
            other => panic!("unknown argument {other}"),
        }
    }
    // A panicking tool is part of the mix: keep its message off stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async move {
        if let Some(path) = std::env::var_os("SOAK_METRICS") {
            tokio::spawn(async move {
                let metrics = tokio::runtime::Handle::current().metrics();
                let mut next = path.clone();
                next.push(".next");
                loop {
                    // Written aside and renamed, so a reader never sees it half-written.
                    let _ = std::fs::write(&next, format!("alive_tasks={}\n", metrics.num_alive_tasks()))
                        .and_then(|()| std::fs::rename(&next, &path));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
        }
        let options = toolwire::ServerOptions::new("toolwire-soak", env!("CARGO_PKG_VERSION"))
            .deadline(Some(Duration::from_millis(deadline_ms)));
        let tools = toolwire::tools![echo, panic, sleep].expect("the soak tools");
        if http {
            return serve_http(tools, options).await;
        }
        Ok(toolwire::serve_stdio(toolwire::Server::new(tools, options), toolwire::stdio::StdioConfig::new())
            .await?)
    })
}

/// Serve over loopback HTTP until stdin closes.
#[cfg(feature = "http")]
async fn serve_http(
    tools: toolwire::ToolRegistry,
    options: toolwire::ServerOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    use std::io::Write as _;
    use tokio::io::AsyncReadExt as _;
    let mut spec =
        toolwire::serve_registry(toolwire::Server::new(tools, options), toolwire::spec::SpecOptions::http())?;
    spec.start()?;
    let auth = spec.auth_headers().get("Authorization").cloned().unwrap_or_default();
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "url {}", spec.url().unwrap_or_default())?;
        writeln!(out, "authorization {auth}")?;
        writeln!(out, "ready")?;
        out.flush()?;
    }
    let mut stdin = tokio::io::stdin();
    let mut buf = [0u8; 64];
    while stdin.read(&mut buf).await.unwrap_or(0) > 0 {}
    spec.stop();
    Ok(())
}

#[cfg(not(feature = "http"))]
async fn serve_http(
    _: toolwire::ToolRegistry,
    _: toolwire::ServerOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    Err("--http needs soak-server built with `--features http`".into())
}
