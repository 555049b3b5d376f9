//! The toolwire tour: the main job the README runs.
//!
//! `cargo run -p toolwire-examples --bin tour`
//!
//! 1. What `#[tool]` derives from plain fns: names, descriptions, schemas, declarations.
//! 2. Calls in-process, one good and three rejected, as a model would read them.
//! 3. The same tools served over **stdio**: the tour spawns itself as a child process with
//!    `--serve-stdio` (which is `serve_stdio`), and toolwire's client drives it.
//! 4. Served over **loopback HTTP** with `serve_registry()`: a bearer token, a 0600 config
//!    file for Claude Code, the Codex projection, and the tools staying in this process.
//! 5. **Adoption**: the stdio server's tools become `Tool` objects again, held to
//!    everything a local tool is: validated locally, results sealed as untrusted data.
//! 6. **Resources and prompts**: the stdio server also serves a `#[resource]`, a template
//!    whose variable completes, and a `#[prompt]` (`toolwire_examples::tour_surface`); the
//!    client lists, reads, completes and renders them.

use std::sync::atomic::{AtomicU64, Ordering};

use std::collections::BTreeMap;

use serde_json::json;
use toolwire::client::{
    AdoptOptions, CallResult, Client, ClientOptions, HttpServer, RequireApproval, ResourceContent,
    StdioServer,
};
use toolwire::protocol::wire::{CompleteParams, CompletionReference};
use toolwire::spec::SpecOptions;
use toolwire::{Context, Server, ServerOptions, Tool, ToolOutput, ToolRegistry, serve_registry, tool, tools};
use toolwire_examples::tour_surface::{tour_prompts, tour_resources};

/// Run the named check and report whether it passed.
#[tool(read_only)]
fn run_check(
    /// Name of the check to run.
    name: String,
    /// Fail on warnings too.
    strict: Option<bool>,
) -> String {
    format!("{name}:{}:ok", if strict == Some(true) { "strict" } else { "lax" })
}

/// Deploy the current build to the named target environment.
#[tool(side_effecting, requires_approval, caps = ["egress"])]
async fn deploy(target: String) -> Result<String, std::io::Error> {
    Ok(format!("deployed to {target}"))
}

/// Read one customer record out of the private store.
#[tool(read_only, requires_approval, caps = ["private_data"])]
fn read_record(customer: String) -> String {
    format!("record of {customer}")
}

/// In-process state a tool can hold when it is served over HTTP: it never crosses a process.
static VISITS: AtomicU64 = AtomicU64::new(0);

/// Count this visit and say how many there have been.
#[tool(side_effecting, idempotent = false)]
fn visit() -> String {
    format!("visit number {}", VISITS.fetch_add(1, Ordering::SeqCst) + 1)
}

fn registry() -> ToolRegistry {
    tools![run_check, deploy, read_record, visit].expect("tool names are unique")
}

/// The text blocks of a raw call result, joined.
fn text(result: &CallResult) -> String {
    ToolOutput::from_content(result.content.clone()).joined_text()
}

fn heading(text: &str) {
    println!("\n== {text}\n");
}

fn show_derived(registry: &ToolRegistry) {
    let names = registry.qualified_names("engine").expect("a valid server name");
    for tool in registry.iter() {
        let info = tool.info();
        let d = info.declarations();
        println!("{}  ({})", info.name(), names.qualified(info.name()).unwrap_or("?"));
        println!("  description:  {}", info.description());
        println!("  inputSchema:  {}", info.input_schema().as_str());
        println!(
            "  declarations: side_effecting={} requires_approval={} caps={:?}",
            d.side_effecting, d.requires_approval, d.caps
        );
        println!("  readOnlyHint: {}", info.annotations().read_only_hint);
    }
}

fn bad_calls() -> [serde_json::Value; 4] {
    [
        json!({"name": "lint", "strict": true}),
        json!({"name": "lint", "verbose": true}),
        json!({}),
        json!({"name": "lint", "strict": "yes"}),
    ]
}

async fn in_process(registry: &ToolRegistry) {
    let ctx = Context::new();
    let tool = registry.get("run_check").expect("registered");
    for args in bad_calls() {
        match tool.call_json(args.clone(), &ctx).await {
            Ok(out) => println!("ok    {args} -> {}", out.joined_text()),
            Err(e) => println!("error {args} -> {e}"),
        }
    }
}

async fn over_stdio() -> Result<Client, Box<dyn std::error::Error>> {
    let me = std::env::current_exe()?;
    let client =
        Client::connect(StdioServer::new(me).arg("--serve-stdio"), ClientOptions::new("engine")).await?;
    let info = client.server_info();
    println!(
        "connected to {} {} over stdio, protocol {}",
        info.name.as_deref().unwrap_or("?"),
        info.version.as_deref().unwrap_or("?"),
        info.protocol_version
    );
    let listed = client.list_tools(false).await?;
    println!("tools/list: {:?}", listed.iter().map(|t| t.name.as_str()).collect::<Vec<_>>());
    for args in bad_calls() {
        let result = client.call_tool("run_check", args.clone(), Default::default()).await?;
        let verdict = if result.is_error { "isError" } else { "ok     " };
        println!("{verdict} {args} -> {}", text(&result));
    }
    let unknown = client.call_tool("nope", json!({}), Default::default()).await;
    println!("unknown tool -> {}", unknown.err().map(|e| e.to_string()).unwrap_or_default());
    Ok(client)
}

async fn over_http() -> Result<(), Box<dyn std::error::Error>> {
    let mut spec = serve_registry(
        Server::new(registry(), ServerOptions::new("engine", env!("CARGO_PKG_VERSION"))),
        SpecOptions::http(),
    )?;
    println!("url:               {}", spec.url().unwrap_or_default());
    println!("tool_names:        {:?}", spec.tool_names());
    println!("requires_approval: {:?}", spec.requires_approval());
    println!("auto_approve:      {:?}", spec.auto_approve());
    println!("caps:              {:?}", spec.caps());
    let token = spec.auth_headers().get("Authorization").cloned().unwrap_or_default();
    let redact = |s: &str| s.replace(token.trim_start_matches("Bearer "), "<token>");
    println!("claude args:       {:?}", spec.claude_cli_args(true));
    let codex = spec.codex_config();
    println!("codex config.toml:\n{}", redact(&codex.toml).trim_end());
    println!("codex env:         {:?}", codex.env.keys().collect::<Vec<_>>());

    spec.start()?;
    let mut server = HttpServer::new(spec.url().unwrap_or_default());
    for (k, v) in spec.auth_headers() {
        server = server.header(k, v);
    }
    let client = Client::connect(server, ClientOptions::new("engine")).await?;
    for _ in 0..2 {
        let out = client.call_tool("visit", json!({}), Default::default()).await?;
        println!("visit -> {}", text(&out));
    }
    println!("in-process counter: {}", VISITS.load(Ordering::SeqCst));
    println!("calls_seen:         {}", spec.calls_seen());
    client.close().await;
    let config = spec.config_path().to_owned();
    spec.stop();
    println!("after stop(), config file exists: {}", config.exists());
    Ok(())
}

async fn adoption(client: &Client) -> Result<(), Box<dyn std::error::Error>> {
    let discovery = client
        .adopt(AdoptOptions::default().prefix("engine_").approval(RequireApproval::Destructive))
        .await?;
    for tool in discovery.tools() {
        let d = tool.info().declarations();
        println!(
            "{:<20} side_effecting={:<5} requires_approval={:<5} delivery={:?}",
            tool.info().name(),
            d.side_effecting,
            d.requires_approval,
            tool.delivery()
        );
    }
    let check = discovery.get("run_check")?;
    let ctx = Context::new();
    let out = check.call_json(json!({"name": "lint"}), &ctx).await?;
    println!("call engine_run_check ->\n{}", out.joined_text());
    let err =
        check.call_json(json!({"name": "lint", "verbose": true}), &ctx).await.err().map(|e| e.to_string());
    println!("rejected locally, before the server sees it -> {}", err.unwrap_or_default());
    Ok(())
}

async fn resources_and_prompts(client: &Client) -> Result<(), Box<dyn std::error::Error>> {
    for r in client.list_resources(false).await?.iter() {
        println!("resource  {}  {:?}  title={:?}", r.uri, r.name, r.title.as_deref().unwrap_or(""));
    }
    for t in client.list_resource_templates(false).await?.iter() {
        println!("template  {}  {:?}", t.uri_template, t.name);
    }
    for uri in ["config://engine", "checks://lint/report"] {
        for item in client.read_resource(uri).await? {
            if let ResourceContent::Text { uri, mime_type, text } = item {
                println!("read {uri} ({}) -> {text}", mime_type.unwrap_or_default());
            }
        }
    }
    let missing = client.read_resource("config://nope").await.err().map(|e| e.to_string());
    println!("read config://nope -> {}", missing.unwrap_or_default());
    let template = CompletionReference::Resource { uri: "checks://{name}/report".into() };
    for typed in ["t", "ty"] {
        let done = client.complete(&CompleteParams::new(template.clone(), "name", typed)).await?;
        println!("complete name={typed:?} -> {:?}", done.completion.values);
    }
    for p in client.list_prompts().await? {
        let args: Vec<_> = p.arguments.iter().map(|a| a.name.as_str()).collect();
        println!("prompt    {}  arguments={args:?}", p.name);
    }
    let target = BTreeMap::from([("target".to_owned(), "staging".to_owned())]);
    let rendered = client.get_prompt("plan_deploy", &target).await?;
    for m in &rendered.messages {
        println!("get plan_deploy -> {}: {}", m.role, m.text);
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some("--serve-stdio") {
        // The child half: the same registry, with the resources and the prompt, served on
        // stdin/stdout until the parent closes it.
        let options = ServerOptions::new("tour-engine", env!("CARGO_PKG_VERSION"));
        let server =
            Server::builder(options).tools(registry()).resources(tour_resources()).prompts(tour_prompts());
        toolwire::stdio::serve(server.build(), toolwire::stdio::StdioConfig::new()).await?;
        return Ok(());
    }
    let registry = registry();
    heading("1. what #[tool] derived");
    show_derived(&registry);
    heading("2. calls in-process, as a model would make them");
    in_process(&registry).await;
    heading("3. served over stdio, driven by toolwire's client");
    let client = over_stdio().await?;
    heading("4. served over loopback HTTP with serve_registry()");
    over_http().await?;
    heading("5. the stdio server's tools adopted as Tool objects");
    adoption(&client).await?;
    heading("6. resources, a template and a prompt, served over stdio and read back");
    resources_and_prompts(&client).await?;
    client.close().await;
    Ok(())
}
