//! Serve a folder of skills (the Skills extension, SEP-2640): each folder directly inside
//! `DIR` is one skill, a `SKILL.md` with YAML frontmatter plus the files it refers to.
//!
//! ```text
//! cargo run -p toolwire-examples --bin skills -- tests/peers/fixtures/skills --port 0
//! cargo run -p toolwire-examples --bin skills -- tests/peers/fixtures/skills --stdio
//! ```
//!
//! Over HTTP it prints its URL (`http://127.0.0.1:P/mcp`) as the one line on stdout, then
//! serves until stdin closes. A malformed skill is refused before anything is served: the
//! error names the skill's folder and the fault, and the process exits 1.
//! `tests/tests/skills_interop.rs` reads it with the TypeScript SDK 2.4 `SkillsClient`.

use std::time::Duration;

use toolwire::http::{Auth, HttpConfig, mcp_router};
use toolwire::skills::SkillCatalog;
use toolwire::{Server, ServerOptions};

fn usage() -> ! {
    eprintln!("usage: skills DIR [--port P | --stdio]");
    std::process::exit(2);
}

fn main() {
    let (mut dir, mut port, mut stdio) = (None, 0u16, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).unwrap_or_else(|| usage()),
            "--stdio" => stdio = true,
            flag if flag.starts_with('-') => usage(),
            path if dir.is_none() => dir = Some(path.to_owned()),
            _ => usage(),
        }
    }
    let Some(dir) = dir else { usage() };
    let catalog = SkillCatalog::from_dir(&dir).unwrap_or_else(|e| {
        eprintln!("skills: {e}");
        std::process::exit(1);
    });
    let server = Server::builder(ServerOptions::new("toolwire-skills", env!("CARGO_PKG_VERSION")))
        .skills(catalog)
        .build();
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let served = if stdio {
        runtime
            .block_on(toolwire::stdio::serve(server, toolwire::stdio::StdioConfig::new()))
            .map_err(|e| e.to_string())
    } else {
        runtime.block_on(serve_http(server, port)).map_err(|e| e.to_string())
    };
    if let Err(e) = served {
        eprintln!("skills: {e}");
        std::process::exit(1);
    }
}

/// Serve `server` on `127.0.0.1:port` without auth until stdin closes, after printing the URL.
async fn serve_http(server: Server, port: u16) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    let config =
        HttpConfig::new(Auth::None).sse_polling(Duration::from_millis(300), Duration::from_millis(500));
    let stdin_closed = async {
        let _ =
            tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink()))
                .await;
    };
    axum::serve(listener, mcp_router(server, config)).with_graceful_shutdown(stdin_closed).await
}
