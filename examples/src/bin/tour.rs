//! The toolwire tour: the main job the README runs.
//!
//! `cargo run -p toolwire-examples --bin tour`
//!
//! It shows what `#[tool]` derives from plain fns (names, descriptions, schemas,
//! declarations), then makes one good call and three rejected ones, printing what a model
//! would read.

use serde_json::json;
use toolwire::{Context, ToolRegistry, tool, tools};

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

fn show(registry: &ToolRegistry) {
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

#[tokio::main]
async fn main() {
    let registry = tools![run_check, deploy, read_record].expect("tool names are unique");
    println!("== what #[tool] derived\n");
    show(&registry);

    println!("\n== calls, as a model would make them\n");
    let ctx = Context::new();
    let tool = registry.get("run_check").expect("registered");
    let calls = [
        json!({"name": "lint", "strict": true}),
        json!({"name": "lint", "verbose": true}),
        json!({}),
        json!({"name": "lint", "strict": "yes"}),
    ];
    for args in calls {
        match tool.call_json(args.clone(), &ctx).await {
            Ok(out) => println!("ok    {args} -> {}", out.joined_text()),
            Err(e) => println!("error {args} -> {e}"),
        }
    }
}
